"""Progress on stderr: a redrawn line on a terminal, plain periodic lines otherwise.

No dependency: a one-line bar with sessions/s, MB/s and an ETA is enough for a batch, and
log files get one line every ``interval`` seconds instead of a stream of carriage returns.
"""

from __future__ import annotations

import sys
import time
from typing import IO


class Progress:
    def __init__(self, stream: IO[str] | None = None, *, tty: bool | None = None, interval: float = 5.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = 0.1 if self.tty else interval
        self.total = 0
        self.total_bytes = 0
        self.done = 0
        self.done_bytes = 0
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def start(self, total: int, total_bytes: int) -> None:
        self.total, self.total_bytes = total, total_bytes
        self.started = self._last = time.monotonic()

    def advance(self, size: int) -> None:
        self.done += 1
        self.done_bytes += size
        now = time.monotonic()
        if now - self._last >= self.interval or (self.tty and self.done == self.total):
            self._last = now
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        elapsed = max(now - self.started, 1e-6)
        rate = self.done / elapsed
        mb_rate = self.done_bytes / elapsed / 1e6
        left = self.total_bytes - self.done_bytes
        eta = left / (self.done_bytes / elapsed) if self.done_bytes else None
        eta_text = "--:--" if eta is None else _clock(eta)
        percent = 100.0 * self.done / self.total if self.total else 100.0
        return (
            f"{self.done}/{self.total} sessions ({percent:.0f}%), "
            f"{rate:.1f} sessions/s, {mb_rate:.1f} MB/s, ETA {eta_text}"
        )

    def _draw(self, now: float) -> None:
        text = self.line(now)
        if self.tty:
            width = 30
            filled = int(width * self.done / self.total) if self.total else width
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {text}\x1b[K")
            self._drawn = True
        else:
            self.stream.write(f"asr batch: {text}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
