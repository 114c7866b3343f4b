"""A report as a table a person reads (rich), as CSV, or as JSON (``asr stats``)."""

from __future__ import annotations

import csv
import io
import math
from typing import IO, Any

import orjson

from .report import Report
from .rows import Row
from .when import local

#: CSV columns, in order (the JSON row's members, lists joined with ``;``).
CSV_COLUMNS = (
    "by",
    "key",
    "model",
    "title",
    "start",
    "end",
    "firstActivity",
    "lastActivity",
    "sessions",
    "subagents",
    "agents",
    "projects",
    "models",
    "responses",
    "inputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "outputTokens",
    "reasoningTokens",
    "totalTokens",
    "cost",
    "agentCost",
    "ourCost",
    "pricedBy",
    "pricedByAgent",
    "pricedByUs",
    "unpricedResponses",
    "unpricedTokens",
    "partialResponses",
    "responsesWithoutUsage",
    "responsesWithoutInput",
    "costLowerBound",
    "toolCalls",
    "failedToolCalls",
    "prompts",
    "unattributedPrompts",
    "activeSeconds",
    "windowLive",
    "burnTokensPerMinute",
    "burnCostPerHour",
    "projectedTokens",
    "projectedCost",
    "remainingMinutes",
)
#: A billing window's state (the JSON row's ``window``), as CSV columns.
_WINDOW_COLUMNS = {
    "windowLive": ("live",),
    "burnTokensPerMinute": ("burnRate", "tokensPerMinute"),
    "burnCostPerHour": ("burnRate", "costPerHour"),
    "projectedTokens": ("projected", "totalTokens"),
    "projectedCost": ("projected", "cost"),
    "remainingMinutes": ("projected", "remainingMinutes"),
}


def to_json(result: Report) -> bytes:
    return orjson.dumps(result.as_dict(), option=orjson.OPT_INDENT_2) + b"\n"


