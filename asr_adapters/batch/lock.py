"""The batch lock (``OUTDIR/_batch.lock``) and the errors that stop a batch before or as it writes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..outputs import open_lock_file

LOCK = "_batch.lock"


class BatchUsageError(Exception):
    """A batch that cannot start: bad arguments, or another batch writing the same folder."""


class BatchOutputError(Exception):
    """OUTDIR cannot be written (read-only, full disk): the batch cannot record its work."""


def shard_lock_name(shard: str) -> str:
    return f"_batch.{shard}.lock"


def output_error(path: Path | str, exc: OSError) -> BatchOutputError:
    return BatchOutputError(f"cannot write {path}: {exc.strerror or exc}")


@contextlib.contextmanager
def locked(outdir: Path, shard: str = "") -> Iterator[tuple[int, ...]]:
    """Hold ``OUTDIR/_batch.lock`` (``flock``: the kernel drops it when its holder dies, however
    it dies): exclusively for a whole run or a merge; shared for a shard, which also holds its
    own ``_batch.shard-K-of-N.lock`` exclusively (the shards of one corpus run at once, but
    never beside a whole run or twice). The descriptors, which workers close so that they
    never hold a lock."""
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): one batch per folder is the user's care
        yield ()
        return
    with contextlib.ExitStack() as stack:
        held: list[int] = []
        wanted = [(LOCK, fcntl.LOCK_SH if shard else fcntl.LOCK_EX)]
        if shard:
            wanted.append((shard_lock_name(shard), fcntl.LOCK_EX))
        for name, mode in wanted:
            handle = stack.enter_context(_open_lock(outdir / name))
            try:
                fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
            except OSError:
                what = f"shard {shard}" if shard and name != LOCK else "asr batch"
                raise BatchUsageError(f"another {what} is writing to {outdir}") from None
            held.append(handle.fileno())
        yield tuple(held)


def _open_lock(path: Path) -> IO[bytes]:
    try:
        return open_lock_file(path)  # a link planted as the lock file is not followed
    except OSError as exc:
        raise output_error(path, exc) from None
