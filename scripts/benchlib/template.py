"""A sample's lines cut into literal bytes and slots (ids, timestamps) that change per repetition."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

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
