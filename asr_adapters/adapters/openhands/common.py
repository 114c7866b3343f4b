"""What both generations share: the registry names, times, text and image parts, usage."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter
from ...core.timestamps import from_iso, stamp
from ...core.usage import count, normalized_usage

AGENT = "openhands"
REGISTRY = "dev.all-hands.openhands"
#: a time with a zone (``Z``, ``+hh:mm``): OpenHands writes ``datetime.now().isoformat()``,
#: local wall time with no zone, which names no instant (docs/agents/openhands.md, Times)
_ZONED = re.compile(r".*T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:?\d\d)\Z")
#: TextContent members that are request flags, not content, at their defaults
_TEXT_DEFAULTS = {"cache_prompt": False, "enable_truncation": True}
_DATA_URL = re.compile(r"data:(?P<mime>[\w.+-]+/[\w.+-]+)(?:;[^,;]*)*;base64,(?P<data>.*)\Z", re.S)


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (native members may be anything)."""
    return value if isinstance(value, dict) else {}


def stamp_event(record: dict[str, Any], timestamp: Any) -> bool:
    """``ts`` from an event's ``timestamp`` when it names its zone; False for a zoneless time
    (the caller keeps it verbatim among the native members)."""
    if isinstance(timestamp, str) and _ZONED.match(timestamp):
        stamp(record, from_iso(timestamp))
        return True
    return False


class EventMapper:
    """What both generations' mappers do with an event's records: count the event once (kept
    as a vendor record when it maps to none) and remember the first record each event id
    became, which later events link back to."""

    emit: Emitter
    accounting: Accounting
    vendor: Callable[[str, Any], dict[str, Any]]
    record_of: dict[Any, str]

    def _emitted(
        self, kind: str, event: dict[str, Any], records: list[dict[str, Any]] | None, event_id: int | str | None
    ) -> Iterator[dict[str, Any]]:
        if not records:
            records = [self._base(self.vendor(kind, event), event)]
            self.accounting.vendor += 1
        else:
            self.accounting.records += 1
        if event_id is not None:
            self.record_of.setdefault(event_id, self.emit.next_id)
        for record in records:
            yield self.emit(record)

    def _base(self, record: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        """``ts`` in its place (the record's keys are put in order by the emitter)."""
        stamp_event(record, event.get("timestamp"))
        return record


def meta(item: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any] | None:
    """An item's members beyond ``known`` that are not at the SDK's default, for ``_meta``."""
    rest = {k: v for k, v in item.items() if k not in known and _TEXT_DEFAULTS.get(k, ...) != v}
    return {f"{REGISTRY}/item": rest} if rest else None


def text_part(item: dict[str, Any]) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": item.get("text", "")}
    extra = meta(item, ("type", "text"))
    if extra:
        part["_meta"] = extra
    return part


def image_parts(urls: Any) -> list[dict[str, Any]]:
    """An image: a data URL's bytes as ``data`` with its media type; another URL as a link."""
    parts: list[dict[str, Any]] = []
    for url in urls if isinstance(urls, list) else ():
        if not isinstance(url, str):
            continue
        match = _DATA_URL.match(url)
        if match:
            parts.append({"type": "image", "mimeType": match.group("mime"), "data": match.group("data")})
        else:
            parts.append({"type": "resource_link", "uri": url, "name": url})
    return parts


def content_parts(items: Any) -> list[dict[str, Any]]:
    """V1 ``TextContent`` / ``ImageContent`` items (or a plain string) as content parts."""
    if isinstance(items, str):
        return [{"type": "text", "text": items}]
    parts: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        if item.get("type") == "image":
            parts.extend(image_parts(item.get("image_urls")))
        elif isinstance(item.get("text"), str):
            parts.append(text_part(item))
        else:
            parts.append({"type": "data", "data": item, "schema": f"{REGISTRY}/content"})
    return parts


def litellm_usage(usage: dict[str, Any]) -> dict[str, Any] | None:
    """The normalized usage of a LiteLLM-shaped count (V1 ``TokenUsage`` or V0's
    ``model_response.usage``).

    ``prompt_tokens`` holds the cache reads under every LiteLLM convention, but whether it
    holds the cache writes depends on the LiteLLM release and provider, which the files do not
    record (docs/agents/openhands.md, Usage). So the input side is written only where the
    numbers decide it: no cache writes, the whole is ``prompt_tokens``; ``prompt_tokens``
    smaller than reads + writes cannot hold the writes, so they are added; otherwise it may
    hold them or not, and ``inputTokens`` (hence ``totalTokens``) is left out rather than
    risk counting the writes twice. ``completion_tokens`` holds the reasoning."""
    details = usage.get("prompt_tokens_details")
    read = usage.get("cache_read_tokens")
    if read is None:
        read = usage.get("cache_read_input_tokens")
        if read is None and isinstance(details, dict):
            read = details.get("cached_tokens")
    write = usage.get("cache_write_tokens")
    if write is None:
        write = usage.get("cache_creation_input_tokens")
    reasoning = usage.get("reasoning_tokens")
    completion_details = usage.get("completion_tokens_details")
    if reasoning is None and isinstance(completion_details, dict):
        reasoning = completion_details.get("reasoning_tokens")
    return normalized_usage(
        input=input_side(usage.get("prompt_tokens"), read, write),
        input_parts=(write,) if writes_beside(usage.get("prompt_tokens"), read, write) else (),
        cache_read=read,
        cache_write=write,
        output=usage.get("completion_tokens"),
        reasoning=reasoning,
    )


def writes_beside(prompt: Any, read: Any, write: Any) -> bool:
    """True when ``prompt_tokens`` is provably without the cache writes: it is smaller than
    the two cache counts it would have to contain."""
    written, prompted = count(write), count(prompt)
    return bool(written) and prompted is not None and prompted < (count(read) or 0) + (written or 0)


def input_side(prompt: Any, read: Any, write: Any) -> Any:
    """``prompt_tokens`` where the whole input can be known from it (no cache writes, or
    writes provably beside it), else None."""
    if not count(write) or writes_beside(prompt, read, write):
        return prompt
    return None
