"""How fast and how lean conversion is, next to what orjson alone costs on the same bytes.

For each agent, builds a large input from a real sample (the shared samples in
../shared/samples/<agent>/, or a golden input under golden/<agent>/ when they are absent) by
repeating its lines with fresh ids and shifted timestamps until a target size, then times,
in this one process and side by side:

- floor:    ``orjson.loads`` of every native line (read from the file) plus ``orjson.dumps``
            of every record we write;
- convert:  the library path of ``asr convert``: ``StreamWriter`` over
            ``Conversion(path, agent, as_dicts=True)`` to a file;
- validate: ``asr_adapters.validate`` of the written stream;

and reports convert/floor and validate/floor (CPU time of this process,
``time.process_time``). Peak RSS of a conversion is measured in a child process (``os.wait4``),
next to the input's largest line and a child that only imports the adapter (the fixed
overhead). ``--memory`` adds the RSS of converting 100 MB and 1 GB inputs. The batch part
converts 1000 small sessions (golden inputs with fresh ids, spread over agents) with
``asr batch --jobs 1`` and ``--jobs 2`` (wall time). Built inputs are cached under
bench-data/, keyed by the sample's hash and the parameters; nothing random is used, so two
runs build the same bytes. Timings are reported here, never asserted in tests.

    python scripts/bench.py                      # 200 MB per agent, RSS, batch of 1000
    python scripts/bench.py --quick              # a small smoke run (2 MB, 100 sessions)
    python scripts/bench.py --size-mb 20 --agents codex,openclaw --no-batch --json
    python scripts/bench.py --memory             # also 100 MB and 1 GB RSS runs (slow)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's asr_adapters, installed or not
#: the shared samples: $ASR_SAMPLES (as tests/golden_support.py reads them), else ../shared/samples
SAMPLES = Path(os.environ.get("ASR_SAMPLES") or ROOT.parent / "shared" / "samples")
GOLDEN = ROOT / "golden"
DATA = ROOT / "bench-data"
GENERATOR = 1  # bump when the way inputs are built changes: old cache entries are then unused
AGENTS = ("codex", "claude-code", "openclaw", "gemini-cli", "t3code", "opencode", "cline", "copilot-cli")
MB = 1 << 20

# The sample each agent's input is built from: the shared sample of the agent's largest kind
# where there is one, else a golden input (so a clone without the shared samples still runs).
# Codex: a Codex Desktop rollout (the kind that reaches several GB). Claude Code: the current
# CLI's line zoo (attachments, tasks, agent spawns). OpenClaw: the largest current-format
# session. Gemini CLI: its JSONL era exists only as constructed golden inputs. T3 Code: a
# SQLite database; its golden V1 thread is repeated as event rows. Cline: a task folder (two
# JSON documents, read whole by design), its golden native-tools task repeated in both files.
# Copilot CLI: no whole real file is stored; the golden case reduced from a real 1.0.55 file
# (a subagent, hooks, reasoning), so each repetition adds a subagent stream.
SHARED: dict[str, str] = {
    "codex": "v0.104-desktop-2026-02-sanitized-remote-compaction-images-mcp.jsonl",
    "claude-code": "cc-2.1.114-agent-team-taskcreate-attachments-redacted-thinking.jsonl",
    "openclaw": "feishu-dm-system-notice-aborted-2026-02.jsonl",
}
GOLDEN_CASE: dict[str, str] = {
    "codex": "10-tool-calls-every-kind",
    "claude-code": "fold-tool-calls",
    "openclaw": "thinking-tools-status",
    "gemini-cli": "jsonl-tool-calls",
    "t3code": "v1-activities",
    "opencode": "sqlite-turn-tools-usage",
    "cline": "native-tools-task-folder",
    "copilot-cli": "subagent-agentid-reasoning-hooks",
    "pi": "tools-bash-skill",
    "qwen-code": "tools-commands-usage",
}
#: the task id of the built Cline task folder (``tasks/<id>/``)
CLINE_TASK = "1761000000000"

# Id-valued keys (``"id"``, ``"uuid"``, ``"...Id"``, ``"..._id"``, ``"...ID"``, ``"...Uuid"``)
# with a string value, ISO timestamps as whole string values, epoch milliseconds under time keys.
_SLOTS = re.compile(
    rb'"(id|uuid|[A-Za-z_]*(?:Id|_id|ID|Uuid|UUID|_uuid))":"([^"\\]*)"'
    rb'|"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?)(Z|[+-]\d\d:\d\d)"'
    rb'|"(timestamp|ts|createdAt|updatedAt|startTime|endTime)":(1\d{12})(?=[,}\]])'
    rb'|"(parentId|parentUuid)":null'
)
# Ids that name the session, the model or the thread: the same in every repetition of a session.
SESSION_KEYS = frozenset(
    {"sessionId", "session_id", "sessionID", "modelId", "model_id", "limit_id", "projectHash", "threadId", "projectId"}
)
# Where each agent's tree hangs a line on an earlier one (a repetition's roots are hung on the
# previous repetition's last line, so the tree stays one path).
TREE_KEY = {"openclaw": "id", "claude-code": "uuid", "pi": "id", "qwen-code": "uuid"}
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]{6,}")


def fresh_id(value: str, rep: int) -> str:
    """The id ``value`` takes in repetition ``rep`` (0: itself); keeps a UUID's or a hex id's shape."""
    if rep == 0 or not value:
        return value
    if _UUID.fullmatch(value):
        tail = (int(value[24:], 16) + rep * 0x9E3779B97F4B) % (1 << 48)
        return f"{value[:24]}{tail:012x}"
    if _HEX.fullmatch(value):
        width = len(value)
        return f"{(int(value, 16) + rep * 0x9E3779B1) % (16**width):0{width}x}"
    return f"{value}-{rep}"


@dataclass
class _Slot:
    kind: str  # "id", "ts", "ms", "root"
    key: bytes
    value: bytes
    moment: datetime | None = None
    suffix: bytes = b""


class Template:
    """A sample's lines cut into literal bytes and slots (ids, timestamps) that change per repetition."""

    def __init__(self, lines: list[bytes], *, keep: frozenset[str] = SESSION_KEYS, tree_key: str | None = None):
        self.keep = keep
        self.lines: list[list[bytes | _Slot]] = []
        moments: list[datetime] = []
        last_tree_id: bytes | None = None
        for line in lines:
            pieces: list[bytes | _Slot] = []
            at = 0
            for match in _SLOTS.finditer(line):
                start, end = match.span()
                if match.group(1) is not None:
                    key = match.group(1)
                    if key.decode() in keep:
                        continue
                    slot = _Slot("id", key, match.group(2))
                    if tree_key is not None and key.decode() == tree_key:
                        last_tree_id = match.group(2)
                elif match.group(3) is not None:
                    try:
                        moment = datetime.fromisoformat(match.group(3).decode())
                    except ValueError:
                        continue
                    slot = _Slot("ts", b"", match.group(3), moment, match.group(4))
                    moments.append(moment)
                elif match.group(5) is not None:
                    slot = _Slot("ms", match.group(5), match.group(6))
                else:
                    if tree_key is None:
                        continue
                    slot = _Slot("root", match.group(7), b"")
                pieces.append(line[at:start])
                pieces.append(slot)
                at = end
            pieces.append(line[at:])
            self.lines.append(pieces)
        self.last_tree_id = last_tree_id
        span = (max(moments) - min(moments)).total_seconds() if moments else 0.0
        self.period = math.ceil(span) + 60  # seconds between two repetitions' starts

    def render(self, rep: int) -> Iterator[bytes]:
        """The lines of repetition ``rep``, each ending in a newline."""
        ids: dict[bytes, bytes] = {}
        shift = timedelta(seconds=rep * self.period)
        for pieces in self.lines:
            out: list[bytes] = []
            for piece in pieces:
                if type(piece) is bytes:
                    out.append(piece)
                    continue
                assert isinstance(piece, _Slot)
                if piece.kind == "id":
                    new = ids.get(piece.value)
                    if new is None:
                        new = ids[piece.value] = fresh_id(piece.value.decode(), rep).encode()
                    out.append(b'"%s":"%s"' % (piece.key, new))
                elif piece.kind == "ts":
                    assert piece.moment is not None
                    moment = piece.moment + shift
                    text = moment.strftime("%Y-%m-%dT%H:%M:%S").encode()
                    fraction = piece.value[19:]
                    out.append(b'"%s%s%s"' % (text, fraction, piece.suffix))
                elif piece.kind == "ms":
                    out.append(b'"%s":%d' % (piece.key, int(piece.value) + rep * self.period * 1000))
                elif rep == 0 or self.last_tree_id is None:  # a root
                    out.append(b'"%s":null' % piece.key)
                else:
                    parent = fresh_id(self.last_tree_id.decode(), rep - 1).encode()
                    out.append(b'"%s":"%s"' % (piece.key, parent))
            line = b"".join(out)
            yield line if line.endswith(b"\n") else line + b"\n"


