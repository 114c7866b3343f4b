"""Tool calls and their outputs, and what some calls also are: plans and subagent spawns."""

from __future__ import annotations

import re
from typing import Any

import orjson

from ...core import items
from ...core.outcome import denied, set_exit_code
from ...core.refs import put_id, session_ref
from ...core.sanitized import MARKER
from .content import data_url_image, output_parts
from .state import ConverterState

#: a Responses API item ``status`` as a tool status (docs/semantics.md, Tool status vocabulary);
#: any other value (``searching``, ``generating`` …) is namespaced
_TOOL_STATUS = {"completed": "complete", "failed": "error", "incomplete": "partial", "in_progress": "partial"}
#: what codex-rs writes as the output of a call the person declined (``ReviewDecision::Denied``
#: / ``Abort`` normalised to these texts) and of a call whose output went missing when the turn
#: was interrupted (``normalize_history`` inserts "aborted")
_DENIED_OUTPUTS = frozenset({"exec command rejected by user", "patch rejected by user"})
_ABORTED_OUTPUT = "aborted"
#: the header unified exec writes before a command's output once it has exited
#: codex-rs's output for a command the sandbox stopped ("failed in sandbox <type> with execution
#: error: sandbox denied exec error, exit code: N, stdout: …"): a failure, with its exit code
_SANDBOX_FAILED = re.compile(r"failed in sandbox \S+ with execution error: [^\n]*?exit code: (-?\d+)")
_EXITED = re.compile(r"(?:Chunk ID: [^\n]*\n)?Wall time: [^\n]*\nProcess exited with code (-?\d+)\n")


def tool_status(value: Any) -> str | None:
    """A native item's ``status`` in the tool vocabulary, or None when it has none."""
    if not isinstance(value, str):
        return None
    return _TOOL_STATUS.get(value) or f"com.openai.codex/{value}"


#: ``update_plan`` step statuses are the spec's own values.
_ENTRY_STATUSES = frozenset({"pending", "in_progress", "completed"})
_SPAWN_TOOLS = frozenset({"spawn_agent"})


_JSON_AFTER_BRACKET = frozenset('{["]-0123456789tfn \n\t\r')


def parse_arguments(raw: Any) -> tuple[bool, Any]:
    """``(True, value)`` when the arguments string is JSON, else ``(False, raw)``.

    Text that cannot open a JSON value is not tried: a failed parse costs a raised error,
    and sanitised or freeform arguments are common."""
    if isinstance(raw, str):
        first = raw[:1]
        if first not in ("{", "[", '"') or (first == "[" and raw[1:2] not in _JSON_AFTER_BRACKET):
            return False, raw
        try:
            return True, items.parse(raw)
        except orjson.JSONDecodeError:
            return False, raw
    return True, raw


