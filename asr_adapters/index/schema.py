"""The index's tables: one definition read by the SQLite builder, the Parquet writer and the docs.

Every column has a logical type, written as the SQLite type and the Arrow type that hold it, so
the SQLite file and the Parquet folder carry the same tables with the same types
(docs/index.md). The schema is versioned: an index of another version is rebuilt, never
patched.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bumped whenever a table or column changes meaning; an index of another version is rebuilt.
SCHEMA_VERSION = 2  # 2: token and cost totals from the stats summary, unpriced_responses
#: ``meta.format``: what tells our index from any other SQLite file.
FORMAT = "asr-adapters/index"

#: Logical type -> SQLite column type.
SQLITE_TYPES = {"int": "INTEGER", "real": "REAL", "text": "TEXT", "json": "TEXT", "bool": "INTEGER"}


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # int, real, text, json (JSON text), bool (0/1 in SQLite, bool in Parquet)
    doc: str


@dataclass(frozen=True)
class Table:
    name: str
    doc: str
    columns: tuple[Column, ...]
    indexes: tuple[tuple[str, ...], ...] = ()
    key: str | None = None  # the INTEGER PRIMARY KEY (the rowid), for the two tables that have one

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> list[str]:
        cols = []
        for column in self.columns:
            sql = f"{column.name} {SQLITE_TYPES[column.kind]}"
            if column.name == self.key:
                sql += " PRIMARY KEY"
            if column.kind == "bool":
                sql += f" CHECK ({column.name} IN (0, 1))"
            cols.append(sql)
        statements = [f"CREATE TABLE {self.name} (\n  " + ",\n  ".join(cols) + "\n)"]
        for index in self.indexes:
            statements.append(f"CREATE INDEX {self.name}_{'_'.join(index)} ON {self.name} ({', '.join(index)})")
        return statements


def _c(name: str, kind: str, doc: str) -> Column:
    return Column(name, kind, doc)


_RECORD = (
    _c("sid", "int", "the session (`sessions.sid`)"),
    _c("seq", "int", "the record's `seq` in its stream"),
    _c("record_id", "text", "the record's `id` (`r12`): the page anchor `asr show` opens"),
    _c("ts", "text", "the record's `ts` as written (RFC 3339, UTC)"),
)
_COPIED = _c("copied_from", "text", "`copiedFrom`: the record this one copies (not new content of the session)")
_TOKENS = (
    _c("input_tokens", "int", "`inputTokens`"),
    _c("output_tokens", "int", "`outputTokens`"),
    _c("cache_read_tokens", "int", "`cacheReadTokens`"),
    _c("cache_write_tokens", "int", "`cacheWriteTokens`"),
    _c("reasoning_tokens", "int", "`reasoningTokens`"),
)

SESSIONS = Table(
    "sessions",
    "One row per stream file of the archive.",
    (
        _c("sid", "int", "row key, stable while the stream's path stays"),
        _c("path", "text", "the stream's path relative to the archive (`codex/019a….asr.jsonl`)"),
        _c("session", "text", "the header's session reference (`codex:019a…`)"),
        _c("agent", "text", "`agent.name`"),
        _c("agent_version", "text", "`agent.version`"),
        _c("parent", "text", "`parent`: the parent session of a subagent or fork"),
        _c("title", "text", "`title`"),
        _c("cwd", "text", "`cwd`"),
        _c("project", "text", "the last component of `cwd`"),
        _c("started", "text", "the earliest `ts` of the stream"),
        _c("ended", "text", "the latest `ts` of the stream"),
        _c("models", "json", "the `model` values of its records, in order of first use (JSON array)"),
        _c("records", "int", "records read"),
        _c("messages", "int", "message records"),
        *(_c(c.name, "int", f"the session's total {c.doc}, as `asr stats` sums it (docs/stats.md)") for c in _TOKENS),
        _c("total_tokens", "int", "`input_tokens` + `output_tokens` (docs/semantics.md, Usage)"),
        _c(
            "cost_usd",
            "real",
            "the session's cost in US dollars as `asr stats` prices it (the agent's own recorded cost, else"
            " genai-prices); the priced responses only when `unpriced_responses` > 0; NULL when none could be",
        ),
        _c("unpriced_responses", "int", "responses with tokens that no price was found for"),
        _c("source_path", "text", "the native file it was converted from (the batch manifest), when known"),
        _c("size", "int", "the stream file's size when indexed"),
        _c("mtime_ns", "int", "its modification time (ns) when indexed"),
        _c("inode", "int", "its inode when indexed"),
        _c("sha256", "text", "sha256 of its bytes as stored"),
        _c("error", "text", "why the stream was not (wholly) read: its first unreadable line, or why it is no stream"),
    ),
    (("session",), ("agent", "started")),
    key="sid",
)

MESSAGES = Table(
    "messages",
    "One row per message record.",
    (
        *_RECORD,
        _c("message_id", "text", "`messageId`"),
        _c("role", "text", "`role`"),
        _c("author", "text", "the message's `author` (a part may carry its own: see `parts`)"),
        _c("origin", "text", "the message's `origin`"),
        _c("phase", "text", "the message's `phase`"),
        _c("audience", "text", "`audience`"),
        _c("status", "text", "`status`"),
        _c("model", "text", "`model`"),
        _c("turn_id", "text", "`turnId`"),
        _c("inference_id", "text", "`inferenceId`"),
        _c("summary_of", "text", "`summaryOf` (`compaction`: a summary replacing the history before it)"),
        _c("conversation", "text", "`conversation`"),
        _c("sender", "json", "`from` (an actor reference, JSON)"),
        _COPIED,
        _c("parts", "int", "content and displayContent parts"),
    ),
    (("sid", "seq"),),
)

PARTS = Table(
    "parts",
    "One row per content part (and per searchable text of other records); `text` is what the full-text index holds.",
    (
        _c("part_id", "int", "row key (the full-text index's rowid)"),
        *_RECORD,
        _c("record_type", "text", "the record's type: message, tool_call, tool_result, plan, subagent, input_request"),
        _c("field", "text", "where the part is: content, displayContent, answer, input, entries, description"),
        _c("part_index", "int", "its position in that array (0 for a field that is not an array)"),
        _c("part_type", "text", "the part's `type` (text, reasoning, data, image, opaque, …; input for tool inputs)"),
        _c("author", "text", "effective author (ASR-224: the part's own, else the message's)"),
        _c("origin", "text", "effective origin (ASR-224)"),
        _c("phase", "text", "effective phase (ASR-224)"),
        _c("audience", "text", "the message's audience"),
        _c("visibility", "text", "a reasoning part's `visibility`"),
        _c("call_id", "text", "`callId` of a tool call or result part"),
        _c("copied", "bool", "the record has `copiedFrom`"),
        _c("chars", "int", "length of `text` in characters"),
        _c("text", "text", "the indexed text; NULL for parts with none (images, opaque parts, encrypted reasoning)"),
    ),
    (("sid", "seq"),),
    key="part_id",
)

TOOL_CALLS = Table(
    "tool_calls",
    "One row per tool_call record, joined to its result (by `callId`).",
    (
        *_RECORD,
        _c("call_id", "text", "`callId`"),
        _c("name", "text", "the tool's `name`"),
        _c("input", "json", "`input` (JSON; encrypted arguments left as `{type: opaque, format}` without data)"),
        _c("arguments", "text", "`arguments`: the raw argument string when it is not JSON"),
        _c("status", "text", "the call's own `status`"),
        _COPIED,
        _c("result_seq", "int", "`seq` of its tool_result (NULL: no result in the stream)"),
        _c("result_ts", "text", "`ts` of its tool_result"),
        _c("result_status", "text", "the result's `status`"),
        _c("is_error", "bool", "the result's `isError`"),
        _c("exit_code", "int", "the result's `exitCode`"),
        _c("outcome", "text", "ok, error, denied, cancelled, or NULL when unknown (docs/index.md)"),
    ),
    (("sid", "call_id"), ("name",)),
)

PLANS = Table(
    "plans",
    "One row per plan record (each revision is a row; `supersedes` names the one it replaces).",
    (
        *_RECORD,
        _c("plan_id", "text", "`planId`"),
        _c("plan_type", "text", "`planType`"),
        _c("status", "text", "`status`"),
        _c("supersedes", "text", "`supersedes`"),
        _c("call_id", "text", "`callId`"),
        _c("entries", "json", "`entries` (JSON)"),
        _c("entries_total", "int", "number of entries"),
        _c("entries_completed", "int", "entries with status completed"),
        _COPIED,
    ),
    (("sid", "seq"),),
)

SUBAGENTS = Table(
    "subagents",
    "One row per subagent record (a delegation).",
    (
        *_RECORD,
        _c("call_id", "text", "`callId`"),
        _c("child_session", "text", "`session`: the child's session reference (join `sessions.session`)"),
        _c("address", "text", "`address`"),
        _c("agent_type", "text", "`agentType`"),
        _c("description", "text", "`description`"),
        _COPIED,
    ),
    (("sid", "seq"), ("child_session",)),
)

DELIVERIES = Table(
    "deliveries",
    "One row per delivery record (what happened to a message sent to a conversation).",
    (
        *_RECORD,
        _c("message_ref", "text", "`message`: a ref to the message delivered"),
        _c("conversation", "text", "`conversation`"),
        _c("status", "text", "`status`"),
        _c("reason", "text", "`reason`"),
        _c("attempt", "int", "`attempt`"),
        _c("platform_message_ids", "json", "`platformMessageIds` (JSON)"),
        _c("supersedes", "text", "`supersedes`"),
    ),
    (("sid", "seq"),),
)

USAGE = Table(
    "usage",
    "One row per record carrying a normalized `usage` (one model response each).",
    (
        *_RECORD,
        _c("record_type", "text", "message or tool_call"),
        _c("inference_id", "text", "`inferenceId`"),
        _c("model", "text", "`model`"),
        *_TOKENS,
        _c("total_tokens", "int", "`totalTokens` (only where the source states a total)"),
        _COPIED,
    ),
    (("sid", "seq"),),
)

META = Table(
    "meta",
    "What this file is: format, schema version, producer, the archive it indexes.",
    (_c("key", "text", "name"), _c("value", "text", "value")),
)

#: The data tables, in the order the docs list them and Parquet writes them.
TABLES = (SESSIONS, MESSAGES, PARTS, TOOL_CALLS, PLANS, SUBAGENTS, DELIVERIES, USAGE)
#: Tables whose rows belong to one session (deleted and rewritten with it).
SESSION_TABLES = tuple(t for t in TABLES if t is not SESSIONS)

#: The full-text table over ``parts.text`` (external content: the text is stored once, in parts).
FTS_DDL = (
    "CREATE VIRTUAL TABLE parts_fts USING fts5("
    'text, content="parts", content_rowid="part_id", tokenize="unicode61 remove_diacritics 2")'
)


def ddl() -> list[str]:
    """Every statement that creates an empty index."""
    statements = ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)"]
    for table in TABLES:
        statements.extend(table.ddl())
    statements.append("CREATE UNIQUE INDEX sessions_path ON sessions (path)")
    statements.append(FTS_DDL)
    return statements


def markdown() -> str:
    """The tables as docs/index.md lists them (a test keeps the page and this in step)."""
    lines = [f"Schema version {SCHEMA_VERSION} (`meta.schema_version`).", ""]
    for table in (*TABLES, META):
        lines += [f"### `{table.name}`", "", table.doc, "", "| column | type | meaning |", "| --- | --- | --- |"]
        for column in table.columns:
            kind = SQLITE_TYPES[column.kind] + {"bool": " (0/1)", "json": " (JSON)"}.get(column.kind, "")
            lines.append(f"| `{column.name}` | {kind} | {column.doc} |")
        lines.append("")
    fts = "The FTS5 table over `parts.text` (`rowid` = `parts.part_id`; external content: the text is stored once)."
    lines += ["### `parts_fts`", "", fts, ""]
    return "\n".join(lines)