def header_count(agent: str, lines: list[bytes]) -> int:
    """How many leading lines are the session's header, written once and not repeated."""
    count = 0
    for line in lines:
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if not isinstance(item, dict):
            break
        codex = agent == "codex" and item.get("type") == "session_meta"
        openclaw = agent in ("openclaw", "pi") and item.get("type") == "session" and count == 0
        gemini = agent == "gemini-cli" and count == 0 and "sessionId" in item and "type" not in item
        copilot = agent == "copilot-cli" and count == 0 and item.get("type") == "session.start"
        if codex or openclaw or gemini or copilot:
            count += 1
        else:
            break
    return count


# -- samples and built inputs ------------------------------------------------------------------


@dataclass
class Sample:
    agent: str
    path: Path
    origin: str  # "shared" or "golden"

    @property
    def name(self) -> str:
        return self.path.name if self.origin == "shared" else f"golden/{self.agent}/{self.path.parent.name}"


def find_sample(agent: str, overrides: dict[str, Path] | None = None) -> Sample | None:
    """The sample an agent's input is built from (an override, the shared sample, a golden input)."""
    if overrides and agent in overrides:
        return Sample(agent, overrides[agent], "given")
    shared = SHARED.get(agent)
    if shared and (SAMPLES / agent / shared).is_file():
        return Sample(agent, SAMPLES / agent / shared, "shared")
    case = GOLDEN / agent / GOLDEN_CASE[agent]
    for name in ("input.jsonl", "input.sql", "input.json"):
        if (case / name).is_file():
            return Sample(agent, case / name, "golden")
    return None