class ToolMapper(ConverterState):
    def call_record(self, item: dict[str, Any], kind: str, name: Any) -> dict[str, Any]:
        record = self.envelope("tool_call")
        put_id(record, "callId", item.get("call_id") or item.get("id"), self.derived(kind))
        if isinstance(name, str):
            record["name"] = name
            self.call_names[record["callId"]] = name  # the output names no tool: its call does
        return record

    def on_function_call(self, item: dict[str, Any]) -> None:
        name = item.get("name")
        record = self.call_record(item, "call", name)
        parsed, value = parse_arguments(item.get("arguments"))
        encrypted = item.get("encrypted_function_args")
        if parsed:
            record["input"] = value
            sealed = seal_encrypted_args(value, encrypted)
            if sealed:
                record["opaqueInput"] = sealed
        else:
            record["arguments"] = value
        self._keep_rest(record, item, _CALL_KEYS)
        self.put(record)
        self.acc.records += 1
        if name == "update_plan":
            self.plan_from_update(record, value if parsed else None, item.get("arguments"))
        elif name in _SPAWN_TOOLS and parsed and isinstance(value, dict):
            if len(self.spawns) >= _SPAWN_LIMIT:  # bounded: the oldest waits no longer
                oldest = next(iter(self.spawns))
                evicted = self.spawns.pop(oldest)
                self.subagent_from_spawn(oldest, evicted, evicted.get("output"), flushed=True)
            self.spawns[record["callId"]] = {
                "args": value,
                "encrypted": encrypted if isinstance(encrypted, list) else [],
                "at": {k: record[k] for k in ("ts", "tsPrecision", "turnId") if k in record},
            }

    def on_custom_tool_call(self, item: dict[str, Any]) -> None:
        record = self.call_record(item, "call", item.get("name"))
        raw = item.get("input")
        if isinstance(raw, str):
            record["arguments"] = raw
        else:
            record["input"] = raw
        status = tool_status(item.get("status"))
        if status is not None:
            record["status"] = status
        self._keep_rest(record, item, _CUSTOM_KEYS)
        self.put(record)
        self.acc.records += 1

    def on_builtin_call(self, item: dict[str, Any], kind: str, name: str, input_key: str) -> None:
        """``local_shell_call``, ``web_search_call``, ``tool_search_call``: hosted or built-in tools."""
        record = self.call_record(item, kind, name)
        if kind == "web_search_call" and "idSource" in record:
            native_id = self.web_search_id(item.get(input_key))
            if native_id is not None:
                record["callId"] = native_id
                del record["idSource"]
        if input_key in item:
            record["input"] = item[input_key]
        status = tool_status(item.get("status"))
        if status is not None:
            record["status"] = status
        known = {"type", "call_id", "status", input_key}
        if record["callId"] == item.get("id"):
            known.add("id")
        self._keep_rest(record, item, frozenset(known))
        self.put(record)
        self.acc.records += 1

    def on_image_generation(self, item: dict[str, Any]) -> None:
        record = self.call_record(item, "image_generation", "image_generation")
        if isinstance(item.get("revised_prompt"), str):
            record["input"] = {"revised_prompt": item["revised_prompt"]}
        status = tool_status(item.get("status"))
        if status is not None:
            record["status"] = status
        self.put(record)
        result = self.envelope("tool_result")
        result["callId"] = record["callId"]
        result["name"] = "image_generation"
        if status is not None:
            result["status"] = status
        image = item.get("result")
        if isinstance(image, str) and image:
            part = (
                data_url_image(image)
                if image.startswith("data:")
                else {
                    "type": "image",
                    "mimeType": "image/png",
                    "data": image,
                }
            )
            result["content"] = [part] if part else [{"type": "text", "text": image}]
        else:
            result["content"] = []
        self._keep_rest(result, item, frozenset({"type", "id", "call_id", "status", "revised_prompt", "result"}))
        self.put(result)
        self.acc.records += 1

    def on_output(self, item: dict[str, Any], kind: str) -> None:
        record = self.envelope("tool_result")
        put_id(record, "callId", item.get("call_id"), self.derived(kind))
        if isinstance(item.get("name"), str):
            record["name"] = item["name"]
        else:
            name = self.call_names.get(record["callId"])
            if name is not None:
                record["name"] = name
        status = tool_status(item.get("status"))
        if status is not None:
            record["status"] = status
        output = item.get("output", item.get("tools"))
        if isinstance(output, str):
            output_outcome(record, output)
        record["content"] = output_parts(output)
        self._keep_rest(record, item, _OUTPUT_KEYS)
        self.put(record)
        self.acc.records += 1
        spawn = self.spawns.get(record["callId"])
        if spawn is not None:
            spawn["output"] = output
            if "child" in spawn or not names_child_later(output):
                del self.spawns[record["callId"]]
                self.subagent_from_spawn(record["callId"], spawn, output)
            # else MultiAgentV2: the child's thread id is in a sub_agent_activity event that
            # can still come; the subagent record waits for it until the turn ends.

    def on_web_search_end(self, event: dict[str, Any]) -> None:
        """Codex saves a ``web_search_call`` without its id; the ``web_search_end`` event it
        writes just before the item names it (``call_id``) and repeats its ``action``."""
        call_id = event.get("call_id")
        if isinstance(call_id, str) and call_id:
            searches = self.web_searches
            searches.append((event.get("action"), call_id))
            if len(searches) > _SEARCH_LIMIT:
                searches.popleft()

    def web_search_id(self, action: Any) -> str | None:
        """The call id of the waiting ``web_search_end`` with this very action, taken once."""
        for index, (candidate, call_id) in enumerate(self.web_searches):
            if candidate == action:
                del self.web_searches[index]
                return call_id
        return None

    # -- what some calls also are ---------------------------------------------------------

    def plan_from_update(self, call: dict[str, Any], value: Any, raw: Any) -> None:
        """``update_plan`` carries the whole plan each time: a snapshot, revised by the next.

        A call whose arguments give no step list (not JSON, cut off, replaced by a
        sanitizer, no ``plan``) is still a snapshot, so that a plan index finds every
        call: no entries, and ``capture.entries`` saying why (issue 27.10)."""
        steps = value.get("plan") if isinstance(value, dict) else None
        if not isinstance(steps, list):
            self.unreadable_plan(call, value, raw)
            return
        entries = []
        for step in steps:
            if not isinstance(step, dict) or not isinstance(step.get("step"), str):
                continue
            status = step.get("status")
            if not isinstance(status, str):
                status = "com.openai.codex/unknown"
            elif status not in _ENTRY_STATUSES:
                status = f"com.openai.codex/{status}"
            entries.append({"content": step["step"], "status": status})
        plan = self.envelope("plan")
        plan["planId"] = f"update_plan:{self.thread_id or 'unknown'}"
        plan["planType"] = "items"
        plan["callId"] = call["callId"]
        plan["entries"] = entries
        plan["idSource"] = "derived"
        if isinstance(value.get("explanation"), str):
            plan["explanation"] = value["explanation"]
        self.put(plan)

    def unreadable_plan(self, call: dict[str, Any], value: Any, raw: Any) -> None:
        plan = self.envelope("plan")
        plan["planId"] = f"update_plan:{self.thread_id or 'unknown'}"
        plan["planType"] = "items"
        plan["callId"] = call["callId"]
        plan["entries"] = []
        if isinstance(raw, str) and MARKER.fullmatch(raw.strip()):
            capture = {"state": "redacted", "reason": f"replaced by a sanitizer before conversion: {raw.strip()}"}
        elif "arguments" in call:
            capture = {"state": "absent", "reason": "the update_plan arguments are not JSON (the tool call keeps them)"}
        else:
            capture = {"state": "absent", "reason": "the update_plan arguments hold no plan list"}
        plan["capture"] = {"entries": capture}
        plan["idSource"] = "derived"
        if isinstance(value, dict) and isinstance(value.get("explanation"), str):
            plan["explanation"] = value["explanation"]
        self.put(plan)

    def on_spawn_event(self, event: dict[str, Any]) -> None:
        """``sub_agent_activity`` (``event_id`` = the spawn's call id), its paginated
        ``SubAgentActivity`` item, or ``collab_agent_spawn_end``: the child's thread id."""
        call_id = event.get("event_id", event.get("call_id"))
        if not isinstance(call_id, str):
            return
        spawn = self.spawns.get(call_id)
        thread = event.get("agent_thread_id", event.get("new_thread_id"))
        if spawn is None or "child" in spawn or not isinstance(thread, str) or not thread:
            return
        spawn["child"] = thread
        if isinstance(event.get("agent_path"), str):
            spawn["path"] = event["agent_path"]
        if "output" in spawn:  # the output came first and is waiting: the link is complete
            del self.spawns[call_id]
            self.subagent_from_spawn(call_id, spawn, spawn["output"])

    def flush_waiting_spawns(self) -> None:
        """The turn ended: spawns whose output came but no child id are written as they are."""
        for call_id in [c for c, spawn in self.spawns.items() if "output" in spawn]:
            spawn = self.spawns.pop(call_id)
            self.subagent_from_spawn(call_id, spawn, spawn["output"])

    def subagent_from_spawn(self, call_id: str, spawn: dict[str, Any], output: Any, flushed: bool = False) -> None:
        args: dict[str, Any] = spawn["args"]
        parsed, result = parse_arguments(output) if isinstance(output, str) else (False, None)
        record = {"type": "subagent", **spawn["at"]} if flushed else self.envelope("subagent")
        record["callId"] = call_id
        if parsed and isinstance(result, dict) and isinstance(result.get("agent_id"), str):
            record["session"] = session_ref("codex", result["agent_id"])
        elif isinstance(spawn.get("child"), str):
            record["session"] = session_ref("codex", spawn["child"])
        address = args.get("task_name")
        if isinstance(spawn.get("path"), str):
            address = spawn["path"]
        if parsed and isinstance(result, dict) and isinstance(result.get("task_name"), str):
            address = result["task_name"]
        if isinstance(address, str):
            record["address"] = address
        if isinstance(args.get("agent_type"), str):
            record["agentType"] = args["agent_type"]
        message = args.get("message")
        if isinstance(message, str) and "message" not in spawn["encrypted"]:
            record["description"] = message
        if parsed and isinstance(result, dict) and isinstance(result.get("nickname"), str):
            record["nickname"] = result["nickname"]
        self.put(record)

    def flush_spawns(self) -> None:
        """Spawns whose output never came (a crash, an abort) are still delegations."""
        for call_id, spawn in list(self.spawns.items()):
            self.subagent_from_spawn(call_id, spawn, spawn.get("output"), flushed=True)
        self.spawns.clear()

    def _keep_rest(self, record: dict[str, Any], item: dict[str, Any], known: frozenset[str]) -> None:
        if not item.keys() <= known:  # a subset test in C: most items have no other member
            record["codex"] = {k: v for k, v in item.items() if k not in known}


