"""Whether an input is an OpenHands conversation file, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.lazyre import LazyPattern
from ...core.source import Source
from . import discover

#: a V1 event: ``{"id": "<uuid>", "timestamp": "…", "source": "agent|user|environment|hook"``
#: (the SDK's ``model_dump_json``: envelope members first, ``kind`` last)
_V1_EVENT = LazyPattern(
    rb'^\{"id":"[0-9a-f-]{32,36}","timestamp":"\d{4}-\d\d-\d\dT[^"]*","source":"(?:agent|user|environment|hook)"'
)
#: a V0 event: ``{"id": <int>, "timestamp": "…", "source": "…", "message": …`` (``json.dumps`` separators)
_V0_EVENT = LazyPattern(rb'^\{"id": \d+, "timestamp": "\d{4}-\d\d-\d\dT[^"]*", "source": "(?:agent|user|environment)"')
_V0_TYPE = LazyPattern(rb'"(?:action|observation)": "[a-z_]+"')
_V1_STATE = LazyPattern(rb'"(?:execution_status|agent_status)"\s*:\s*"')
_V1_AGENT = LazyPattern(rb'"agent"\s*:\s*\{')
_V1_STATE_FACT = LazyPattern(rb'"(?:persistence_dir|max_iterations|confirmation_policy|stuck_detection)"\s*:')
_V0_META = LazyPattern(rb'^\{\s*"conversation_id"\s*:\s*"[0-9a-f]{32}"')
_V0_META_FACT = LazyPattern(rb'"(?:selected_repository|trigger|llm_model|last_updated_at)"\s*:')


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is an OpenHands conversation file (0 to 100)."""
    if source.is_sqlite:
        return 0
    head = source.head().lstrip()
    if not head.startswith(b"{"):
        return 0
    in_events = source.path is not None and source.path.parent.name == discover.EVENTS  # names only
    if _V1_EVENT.match(head):
        return 95 if in_events and discover.V1_EVENT.match(source.name) else 80
    if _V0_EVENT.match(head) and _V0_TYPE.search(head):
        return 95 if in_events and discover.V0_EVENT.match(source.name) else 80
    if _V1_AGENT.search(head) and _V1_STATE.search(head) and _V1_STATE_FACT.search(head):
        return 90
    if _V0_META.match(head) and _V0_META_FACT.search(head):
        return 85
    return 0