@dataclass
class Built:
    path: Path
    bytes: int
    lines: int  # native lines (rows for a database)
    largest_line: int
    reps: int
    seconds: float = 0.0  # to build; 0 when it came from the cache


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def build_input(sample: Sample, size: int, folder: Path = DATA) -> Built:
    """A native input of at least ``size`` bytes built from ``sample``; cached in ``folder``."""
    suffix = ".sqlite" if sample.path.suffix == ".sql" else ".jsonl"
    stem = f"{sample.agent}-{_digest(sample.path)}-{size}-g{GENERATOR}"
    task_folder = sample.path.suffix == ".json"  # Cline: a task folder, its ui timeline the entry
    path = folder / stem / "tasks" / CLINE_TASK / "ui_messages.json" if task_folder else folder / (stem + suffix)
    meta = folder / (stem + ".meta.json")
    if path.is_file() and meta.is_file():
        return Built(path=path, **orjson.loads(meta.read_bytes()))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / stem if task_folder else path
    partial = target.with_name(target.name + ".partial")
    _remove(partial)
    start = time.perf_counter()
    try:
        if suffix == ".sqlite" and sample.agent == "opencode":
            lines, largest, reps = _build_opencode(sample.path, size, partial)
        elif task_folder:
            lines, largest, reps = _build_cline(sample.path, size, partial)
        elif suffix == ".sqlite":
            lines, largest, reps = _build_t3code(sample.path, size, partial)
        else:
            lines, largest, reps = _build_jsonl(sample, size, partial)
    except BaseException:
        _remove(partial)
        raise
    os.replace(partial, target)
    on_disk = sum(f.stat().st_size for f in path.parent.iterdir()) if task_folder else path.stat().st_size
    built = Built(path, on_disk, lines, largest, reps, time.perf_counter() - start)
    meta.write_bytes(orjson.dumps({k: v for k, v in asdict(built).items() if k not in ("path", "seconds")}))
    return built


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


_HISTORY_INDEX = re.compile(rb'"conversationHistoryIndex":(\d+)')


def _moved(shift: int) -> Callable[[re.Match[bytes]], bytes]:
    return lambda match: b'"conversationHistoryIndex":%d' % (int(match[1]) + shift)


def _build_cline(ui_file: Path, size: int, root: Path) -> tuple[int, int, int]:
    """A Cline task folder under ``root``: the golden task's ui rows and api messages repeated in
    both files (fresh ids, later ``ts``, each repetition's ``conversationHistoryIndex`` moved
    past the api messages before it), until the two files hold ``size`` bytes together.
    Returns (rows + messages, the larger file's size: Cline files are read whole, so the
    largest item is a whole file, and repetitions)."""
    ui = [orjson.dumps(row) for row in orjson.loads(ui_file.read_bytes())]
    api_file = ui_file.with_name("api_conversation_history.json")
    api = [orjson.dumps(message) for message in orjson.loads(api_file.read_bytes())]
    ui_template, api_template = Template(ui), Template(api)
    period = max(ui_template.period, api_template.period)
    ui_template.period = api_template.period = period  # both files shift together
    task = root / "tasks" / CLINE_TASK
    task.mkdir(parents=True)
    sizes = [0, 0]
    reps = 0
    with open(task / "ui_messages.json", "wb") as ui_out, open(task / "api_conversation_history.json", "wb") as api_out:
        for out in (ui_out, api_out):
            out.write(b"[")
        while sum(sizes) < size:
            shift = reps * len(api)
            for index, (out, template) in enumerate(((ui_out, ui_template), (api_out, api_template))):
                for line in template.render(reps):
                    line = line.rstrip(b"\n")
                    if index == 0 and shift:
                        line = _HISTORY_INDEX.sub(_moved(shift), line)
                    text = (b",\n" if sizes[index] else b"") + line
                    out.write(text)
                    sizes[index] += len(text)
            reps += 1
        for out in (ui_out, api_out):
            out.write(b"]\n")
    return reps * (len(ui) + len(api)), max(sizes) + 2, reps


