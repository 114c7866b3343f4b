"""Agent homes built by the tests: golden inputs put where each agent keeps its sessions, and
small Codex rollouts written with the times, models and token counts a test needs."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from golden_support import GOLDEN
from test_batch import build_sqlite


def home_env(root: Path) -> dict[str, str]:
    """Every agent's home relocated under ``root`` (nothing of the real machine is read)."""
    return {
        "HOME": str(root / "home"),
        "CODEX_HOME": str(root / "codex"),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "OPENCLAW_STATE_DIR": str(root / "openclaw"),
        "GEMINI_CLI_HOME": str(root / "gemini"),
        "T3CODE_HOME": str(root / "t3"),
        "COPILOT_HOME": str(root / "copilot"),
        "PI_CODING_AGENT_DIR": str(root / "pi"),
        "QWEN_HOME": str(root / "qwen"),
        "FACTORY_HOME_OVERRIDE": str(root / "factory"),
        "OPENHANDS_PERSISTENCE_DIR": str(root / "openhands"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CACHE_HOME": str(root / "cache"),  # asr stats keeps its cache here, never in the real home
    }


#: One golden case per agent (with usage where the agent records any), and where its input goes.
EVERY_AGENT = {
    "codex": ("codex/30-usage-follows-the-response", "sessions/2026/05/11/rollout-2026-05-11T08-27-17-demo.jsonl"),
    "claude-code": ("claude-code/subagent-folder", "projects/-work-app/5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04.jsonl"),
    "openclaw": ("openclaw/usage-normalized", "agents/main/sessions/3d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a.jsonl"),
    "gemini-cli": ("gemini-cli/jsonl-tool-calls", ".gemini/tmp/app/chats/session-2026-03-02T10-00-demo1234.jsonl"),
    "t3code": ("t3code/v1-tool-calls", "userdata/state.sqlite"),
    "cline": ("cline/native-tools-task-folder", "Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1760000000000"),
    "opencode": ("opencode/sqlite-turn-tools-usage", "opencode/opencode.db"),
    "copilot-cli": ("copilot-cli/reasoning-three-places", "session-state/demo-session/events.jsonl"),
    "cursor": ("cursor/global-2025-bubbles-tools", "Cursor/User/globalStorage/state.vscdb"),
    "pi": (
        "pi/tools-bash-skill",
        "sessions/--work-demo--/2026-06-01T11-00-00-000Z_019e0000-0000-7000-8000-000000000002.jsonl",
    ),
    "qwen-code": (
        "qwen-code/tools-commands-usage",
        "projects/-work-demo/chats/7c1e0000-0000-4000-8000-00000000000a.jsonl",
    ),
    "droid": (
        "droid/tools-reminders-settings",
        ".factory/sessions/-work-acme-app/5b1f0c2e-8a7d-4e3b-9c61-2f4a8d0e7b13.jsonl",
    ),
    "openhands": (
        "openhands/v1-tools-condensation-usage",
        "conversations/7c1e000000004000800000000000000a/base_state.json",
    ),
}

_BASES = {
    "codex": "CODEX_HOME",
    "claude-code": "CLAUDE_CONFIG_DIR",
    "openclaw": "OPENCLAW_STATE_DIR",
    "gemini-cli": "GEMINI_CLI_HOME",
    "t3code": "T3CODE_HOME",
    "cline": "XDG_CONFIG_HOME",
    "opencode": "XDG_DATA_HOME",
    "copilot-cli": "COPILOT_HOME",
    "cursor": "XDG_CONFIG_HOME",
    "pi": "PI_CODING_AGENT_DIR",
    "qwen-code": "QWEN_HOME",
    "droid": "FACTORY_HOME_OVERRIDE",
    "openhands": "OPENHANDS_PERSISTENCE_DIR",
}


def plant_every_agent(env: dict[str, str], agents: list[str] | None = None) -> dict[str, Path]:
    """Each agent's golden input in its relocated home; returns the planted files."""
    planted: dict[str, Path] = {}
    for agent, (case, where) in EVERY_AGENT.items():
        if agents is not None and agent not in agents:
            continue
        folder = GOLDEN / case
        target = Path(env[_BASES[agent]]) / where
        target.parent.mkdir(parents=True, exist_ok=True)
        if (folder / "input.sql").exists():
            build_sqlite(folder / "input.sql", target)
        elif agent == "cline":  # a task folder: the timeline and the api history beside it
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "input.json", target / "ui_messages.json")
            shutil.copy(folder / "api_conversation_history.json", target / "api_conversation_history.json")
            target = target / "ui_messages.json"
        elif agent == "openhands":  # a conversation folder: the state file and its events/
            shutil.copy(folder / "input.json", target)
            shutil.copytree(folder / "events", target.parent / "events")
        else:
            shutil.copy(folder / "input.jsonl", target)
            if (folder / "input").is_dir():  # Claude Code's <session>/subagents/ folder
                shutil.copytree(folder / "input", target.with_suffix(""))
        planted[agent] = target
    return planted


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def codex_rollout(
    home: Path,
    session_id: str,
    turns: list[dict[str, Any]],
    *,
    cwd: str = "/work/app",
    model: str = "gpt-5",
) -> Path:
    """A Codex rollout under ``home/sessions``: per turn a prompt at ``at``, a reply a few
    seconds later and its token count (``input`` including ``cached``, ``output`` including
    ``reasoning``), optionally a shell call with its ``exit`` code; ``model`` may change per turn."""
    start: datetime = turns[0]["at"]
    stamp = start.strftime("%Y-%m-%dT%H-%M-%S")
    path = home / "sessions" / start.strftime("%Y/%m/%d") / f"rollout-{stamp}-{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = []

    def line(at: datetime, kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": iso(at), "type": kind, "payload": payload})

    meta = {
        "id": session_id,
        "timestamp": iso(start),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.125.0",
    }
    line(start, "session_meta", meta)
    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0}
    for number, turn in enumerate(turns):
        at: datetime = turn["at"]
        turn_id = f"turn-{session_id}-{number}"
        line(at, "turn_context", {"turn_id": turn_id, "cwd": cwd, "model": turn.get("model", model)})
        line(at, "event_msg", {"type": "task_started", "turn_id": turn_id})
        text = turn.get("prompt", f"step {number}")
        line(
            at, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )
        line(at, "event_msg", {"type": "user_message", "message": text, "images": []})
        reply = datetime.fromtimestamp(at.timestamp() + turn.get("after", 5), UTC)
        if "exit" in turn:
            call = f"call_{number}"
            arguments = orjson.dumps({"cmd": "make test"}).decode()
            line(
                reply,
                "response_item",
                {"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": call},
            )
            output = f"Process exited with code {turn['exit']}\nOutput:\nok\n"
            line(reply, "response_item", {"type": "function_call_output", "call_id": call, "output": output})
        line(
            reply,
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
        )
        last = {
            "input_tokens": turn["input"],
            "cached_input_tokens": turn.get("cached", 0),
            "output_tokens": turn["output"],
            "reasoning_output_tokens": turn.get("reasoning", 0),
        }
        for key, value in last.items():
            totals[key] += value
        usage = {
            "total_token_usage": {**totals, "total_tokens": totals["input_tokens"] + totals["output_tokens"]},
            "last_token_usage": {**last, "total_tokens": last["input_tokens"] + last["output_tokens"]},
            "model_context_window": 272000,
        }
        line(reply, "event_msg", {"type": "token_count", "info": usage, "rate_limits": None})
        line(reply, "event_msg", {"type": "task_complete", "turn_id": turn_id, "last_agent_message": "done"})
    path.write_bytes(b"".join(orjson.dumps(item) + b"\n" for item in lines))
    return path


