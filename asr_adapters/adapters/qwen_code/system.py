"""Qwen Code's ``system`` records: slash commands, compression checkpoints, titles and the
bookkeeping (telemetry, ``@`` expansions, state snapshots) kept as vendor records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..gemini_cli.parts import map_part, native_parts

REGISTRY = "ai.qwen.qwen-code"
_NOT_TO_MODEL = {"state": "absent", "reason": "a UI command; Qwen Code did not send it to the model"}
_NO_ROLE = {"state": "absent", "reason": "a CLI notice; Qwen Code gives it no role"}


class SystemRecords:
    """Needs the mapper's ``emit``, ``_base``, ``_tail`` and ``_vendor``."""

    if TYPE_CHECKING:
        emit: Any
        _parent: str | None

        def _base(self, kind: str, item: dict[str, Any]) -> dict[str, Any]: ...

        def _tail(self, record: dict[str, Any], item: dict[str, Any], known: frozenset[str] = ...) -> None: ...

        def _vendor(self, item: dict[str, Any], schema: str) -> dict[str, Any]: ...

        def _message_id(self, record: dict[str, Any], item: dict[str, Any]) -> None: ...

    def _system(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        subtype = item.get("subtype")
        payload = item.get("systemPayload")
        payload = payload if isinstance(payload, dict) else {}
        if subtype == "slash_command":
            record = self._command(item, payload)
        elif subtype == "chat_compression":
            record = self._compression(item, payload)
        elif subtype == "custom_title" and isinstance(payload.get("customTitle"), str):
            record = self._vendor(item, "system/custom_title")
            record["title"] = payload["customTitle"]
        else:  # ui_telemetry, at_command, rewind, session_* and later subtypes: bookkeeping
            return []
        return [record] if record is not None else []

    def _command(self, item: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any] | None:
        """``/command`` as typed (``invocation``: what the person saw, not model input unless
        ``sentToModel``) and what it printed (``result``: a harness notice, ASR-205)."""
        phase = payload.get("phase")
        raw = payload.get("rawCommand")
        known = frozenset({"uuid", "parentUuid", "timestamp", "type", "subtype", "systemPayload"})
        if phase == "invocation" and isinstance(raw, str) and payload.get("sentToModel") is not True:
            record = self._base("message", item)
            self._message_id(record, item)
            record.update(author="human", origin="command", audience="user", content=[])
            record["displayContent"] = [{"type": "text", "text": raw}]
            record["capture"] = {"content": dict(_NOT_TO_MODEL), "role": dict(_NOT_TO_MODEL)}
            self._tail(record, item, known)
            record["systemPayload"] = payload
            return record
        items = payload.get("outputHistoryItems")
        if phase == "result" and isinstance(items, list) and items:
            content = []
            for entry in items:
                if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
                    return None  # a shape not seen: kept whole as vendor
                part: dict[str, Any] = {"type": "text", "text": entry["text"]}
                rest = {k: v for k, v in entry.items() if k != "text"}
                if rest:
                    part["_meta"] = {f"{REGISTRY}/item": rest}
                content.append(part)
            record = self._base("message", item)
            self._message_id(record, item)
            record.update(author="harness", origin="notice", audience="user", content=content)
            record["capture"] = {"role": dict(_NO_ROLE)}
            self._tail(record, item, known)
            record["systemPayload"] = {k: v for k, v in payload.items() if k != "outputHistoryItems"}
            return record
        return None

    def _compression(self, item: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any] | None:
        """A ``/compress`` checkpoint: ``compressedHistory`` is the model's whole history
        afterwards, its first turn the summary; the records before it stay in the file, so the
        summary replaces the chain ending at its ``parentUuid`` (``through``)."""
        history = payload.get("compressedHistory")
        first = history[0] if isinstance(history, list) and history else None
        if not isinstance(first, dict):
            return None
        record = self._base("message", item)
        self._message_id(record, item)
        if first.get("role") == "user":
            record["role"] = "user"
        record.update(author="harness", origin="injected", audience="model")
        record["content"] = [map_part(p, REGISTRY, thought_summary=False) for p in native_parts(first.get("parts"))]
        if "role" not in record:
            record["capture"] = {"role": {"state": "absent", "reason": "the summary turn names no user role"}}
        record["summaryOf"] = "compaction"
        record["compaction"] = {"through": self._parent} if self._parent is not None else {}
        self._tail(record, item, frozenset({"uuid", "parentUuid", "timestamp", "type", "subtype", "systemPayload"}))
        record["systemPayload"] = payload
        return record