def _build_jsonl(sample: Sample, size: int, dest: Path) -> tuple[int, int, int]:
    raw = sample.path.read_bytes().splitlines()
    raw = [line for line in raw if line.strip()]
    head = header_count(sample.agent, raw)
    if len(raw) <= head:
        raise ValueError(f"{sample.path}: no lines to repeat after the header")
    template = Template(raw[head:], tree_key=TREE_KEY.get(sample.agent))
    written = lines = largest = reps = 0
    with open(dest, "wb") as out:
        for line in raw[:head]:
            out.write(line + b"\n")
            written += len(line) + 1
            lines += 1
            largest = max(largest, len(line) + 1)
        while written < size:
            for line in template.render(reps):
                out.write(line)
                written += len(line)
                lines += 1
                largest = max(largest, len(line))
            reps += 1
    return lines, largest, reps


_V1_COLUMNS = (
    "event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, "
    "causation_event_id, correlation_id, actor_kind, payload_json, metadata_json"
)


def _build_t3code(sql: Path, size: int, dest: Path) -> tuple[int, int, int]:
    """The golden database with its thread's events after the first repeated (fresh ids, later times)."""
    sys.path.insert(0, str(ROOT / "tests"))  # golden inputs share their schema through includes
    from golden_support import sql_script

    script = sql_script(sql)
    connection = sqlite3.connect(dest)
    try:
        connection.executescript(script)
        rows = connection.execute(f"SELECT {_V1_COLUMNS} FROM orchestration_events ORDER BY sequence").fetchall()
        if not rows:
            raise ValueError(f"{sql}: no orchestration_events rows to repeat (V1 threads only)")
        first, body = rows[:1], rows[1:]
        if not body:
            raise ValueError(f"{sql}: a V1 thread with events after thread.created is needed (V2 is not built)")
        # One template over the rows' id and time columns and both JSON columns, a line per row.
        lines = []
        for row in body:
            cells = {
                "event_id": row[0],
                "occurred_at": row[5],
                "command_id": row[6],
                "causation_event_id": row[7],
                "correlation_id": row[8],
            }
            lines.append(orjson.dumps(cells) + b"\t" + row[10].encode() + b"\t" + row[11].encode())
        template = Template(lines)
        version = max(row[3] for row in rows)
        written = sum(len(row[10]) + len(row[11]) for row in rows)
        largest = max(len(row[10]) + len(row[11]) for row in rows)
        count = len(rows)
        reps = 1
        insert = f"INSERT INTO orchestration_events ({_V1_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
        while written < size:
            batch = []
            for row, line in zip(body, template.render(reps), strict=True):
                cells_text, payload, metadata = line.rstrip(b"\n").split(b"\t")
                cells = orjson.loads(cells_text)
                version += 1
                batch.append(
                    (
                        cells["event_id"],
                        row[1],
                        row[2],
                        version,
                        row[4],
                        cells["occurred_at"],
                        cells["command_id"],
                        cells["causation_event_id"],
                        cells["correlation_id"],
                        row[9],
                        payload.decode(),
                        metadata.decode(),
                    )
                )
                written += len(payload) + len(metadata)
                largest = max(largest, len(payload) + len(metadata))
            connection.executemany(insert, batch)
            count += len(batch)
            reps += 1
        connection.commit()
        del first
    finally:
        connection.close()
    return count, largest, reps


def _build_opencode(sql: Path, size: int, dest: Path) -> tuple[int, int, int]:
    """The golden OpenCode database with its one session's turn repeated: every message and part
    again with fresh ids (message, part and call ids suffixed, ``parentID`` following), later
    times. One ever-longer session, so memory is tested against the largest message, not the
    session."""
    sys.path.insert(0, str(ROOT / "tests"))
    from golden_support import sql_script

    connection = sqlite3.connect(dest)
    try:
        connection.executescript(sql_script(sql))
        messages = connection.execute(
            "SELECT id, session_id, time_created, data FROM message ORDER BY time_created, id"
        ).fetchall()
        parts = connection.execute(
            "SELECT id, message_id, session_id, time_created, data FROM part ORDER BY id"
        ).fetchall()
        if not messages:
            raise ValueError(f"{sql}: no message rows to repeat")
        ids = [m[0] for m in messages] + [p[0] for p in parts]
        calls = sorted(set(re.findall(r'"callID":"([^"]+)"', " ".join(p[4] for p in parts))))
        span = max(m[2] for m in messages) - min(m[2] for m in messages) + 1000
        written = sum(len(m[3]) for m in messages) + sum(len(p[4]) for p in parts)
        largest = max([len(m[3]) for m in messages] + [len(p[4]) for p in parts])
        count, reps = len(messages) + len(parts), 1
        while written < size:
            tag = f"R{reps:07d}"
            fresh = {old: old + tag for old in ids + calls}
            pattern = re.compile("|".join(re.escape(k) for k in sorted(fresh, key=len, reverse=True)))

            def renamed(text: str, fresh: dict[str, str] = fresh, pattern: re.Pattern[str] = pattern) -> str:
                return pattern.sub(lambda found: fresh[found.group(0)], text)

            shift = reps * span
            connection.executemany(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                [(fresh[m[0]], m[1], m[2] + shift, m[2] + shift, renamed(m[3])) for m in messages],
            )
            connection.executemany(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                [(fresh[p[0]], fresh[p[1]], p[2], p[3] + shift, p[3] + shift, renamed(p[4])) for p in parts],
            )
            written += sum(len(m[3]) for m in messages) + sum(len(p[4]) for p in parts)
            count += len(messages) + len(parts)
            reps += 1
        connection.commit()
    finally:
        connection.close()
    return count, largest, reps


