"""A session's token and cost totals alone, in memory bounded by one record (the index's
``sessions`` columns, docs/index.md).

``session_summary`` keeps what its report needs per call, per response and per record time;
an index of a 1 GB stream needs only the sums. ``TotalsScanner`` reads each record's response
with the summary's own rules (``stats.responses.ResponseReader``: the usage definition, the
agent's recorded cost first, genai-prices at the response's provider and time) and folds it
into ``Totals`` as it comes, keeping nothing else.
"""

from __future__ import annotations

from typing import Any

from .prices import Prices
from .responses import ResponseReader
from .scanner import default_prices
from .summary import Totals


class TotalsScanner:
    """``observe(record)`` each record in order; ``totals`` is the sum so far."""

    def __init__(self, prices: Prices | None = None) -> None:
        self.reader = ResponseReader(prices or default_prices())
        self.totals = Totals()

    def observe(self, record: dict[str, Any]) -> None:
        if "copiedFrom" in record:  # another session's history: counted there (as the summary does)
            return
        response = self.reader.read(record)
        if response is not None and (response.has_usage or response.cost_by is not None):
            # a response with unknown usage adds no token and no cost; counting it once would
            # need the ids of every response seen (the summary keeps them, this does not)
            self.totals.add(response)
