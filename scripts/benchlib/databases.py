"""The SQLite inputs (T3 Code events, an OpenCode session) built from a golden database, repeated."""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

import orjson

from . import ROOT
from .template import Template

_V1_COLUMNS = (
    "event_id, aggregate_kind, stream_id, stream_version, event_type, occurred_at, command_id, "
    "causation_event_id, correlation_id, actor_kind, payload_json, metadata_json"
)


def build_t3code(sql: Path, size: int, dest: Path) -> tuple[int, int, int]:
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


def build_opencode(sql: Path, size: int, dest: Path) -> tuple[int, int, int]:
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