def plant_shared_samples(env: dict[str, str], samples: Path) -> dict[str, list[Path]]:
    """The shared samples of every agent that has session files among them, each where its
    agent keeps sessions; the agents with none (T3 Code keeps only its schema there, OpenCode
    and Copilot CLI nothing) get their golden input. Returns the session files per agent."""
    planted: dict[str, list[Path]] = {}

    def copy(source: Path, target: Path) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
        return target

    claude = Path(env["CLAUDE_CONFIG_DIR"]) / "projects"
    for transcript in sorted((samples / "claude-code").glob("*.jsonl")):
        planted.setdefault("claude-code", []).append(copy(transcript, claude / transcript.stem / transcript.name))
        if (samples / "claude-code" / transcript.stem).is_dir():
            copy(samples / "claude-code" / transcript.stem, claude / transcript.stem / transcript.stem)
    for agent, base, where, pattern in (
        ("codex", "CODEX_HOME", "sessions/samples", "*.jsonl"),
        ("openclaw", "OPENCLAW_STATE_DIR", "agents/main/sessions", "*"),
        ("gemini-cli", "GEMINI_CLI_HOME", ".gemini/tmp/samples/chats", "*.json*"),
        ("pi", "PI_CODING_AGENT_DIR", "sessions/--samples--", "*.jsonl"),
        ("qwen-code", "QWEN_HOME", "projects/-samples/chats", "*.jsonl"),
    ):
        for source in sorted((samples / agent).glob(pattern)):
            if source.name != "SOURCES.md":
                copy(source, Path(env[base]) / where / source.name)
                planted.setdefault(agent, []).append(Path(env[base]) / where / source.name)
    tasks = Path(env["XDG_CONFIG_HOME"]) / "Code/User/globalStorage/saoudrizwan.claude-dev/tasks"
    for number, source in enumerate(sorted((samples / "cline").glob("*.json"))):
        planted.setdefault("cline", []).append(copy(source, tasks / f"17600000000{number:02d}" / "ui_messages.json"))
    openhands = Path(env["OPENHANDS_PERSISTENCE_DIR"])
    for sample in sorted(p for p in (samples / "openhands").glob("*") if p.is_dir()):
        if (sample / "events").is_dir():  # a V1 CLI trajectory: the events folder alone
            folder = copy(sample, openhands / "conversations" / sample.name)
            planted.setdefault("openhands", []).append(min((folder / "events").glob("event-*.json")))
            continue
        for conversation in sorted(p for p in sample.iterdir() if p.is_dir()):
            v1 = (conversation / "base_state.json").is_file()
            folder = copy(conversation, openhands / ("conversations" if v1 else "sessions") / conversation.name)
            planted.setdefault("openhands", []).append(folder / ("base_state.json" if v1 else "metadata.json"))
    missing = [agent for agent in EVERY_AGENT if agent not in planted]
    for agent, path in plant_every_agent(env, missing).items():
        planted[agent] = [path]
    for path in Path(env["HOME"]).parent.rglob("*"):  # the samples are read-only; the copies need not be
        path.chmod(0o755 if path.is_dir() else 0o644)
    return planted