# -- batch input: many small sessions ------------------------------------------------------------


#: real sessions of the shared samples small enough for the batch of small sessions (bytes)
SMALL_REAL = 40 << 10


def _batch_cases() -> list[tuple[str, Path]]:
    """Golden single-file JSONL inputs (no support files beside them), per agent, in name order,
    then the real single-file JSONL sessions of the shared samples under ``SMALL_REAL`` bytes
    (when they are there: Claude Code and OpenClaw have some)."""
    cases = []
    agents = ("codex", "claude-code", "openclaw", "gemini-cli", "copilot-cli")
    for agent in agents:
        for folder in sorted((GOLDEN / agent).glob("*/")):
            names = {p.name for p in folder.iterdir()}
            extra = {n for n in names if n != "README.md" and not n.startswith("expected")}
            if extra == {"input.jsonl"}:
                cases.append((agent, folder / "input.jsonl"))
    for agent in agents:
        for path in sorted((SAMPLES / agent).glob("*.jsonl")) if (SAMPLES / agent).is_dir() else []:
            own_folder = path.with_suffix("").is_dir()  # subagents beside it: not a single file
            if path.stat().st_size <= SMALL_REAL and not own_folder and not path.name.startswith(("aux-", "catalog-")):
                cases.append((agent, path))
    return cases


def _session_name(agent: str, rep: int, text: bytes) -> str:
    """A file name the agent's discovery takes for a session of its own."""
    match = _UUID.search(text.decode("utf-8", "replace"))
    token = match.group(0) if match else f"00000000-0000-4000-8000-{rep:012x}"
    if agent == "codex":
        return f"rollout-2026-01-01T00-00-00-{token}.jsonl"
    if agent == "gemini-cli":
        return f"session-2026-01-01T00-00-{token[:8]}.jsonl"
    return f"{token}.jsonl"


def build_batch(count: int, folder: Path = DATA) -> tuple[Path, int]:
    """``count`` small sessions: golden inputs with fresh ids (session ids too), cycled over agents."""
    cases = _batch_cases()
    key = hashlib.sha256(b"".join(path.read_bytes() for _, path in cases)).hexdigest()[:16]
    root = folder / f"batch-{count}-{key}-g{GENERATOR}"
    done = root / ".complete"
    if done.is_file():
        return root, int(done.read_text())
    shutil.rmtree(root, ignore_errors=True)
    templates = [
        (agent, Template([ln for ln in path.read_bytes().splitlines() if ln.strip()], keep=frozenset()))
        for agent, path in cases
    ]
    total = 0
    for n in range(count):
        agent, template = templates[n % len(templates)]
        rep = n // len(templates) + 1  # never 0: every copy has ids of its own
        text = b"".join(template.render(rep))
        target = root / agent / f"{n:04d}" / _session_name(agent, n, text)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
        total += len(text)
    done.write_text(str(total))
    return root, total


# -- measurements ---------------------------------------------------------------------------------


@dataclass
class Row:
    agent: str
    sample: str
    input_mb: float = 0.0
    lines: int = 0
    largest_line_kb: float = 0.0
    records: int = 0
    build_s: float = 0.0
    floor_cpu_s: float = 0.0  # loads of native lines + dumps of our records (process CPU)
    floor_loads_s: float = 0.0
    floor_dumps_s: float = 0.0
    convert_cpu_s: float = 0.0
    convert_wall_s: float = 0.0
    validate_cpu_s: float = 0.0
    validate_wall_s: float = 0.0
    parse_out_s: float = 0.0  # orjson.loads of every line we wrote (what validating cannot avoid)
    convert_ratio: float = 0.0
    validate_ratio: float = 0.0
    validate_parse_ratio: float = 0.0  # validate / parse_out: against parsing the stream it checks
    findings: int = 0
    duplicates: int = 0
    unreadable: int = 0
    rss_mb: float = 0.0
    base_rss_mb: float = 0.0
    rss_lines: float = 0.0  # (rss - base) / largest line
    note: str = ""


@dataclass
class MemoryRow:
    agent: str
    input_mb: float
    largest_line_kb: float
    rss_mb: float
    base_rss_mb: float
    rss_lines: float
    convert_wall_s: float
    build_s: float


@dataclass
class Report:
    commit: str
    machine: str
    clocks: dict[str, str]
    rows: list[Row] = field(default_factory=list)
    memory: list[MemoryRow] = field(default_factory=list)
    batch: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    export: list[dict[str, Any]] = field(default_factory=list)  # --export (scripts/bench_export.py)


