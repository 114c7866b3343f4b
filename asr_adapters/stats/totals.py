"""A session's token and cost totals alone, in memory bounded by one record (the index's
``sessions`` columns, docs/index.md).

``session_summary`` keeps what its report needs per call, per response and per record time;
an index of a 1 GB stream needs only the sums. ``TotalsScanner`` applies the summary's own
usage and price rules (``SessionScanner._usage``: the usage definition, the agent's recorded
cost first, genai-prices at the response's time) and folds each response into ``Totals`` as
it comes, keeping nothing else.
"""

from __future__ import annotations

from typing import Any

from .prices import Prices
from .scanner import SessionScanner, _fromisoformat
from .summary import Totals


class TotalsScanner(SessionScanner):
    """``observe(record)`` each record in order; ``totals`` is the sum so far."""

    def __init__(self, prices: Prices | None = None) -> None:
        super().__init__(prices)
        self.totals = Totals()

    def observe(self, record: dict[str, Any]) -> None:
        if "copiedFrom" in record:  # another session's history: counted there (as the summary does)
            return
        get = record.get
        model = get("model")
        if model.__class__ is str and model:
            self._model = model
        kind = get("type")
        if kind == "session":
            self._header(record)
        ts = get("ts")
        if ts.__class__ is str:
            try:
                moment = _fromisoformat(ts)
                if moment.tzinfo is not None:
                    self._last_time = moment.timestamp()
            except ValueError:
                pass
        if "usage" not in record and "nativeUsage" not in record:
            return
        self._usage(record, ts, self._last_time)
        responses = self.summary.responses
        for response in responses:
            self.totals.add(response)
        responses.clear()
        self._usage_responses.clear()  # kept by the summary to pair responses: not needed here
        self._response_models.clear()