def output_outcome(record: dict[str, Any], output: str) -> None:
    """What a string output records of the call's outcome: the person's refusal, an
    interruption, or the command's exit code (``metadata.exit_code`` of the JSON output of
    the shell and apply_patch tools; the header unified exec writes)."""
    if output in _DENIED_OUTPUTS:
        record["status"] = denied("com.openai.codex")
    elif output == _ABORTED_OUTPUT:
        record["status"] = "interrupted"
    elif output.startswith('{"') and '"exit_code"' in output:
        parsed, value = parse_arguments(output)
        metadata = value.get("metadata") if parsed and isinstance(value, dict) else None
        if isinstance(metadata, dict):
            set_exit_code(record, metadata.get("exit_code"))
    elif "\nProcess exited with code " in output[:400]:
        match = _EXITED.match(output)
        if match is not None:
            set_exit_code(record, int(match.group(1)))
    elif output.startswith("failed in sandbox "):
        record["isError"] = True
        match = _SANDBOX_FAILED.match(output[:400])
        if match is not None:
            set_exit_code(record, int(match.group(1)))


def names_child_later(output: Any) -> bool:
    """A MultiAgentV2 spawn output (``task_name``/``nickname``, no ``agent_id``): the child's
    thread id is recorded by an event, not by the output."""
    parsed, result = parse_arguments(output) if isinstance(output, str) else (False, None)
    return parsed and isinstance(result, dict) and "agent_id" not in result and "task_name" in result