def _cpu(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Process CPU seconds, wall seconds and the result of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def floor_loads(path: Path, agent: str) -> float:
    """CPU seconds of reading the input and ``orjson.loads`` of every native line (JSON column for a DB)."""
    loads = orjson.loads
    start = time.process_time()
    if agent == "opencode":
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            for table in ("message", "part"):
                for (data,) in connection.execute(f"SELECT data FROM {table}"):
                    loads(data)
        finally:
            connection.close()
    elif agent == "cline":  # two JSON documents, each parsed whole (as the adapter must)
        for name in ("ui_messages.json", "api_conversation_history.json"):
            loads(path.with_name(name).read_bytes())
    elif agent == "t3code":
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            query = "SELECT payload_json, metadata_json FROM orchestration_events ORDER BY sequence"
            for payload, metadata in connection.execute(query):
                loads(payload)
                loads(metadata)
        finally:
            connection.close()
    else:
        with open(path, "rb") as handle:
            for line in handle:
                with contextlib.suppress(orjson.JSONDecodeError):
                    loads(line)
    return time.process_time() - start


def floor_dumps(stream: Path, chunk: int = 20_000) -> tuple[float, float]:
    """CPU seconds of ``orjson.dumps`` of every record in ``stream`` (parsed untimed, a chunk at a time),
    and of ``orjson.loads`` of every line of it."""
    # No cyclic GC passes over the chunk of parsed records held here (a converter holds none).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _dump_chunks(stream, chunk)
    finally:
        if collecting:
            gc.enable()


def _dump_chunks(stream: Path, chunk: int) -> tuple[float, float]:
    dumps, loads, option = orjson.dumps, orjson.loads, orjson.OPT_APPEND_NEWLINE
    dumping = parsing = 0.0
    with open(stream, "rb") as handle:
        while True:
            lines = handle.readlines(chunk * 512)
            if not lines:
                break
            start = time.process_time()
            records = [loads(line) for line in lines]
            middle = time.process_time()
            for record in records:
                dumps(record, option=option)
            dumping += time.process_time() - middle
            parsing += middle - start
    return dumping, parsing


def convert_file(path: Path, agent: str, dest: Path | str) -> tuple[int, dict[str, int]]:
    """What ``asr convert PATH > DEST`` does: the main stream written, the others drained.

    A database holds threads and no main stream: its streams are all written (the built
    T3 Code database holds one thread, so this is ``asr convert --thread``).
    """
    from asr_adapters.convert import Conversion
    from asr_adapters.stream.writer import StreamWriter

    conversion = Conversion(path, agent, as_dicts=True)
    records = 0
    with open(dest, "wb") as out:
        for stream in conversion.streams():
            if stream.main or agent in ("t3code", "opencode"):
                records += StreamWriter(out).write_all(stream.records)
            else:
                for _ in stream.records:
                    pass
    return records, conversion.accounting.as_dict()


def child_rss(path: Path | None, agent: str) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of a child converting ``path`` to /dev/null (None: imports only).

    The child reports its own high-water mark (``VmHWM``): on Linux a child's ``ru_maxrss``
    starts from the parent's RSS at the fork, which would hide a small child under a big parent.
    """
    args = [sys.executable, str(Path(__file__).resolve()), "--child-convert", agent, str(path or "-")]
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.PIPE)
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"child conversion of {path} failed with status {process.returncode}")
    peak_kb = int(output) if output.strip() else usage.ru_maxrss
    return peak_kb / 1024, time.perf_counter() - start


def _peak_rss_kb() -> int:
    """This process's peak RSS in KB (``VmHWM``; ``ru_maxrss`` where /proc is absent)."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child_convert(agent: str, path: str) -> None:
    from asr_adapters import registry

    registry.get(agent)
    if path != "-":
        convert_file(Path(path), agent, os.devnull)
    sys.stdout.write(f"{_peak_rss_kb()}\n")


def _best(times: int, fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """``_cpu(fn)`` of the run with the least CPU time among ``times`` runs."""
    runs = [_cpu(fn) for _ in range(max(1, times))]
    return min(runs, key=lambda run: run[0])


def measure_agent(
    agent: str, sample: Sample, size: int, scratch: Path, log: Callable[[str], None], repeat: int = 1
) -> Row:
    from asr_adapters.validate import validate

    row = Row(agent, sample.name)
    log(f"{agent}: building {size / MB:.0f} MB from {sample.name}")
    built = build_input(sample, size)
    row.input_mb = built.bytes / MB
    row.lines = built.lines
    row.largest_line_kb = built.largest_line / 1024
    row.build_s = built.seconds
    out = scratch / f"{agent}.asr.jsonl"
    # Warm up on one repetition of the sample: imports, compiled patterns and caches are not timed.
    warm = build_input(sample, 1)
    convert_file(warm.path, agent, out)
    validate(out)
    log(f"{agent}: floor, convert, validate ({built.path.name})")
    row.floor_loads_s = _best(repeat, lambda: floor_loads(built.path, agent))[2]
    row.convert_cpu_s, row.convert_wall_s, (records, counts) = _best(
        repeat, lambda: convert_file(built.path, agent, out)
    )
    row.records = records
    row.duplicates = counts.get("duplicates", 0)
    row.unreadable = counts.get("unreadable", 0)
    row.floor_dumps_s, row.parse_out_s = min(floor_dumps(out) for _ in range(max(1, repeat)))
    row.floor_cpu_s = row.floor_loads_s + row.floor_dumps_s
    row.validate_cpu_s, row.validate_wall_s, findings = _best(repeat, lambda: validate(out))
    row.findings = len(findings)
    row.convert_ratio = row.convert_cpu_s / row.floor_cpu_s
    row.validate_ratio = row.validate_cpu_s / row.floor_cpu_s
    row.validate_parse_ratio = row.validate_cpu_s / row.parse_out_s if row.parse_out_s else 0.0
    out.unlink()
    log(f"{agent}: peak RSS in a child")
    row.base_rss_mb, _ = child_rss(None, agent)
    row.rss_mb, _ = child_rss(built.path, agent)
    row.rss_lines = max(0.0, row.rss_mb - row.base_rss_mb) * MB / built.largest_line
    return row


def measure_memory(agent: str, sample: Sample, size: int, log: Callable[[str], None]) -> MemoryRow:
    log(f"{agent}: building {size / MB:.0f} MB for the RSS run")
    built = build_input(sample, size)
    log(f"{agent}: converting {built.bytes / MB:.0f} MB in a child")
    base, _ = child_rss(None, agent)
    rss, wall = child_rss(built.path, agent)
    return MemoryRow(
        agent,
        built.bytes / MB,
        built.largest_line / 1024,
        rss,
        base,
        max(0.0, rss - base) * MB / built.largest_line,
        wall,
        built.seconds,
    )


def _asr_batch(source: Path, outdir: Path, jobs: int) -> tuple[float, float, int]:
    """Wall seconds, children's CPU seconds and exit status of ``asr batch SOURCE -o OUTDIR --jobs N --quiet``."""
    shutil.rmtree(outdir, ignore_errors=True)
    code = "from asr_adapters.cli import main; main()"
    args = [sys.executable, "-c", code, "batch", str(source), "-o", str(outdir), "--jobs", str(jobs), "--quiet"]
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def measure_batch(count: int, scratch: Path, log: Callable[[str], None]) -> dict[str, Any]:
    log(f"batch: building {count} sessions")
    source, total = build_batch(count)
    result: dict[str, Any] = {"sessions": count, "input_mb": total / MB}
    for jobs in (1, 2):
        log(f"batch: --jobs {jobs}")
        outdir = scratch / f"batch-jobs{jobs}"
        wall, cpu, status = _asr_batch(source, outdir, jobs)
        written = sum(1 for _ in outdir.rglob("*.asr.jsonl"))
        result[f"jobs{jobs}"] = {"wall_s": wall, "cpu_s": cpu, "exit": status, "streams": written}
        shutil.rmtree(outdir, ignore_errors=True)
    result["speedup"] = result["jobs1"]["wall_s"] / result["jobs2"]["wall_s"]
    return result


# -- report ---------------------------------------------------------------------------------------

CLOCKS = {
    "floor, convert, validate, parse(out)": "time.process_time() of this process (user + system CPU)",
    "convert wall, validate wall": "time.perf_counter()",
    "RSS": "ru_maxrss of a child process (os.wait4), MB",
    "batch": "time.perf_counter() around the asr batch child (wall); cpu: the child's and its workers' CPU",
    "memory runs": "wall time of the child conversion",
}


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", "asr_adapters"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (asr_adapters/ modified)" if dirty else "")


def _machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average {load} at start"


def print_table(report: Report) -> None:
    print(f"commit {report.commit}; {report.machine}")
    header = (
        f"{'agent':<12} {'MB':>6} {'lines':>8} {'max line':>9} {'records':>8} {'floor s':>8} {'convert s':>9} "
        f"{'validate s':>10} {'conv/floor':>10} {'val/floor':>9} {'val/parse':>9} "
        f"{'RSS MB':>7} {'base MB':>7} {'over/line':>9}"
    )
    print(header)
    for r in report.rows:
        if r.note:
            print(f"{r.agent:<12} {r.note}")
            continue
        print(
            f"{r.agent:<12} {r.input_mb:>6.1f} {r.lines:>8} {r.largest_line_kb:>7.1f}KB {r.records:>8} "
            f"{r.floor_cpu_s:>8.2f} {r.convert_cpu_s:>9.2f} {r.validate_cpu_s:>10.2f} {r.convert_ratio:>9.2f}x "
            f"{r.validate_ratio:>8.2f}x {r.validate_parse_ratio:>8.2f}x "
            f"{r.rss_mb:>7.1f} {r.base_rss_mb:>7.1f} {r.rss_lines:>9.1f}"
        )
    for r in report.rows:
        if r.findings or r.unreadable:
            print(f"{r.agent}: {r.findings} validator findings, {r.unreadable} unreadable native lines (see --json)")
    for m in report.memory:
        print(
            f"memory {m.agent:<12} {m.input_mb:>7.0f} MB, largest line {m.largest_line_kb:.1f} KB: "
            f"RSS {m.rss_mb:.0f} MB (base {m.base_rss_mb:.0f} MB, {m.rss_lines:.1f} largest lines over it), "
            f"convert {m.convert_wall_s:.0f} s, build {m.build_s:.0f} s"
        )
    b = report.batch
    if b:
        print(
            f"batch {b['sessions']} sessions ({b['input_mb']:.1f} MB): --jobs 1 {b['jobs1']['wall_s']:.1f} s, "
            f"--jobs 2 {b['jobs2']['wall_s']:.1f} s wall; jobs1/jobs2 {b['speedup']:.2f}x "
            f"(streams {b['jobs1']['streams']}/{b['jobs2']['streams']}, exit {b['jobs1']['exit']}/{b['jobs2']['exit']})"
        )
    if report.export:  # --export: asr export (ATIF, OTLP/JSON file) next to convert, same inputs
        import bench_export

        print("export: CPU seconds, best of --repeat; target export/convert <= 1.5x")
        bench_export.print_rows(report.export)
    print("targets: convert/floor <= 3x (codex, claude-code, openclaw, gemini-cli, ", end="")
    print("cline, copilot-cli, opencode); ", end="")
    print("validate/floor <= 2x; ", end="")
    print("jobs1/jobs2 >= 1.7x; RSS a fixed overhead plus a small multiple of the largest line")
    print(
        f"clocks: floor/convert/validate = process CPU (time.process_time); batch = wall; took {report.seconds:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=200, help="input size per agent (default 200)")
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated (default: all)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 MB inputs, 100 batch sessions")
    parser.add_argument("--memory", action="store_true", help="also the RSS of converting 100 MB and 1 GB inputs")
    parser.add_argument("--memory-mb", default="100,1024", help="sizes for --memory (default 100,1024)")
    parser.add_argument("--batch", type=int, default=1000, help="sessions for the batch run (0: skip)")
    parser.add_argument("--no-batch", action="store_true", help="skip the batch run")
    parser.add_argument("--repeat", type=int, help="time each step N times, keep the least CPU (default 1; 3 quick)")
    parser.add_argument("--sample", action="append", default=[], metavar="AGENT=PATH", help="build from this file")
    parser.add_argument("--show", metavar="JSON", type=Path, help="print the table of a saved --json report")
    parser.add_argument(
        "--export", action="store_true", help="also asr export (ATIF and OTel) vs convert (scripts/bench_export.py)"
    )
    parser.add_argument("--child-convert", nargs=2, metavar=("AGENT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_convert:
        _child_convert(*args.child_convert)
        return
    if args.show:
        saved = orjson.loads(args.show.read_bytes())
        saved["rows"] = [
            Row(**{k: v for k, v in row.items() if k in Row.__dataclass_fields__}) for row in saved["rows"]
        ]
        saved["memory"] = [MemoryRow(**row) for row in saved["memory"]]
        print_table(Report(**saved))
        return
    if args.quick:
        args.size_mb = min(args.size_mb, 2)
        args.batch = min(args.batch, 100)
        args.memory_mb = "4,16"
    repeat = args.repeat or (3 if args.quick or args.size_mb < 50 else 1)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in agents if a not in AGENTS]
    if unknown:
        parser.error(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
    overrides = {}
    for item in args.sample:
        agent, _, path = item.partition("=")
        overrides[agent] = Path(path)

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    report = Report(_commit(), _machine(), CLOCKS)
    started = time.perf_counter()
    size = int(args.size_mb * MB)
    scratch = DATA / f"tmp-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        for agent in agents:
            sample = find_sample(agent, overrides)
            if sample is None:
                report.rows.append(Row(agent, "", note="not measured: no shared sample and no golden input"))
                continue
            try:
                report.rows.append(measure_agent(agent, sample, size, scratch, log, repeat))
            except Exception as exc:  # one adapter failing does not lose the others' numbers
                log(f"{agent}: failed: {type(exc).__name__}: {exc}")
                report.rows.append(Row(agent, sample.name, note=f"failed: {type(exc).__name__}: {exc}"))
        if args.memory:
            for agent in agents:
                sample = find_sample(agent, overrides)
                for mb in (float(x) for x in args.memory_mb.split(",")):
                    if sample is not None:
                        report.memory.append(measure_memory(agent, sample, int(mb * MB), log))
        if args.export:
            import bench_export  # its own script: export/convert per agent, both formats, one run

            report.export = bench_export.export_rows(agents, size, repeat, log)
        if args.batch and not args.no_batch:
            report.batch = measure_batch(args.batch, scratch, log)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(asdict(report), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