def to_csv(result: Report) -> str:
    """One line per row, then a line per model of it (``--breakdown``), then the total."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in [*result.rows, result.total]:
        data = row.as_dict(result.tz)
        writer.writerow(_flat(data))
        for part in data["breakdown"] if row is not result.total else ():
            writer.writerow(_flat({"by": row.by, "key": row.key, **part}))
    return out.getvalue()


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    window = data.get("window")
    for key in CSV_COLUMNS:
        value = data.get(key)
        if key in _WINDOW_COLUMNS and isinstance(window, dict):
            value = window
            for member in _WINDOW_COLUMNS[key]:
                value = value.get(member) if isinstance(value, dict) else None
        flat[key] = ";".join(map(str, value)) if isinstance(value, list) else ("" if value is None else value)
    return flat


def tokens(value: int) -> str:
    """A token count a person reads at a glance: 987, 12.3k, 4.56M, 1.2B."""
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if value >= size:
            number = value / size
            return f"{number:.3g}{suffix}" if number < 100 else f"{number:.0f}{suffix}"
    return str(value)


def money(row: Row) -> str:
    totals = row.totals
    shown = row.priced_by
    if shown in ("unknown", "unpriced", "-"):  # nothing priced
        return "?" if shown == "unknown" else shown
    text = dollars(totals.cost)
    if row.lower_bound:
        text = "≥" + text  # some responses' input, usage or final count unknown: what is known alone
    return text + "*" if totals.unpriced else text


def dollars(cost: float) -> str:
    """$1,234.56, or two significant digits under a cent ($0.0071, $0.0000045), so a small
    cost never reads as $0.01 or $0.0000."""
    if cost >= 0.01 or cost <= 0:
        return f"${cost:,.2f}"
    digits = max(4, 1 - math.floor(math.log10(cost)))
    return f"${cost:.{digits}f}"


def counted(number: int, thing: str) -> str:
    """``1 response``, ``2 responses``."""
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes}m" if seconds >= 60 or seconds == 0 else f"{int(seconds)}s"
    return f"{minutes // 60}h {minutes % 60:02d}m"


_HEAD = {
    "session": "Session",
    "day": "Day",
    "week": "Week",
    "month": "Month",
    "model": "Model",
    "project": "Project",
    "agent": "Agent",
    "block": "Window (5 h)",
}


def _label(row: Row, result: Report) -> str:
    if row.by == "session":
        agent, _, native = row.key.partition(":")
        short = f"{agent}:{native[:8]}" if native else row.key
        title = " ".join((row.title or "").split())
        return f"{short} {title[:36] + '…' if len(title) > 36 else title}".rstrip()
    if row.by == "block":
        live = row.window is not None and row.window.get("live")
        return row.key + (" (live)" if live else "")
    if row.by == "project" and len(row.key) > 40:
        return "…" + row.key[-39:]
    return row.key


_COLUMNS = (
    "",
    "Sess",
    "Resp",
    "Input",
    "Cache rd",
    "Cache wr",
    "Output",
    "Reason",
    "Cost",
    "Tools",
    "Fail",
    "Prompts",
    "Active",
)
#: Columns left out first when the terminal is too narrow for all (never the label, cost or tokens in and out).
_DROP_ORDER = (7, 2, 10, 5, 11, 9, 12, 1, 4)


def _cells(row: Row, label: str) -> list[str]:
    known = row.totals.token_members()  # None where unknown: "?", never 0

    def cell(member: str) -> str:
        value = known[member]
        return "?" if value is None else tokens(value)

    return [
        label,
        str(len(row.sessions)),
        str(row.totals.responses),
        cell("inputTokens"),
        cell("cacheReadTokens"),
        cell("cacheWriteTokens"),
        cell("outputTokens"),
        cell("reasoningTokens"),
        money(row),
        str(row.tool_calls),
        str(row.failed_tool_calls),
        "" if row.prompts is None else str(row.prompts),
        "?" if row.activity is not None and row.active_seconds is None else duration(row.active_seconds),
    ]


def _fit(lines: list[list[str]], width: int) -> list[int]:
    """The columns that fit ``width`` beside a label of at least 24 characters."""
    shown = list(range(len(_COLUMNS)))

    def need(index: int) -> int:
        return max([len(_COLUMNS[index])] + [len(values[index]) for values in lines if len(values) > index]) + 1

    for index in _DROP_ORDER:
        if 24 + sum(need(i) for i in shown[1:]) <= width:
            break
        shown.remove(index)
    return shown


def table(result: Report, out: IO[str], *, color: bool | None = None, width: int | None = None) -> None:
    """The report as a table: one line per row (and per model with ``--breakdown``), the total,
    then what is unpriced, who priced the cost, and what was skipped."""
    from rich.console import Console
    from rich.table import Table

    terminal = out.isatty() if hasattr(out, "isatty") else False
    if width is None and not terminal:
        width = 200  # a pipe or a file: no terminal to fit, so no column is squeezed
    console = Console(file=out, force_terminal=color, no_color=color is False, width=width, highlight=False)
    lines: list[tuple[list[str], str | None]] = []
    for row in result.rows:
        lines.append((_cells(row, _label(row, result)), None))
        for model, part in sorted(row.breakdown.items(), key=lambda kv: -kv[1].totals.cost):
            sub = Row(row.by, model, totals=part.totals, tool_calls=part.tool_calls)
            sub.failed_tool_calls = part.failed_tool_calls
            values = _cells(sub, f"  └ {model}")
            values[1] = values[11] = values[12] = ""
            lines.append((values, "dim"))
    total = _cells(result.total, "Total")
    shown = _fit([values for values, _ in lines] + [total], console.width)
    grid = Table(box=None, header_style="bold", pad_edge=False, collapse_padding=True)
    grid.add_column(_HEAD[result.by], overflow="ellipsis", no_wrap=True, min_width=14, max_width=60, ratio=1)
    for index in shown[1:]:
        grid.add_column(_COLUMNS[index], justify="right", no_wrap=True, min_width=len(_COLUMNS[index]))
    for values, style in lines:
        grid.add_row(*(values[i] for i in shown), style=style)
    if result.rows:
        grid.add_section()
    grid.add_row(*(total[i] for i in shown), style="bold")
    console.print(grid)
    for line in notes(result):
        console.print(line, soft_wrap=True)


def notes(result: Report) -> list[str]:
    """What the table's numbers rest on, in sentences under it."""
    lines: list[str] = []
    totals = result.total.totals
    if not result.rows:
        where = ", ".join(result.homes) if result.homes else "the paths given"
        lines.append(
            f"No sessions found in {where}." if not result.inputs else "Nothing in the range and filters given."
        )
    if totals.priced_by_agent or totals.priced_by_us:
        parts = []
        if totals.priced_by_agent:
            by_agent = counted(totals.priced_by_agent, "response")
            parts.append(f"{dollars(totals.agent_cost)} as the agents recorded it ({by_agent})")
        if totals.priced_by_us:
            ours = totals.cost - totals.agent_cost
            parts.append(
                f"{dollars(ours)} priced with {result.price_data} ({counted(totals.priced_by_us, 'response')})"
            )
        lines.append("Cost: " + "; ".join(parts) + ".")
    for row in result.rows:
        if row.window is not None and row.window.get("burnRate"):
            rate, projected = row.window["burnRate"], row.window["projected"]
            lines.append(
                f"Live window {row.key}: burn rate {tokens(int(rate['tokensPerMinute']))} tokens a minute,"
                f" ${rate['costPerHour']:,.2f} an hour; at this rate, by its end at"
                f" {local(row.end or 0, result.tz).strftime('%H:%M')}: {tokens(projected['totalTokens'])} tokens,"
                f" ${projected['cost']:,.2f}."
            )
    if result.unpriced_models:
        listed = ", ".join(
            f"{m} ({tokens(n)})" for m, n in sorted(result.unpriced_models.items(), key=lambda kv: -kv[1])
        )
        lines.append(f"* Not in the cost: {tokens(totals.unpriced_tokens.total)} tokens with no known price: {listed}.")
    unattributed = result.total.unattributed_prompts
    if unattributed:
        lines.append(
            f"Not counted as the person's: {counted(unattributed, 'prompt')} by a chat participant of unknown"
            " kind (unattributedPrompts)."
        )
    if totals.without_usage:
        lines.append(
            f"Recorded without usage: {counted(totals.without_usage, 'response')}, counted in Resp, their tokens"
            " and cost unknown (not 0; responsesWithoutUsage): the tokens and cost of a row holding one are a"
            " lower bound (≥, costLowerBound)."
        )
    unmetered = result.total.unmetered_shares
    if unmetered:
        lines.append(
            f"Tool calls but no response recorded: {counted(unmetered, 'session')} (T3 Code and Factory Droid keep"
            " no response usage): their cost is unknown (?), so a total holding them is a lower bound (≥)."
        )
    if totals.without_input:
        lines.append(
            f"≥ A lower bound: {counted(totals.without_input, 'response')} recorded no input count (Copilot CLI"
            " keeps only each response's output; OpenHands leaves out an ambiguous one): their input is unknown,"
            " not 0, and the cost shown is a lower bound (responsesWithoutInput, costLowerBound)."
        )
    if totals.partial:
        lines.append(
            f"Recorded with only a running count of their tokens, no final one: {counted(totals.partial, 'response')}"
            " (partialResponses): the output and cost of a row holding one are a lower bound (≥, costLowerBound)."
        )
    outside = _outside_windows(result)
    if outside:
        lines.append(
            f"Not in any window: {outside} (no time recorded, or a session with no response to open a window),"
            " so the rows add up to less than the Total."
        )
    if result.skipped:
        lines.append(f"{counted(len(result.skipped), 'input')} skipped (see the warnings above).")
    return lines


def _outside_windows(result: Report) -> str:
    """What the Total counts that no billing window holds (``--by block``), in words, or ''."""
    if result.by != "block":
        return ""
    rows, total = result.rows, result.total
    responses = total.totals.responses - sum(row.totals.responses for row in rows)
    calls = total.tool_calls - sum(row.tool_calls for row in rows)
    prompts = (total.prompts or 0) - sum(row.prompts or 0 for row in rows)
    parts = [
        counted(n, thing) for n, thing in ((responses, "response"), (calls, "tool call"), (prompts, "prompt")) if n > 0
    ]
    return ", ".join(parts)