def seal_encrypted_args(value: Any, names: Any) -> list[str]:
    """Replace each argument ``encrypted_function_args`` names by an opaque value (ASR-231's
    shape), so ciphertext never reads as text in ``input``; returns the members replaced."""
    if not isinstance(value, dict) or not isinstance(names, list):
        return []
    sealed = []
    for name in names:
        if isinstance(name, str) and isinstance(value.get(name), str):
            value[name] = {"type": "opaque", "format": ENCRYPTED_ARGUMENT, "data": value[name]}
            sealed.append(name)
    return sealed


#: the ``format`` of an argument value Codex lists in ``encrypted_function_args``
ENCRYPTED_ARGUMENT = "openai.encrypted_function_args"
#: spawns waiting for their output or child id (a handful per turn)
_SPAWN_LIMIT = 256
#: ``web_search_end`` events waiting for their item (it follows at once)
_SEARCH_LIMIT = 64

#: Members each record states in its own words; a native item ``id`` beside ``call_id`` is kept.
_CALL_KEYS = frozenset({"type", "call_id", "name", "arguments"})
_CUSTOM_KEYS = frozenset({"type", "call_id", "name", "input", "status"})
_OUTPUT_KEYS = frozenset({"type", "call_id", "name", "output", "tools", "status"})
