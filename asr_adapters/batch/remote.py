"""Sources and outputs on object stores (``s3://``, ``gs://``, ``az://``, …) through fsspec.

Object stores have no rename, and fsspec commits a file it is writing when it is closed,
even on an exception: a conversion streamed into ``fs.open(url, "wb")`` that fails midway
would publish half an output. So a worker converts each source into local spool files and,
only once every stream of that source is whole, uploads each one once (a single PUT or a
completed multipart upload: all or nothing) to a staging name under ``OUT/.asr-tmp/``.
The driver then commits it, in walk order as for local outputs, with a server-side copy to
its final name (atomic on the store) and removes the staged object. ``file://`` URLs are
plain local paths and keep ``os.replace``.

A remote source is listed once by the driver (size, modification time, ETag: incremental
runs compare those, as on disk), downloaded by the worker into a local spool folder (the
same relative path, so names an adapter judges by are kept), converted there and removed.
Files an adapter reads along with a source (its companions: subagent transcripts, sidecars,
a ``-wal``) are not fetched from a store: such a source gets a warning saying so.

fsspec and the backend (``s3fs``, ``gcsfs``, ``adlfs``) are optional extras
(``pip install 'asr-adapters[s3]'``); credentials and endpoints come from the backend's usual
environment (``AWS_*``, ``FSSPEC_S3_ENDPOINT_URL``, …).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import posixpath
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .atomic import is_relative_name
from .scan import TEMP_NAME, TEMP_PREFIX

STAGING = TEMP_PREFIX.rstrip("-")  # OUT/.asr-tmp/: outputs uploaded, not yet committed
LOCAL = ("file", "local")
COMPANIONS_NOT_FETCHED = (
    "read from an object store: files this agent reads along with a session (subagent transcripts, "
    "sidecars, a -wal) are not fetched; copy or mount the archive to convert them too"
)


class StoreError(Exception):
    """An object-store URL that cannot be used: its fsspec backend is not installed."""


def protocol(text: str) -> str:
    head, sep, _rest = text.partition("://")
    return head.lower() if sep and head and head.replace("+", "").replace("-", "").isalnum() else ""


def is_url(text: str | os.PathLike[str]) -> bool:
    """Whether ``text`` names an object in a store (a URL whose protocol is not ``file``)."""
    scheme = protocol(os.fspath(text))
    return bool(scheme) and scheme not in LOCAL


def local_path(text: str | os.PathLike[str]) -> str:
    """A ``file://`` URL as a plain path; anything else unchanged."""
    value = os.fspath(text)
    return value.split("://", 1)[1] if protocol(value) in LOCAL else value


def filesystem(url: str) -> tuple[Any, str]:
    """(the fsspec filesystem of ``url``, its path there without the protocol)."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise StoreError(f"{url}: object stores need fsspec: pip install 'asr-adapters[s3]' (or gcs, azure)") from None
    try:
        fs, path = url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise StoreError(f"{url}: {exc}") from None
    return fs, path.rstrip("/")


def join(url: str, relative: str) -> str:
    return f"{url.rstrip('/')}/{relative}"


@dataclass(frozen=True)
class Listed:
    """An object found under a remote root: its URL, path relative to the root, metadata."""

    url: str
    relative: str
    size: int
    mtime_ns: int
    etag: str
    explicit: bool = False  # the root URL names this object itself (not a folder)


def stamp(info: dict[str, Any]) -> tuple[int, int, str]:
    """(size, modification time in ns, ETag or generation) from an fsspec ``info`` entry."""
    size = int(info.get("size") or 0)
    etag = str(info.get("ETag") or info.get("etag") or info.get("generation") or info.get("md5Hash") or "")
    mtime_ns = 0
    for key in ("LastModified", "mtime", "updated", "last_modified", "created"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        if isinstance(value, datetime.datetime):
            mtime_ns = int(value.timestamp() * 1_000_000) * 1000
        elif isinstance(value, int | float):
            mtime_ns = int(value * 1e9)
        if mtime_ns:
            break
    return size, mtime_ns, etag.strip('"')


def listing(root: str, skip: str | None = None, left_out: Callable[[str, str], None] | None = None) -> Iterator[Listed]:
    """Every object under ``root`` (a folder URL, or one object), sorted; anything under
    ``skip`` (the output URL) left out, and objects with a batch's temporary name (another
    batch's staging) left out and told to ``left_out(url, reason)``."""
    fs, base = filesystem(root)
    fs.invalidate_cache()
    found = fs.find(base, detail=True)
    prefix = protocol(root) + "://"
    skip_path = filesystem(skip)[1] + "/" if skip and protocol(skip) == protocol(root) else None
    for path in sorted(found):
        info = found[path]
        if info.get("type") == "directory":
            continue
        relative = path[len(base) :].lstrip("/") if path != base else posixpath.basename(path)
        if skip_path is not None and (path + "/").startswith(skip_path):
            continue
        if any(part.startswith(STAGING) for part in relative.split("/")):
            if left_out is not None:
                left_out(prefix + path, TEMP_NAME)
            continue
        size, mtime_ns, etag = stamp(info)
        yield Listed(prefix + path, relative, size, mtime_ns, etag, path == base)


class RemoteOut:
    """The output folder on an object store, as the driver uses it."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.fs, self.base = filesystem(self.url)
        self.known: set[str] = set()  # relative names of the objects there (listed once)

    def key(self, relative: str) -> str:
        if not is_relative_name(relative):
            raise OSError(f"{relative!r} is not a path inside the output folder")
        return f"{self.base}/{relative}"

    def list(self) -> None:
        self.fs.invalidate_cache()
        with contextlib.suppress(FileNotFoundError):
            for path in self.fs.find(self.base):
                self.known.add(path[len(self.base) :].lstrip("/"))

    def exists(self, relative: str) -> bool:
        return relative in self.known

    def read(self, name: str) -> bytes | None:
        try:
            data: bytes = self.fs.cat_file(self.key(name))
        except FileNotFoundError:
            return None
        return data

    def head(self, relative: str) -> bytes | None:
        """The first line of an object (at most ``stale.HEAD_BYTES``), None when it is not there."""
        from .stale import HEAD_BYTES

        try:
            data: bytes = self.fs.cat_file(self.key(relative), start=0, end=HEAD_BYTES)
        except FileNotFoundError:
            return None
        return data.split(b"\n", 1)[0]

    def write(self, name: str, data: bytes) -> None:
        """One PUT: the object is replaced whole or left as it was."""
        self.fs.pipe_file(self.key(name), data)
        self.known.add(name)

    def place(self, staged: str, relative: str) -> None:
        """A staged upload committed to its final name (a server-side copy), then unstaged."""
        self.fs.cp_file(staged, self.key(relative))  # one object: no listing to expand a pattern
        self.known.add(relative)
        with contextlib.suppress(OSError):
            self.fs.rm_file(staged)

    def remove(self, relative: str) -> None:
        self.fs.rm_file(self.key(relative))
        self.known.discard(relative)

    def sweep(self, tag: str = "") -> int:
        """Remove the staged uploads a killed batch left (with ``tag``, only that shard's)."""
        removed = 0
        with contextlib.suppress(FileNotFoundError):
            for path in self.fs.find(f"{self.base}/{STAGING}"):
                if posixpath.basename(path).startswith(tag):
                    with contextlib.suppress(OSError):
                        self.fs.rm_file(path)
                        removed += 1
        return removed


def spool_file() -> tuple[str, Any]:
    """A local file to build one output in before its upload."""
    fd, path = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".asr.jsonl")
    return path, os.fdopen(fd, "wb")


def upload(outdir: str, spooled: list[Any], tag: str) -> None:
    """Upload each whole output (``StreamOutput.temp``: its spool file) once, to a staging name;
    ``temp`` then names the staged object. On a failure the objects staged so far are removed."""
    fs, base = filesystem(outdir)
    staged: list[str] = []
    try:
        for output in spooled:
            key = f"{base}/{STAGING}/{tag}{uuid.uuid4().hex}"
            fs.put_file(output.temp, key)
            staged.append(key)
            with contextlib.suppress(OSError):
                os.unlink(output.temp)
            output.temp = key
    except BaseException:
        for key in staged:
            with contextlib.suppress(Exception):
                fs.rm_file(key)
        raise


def discard(outdir: str, temps: list[str]) -> None:
    """Remove what a failed source left: local spool files, or staged objects."""
    fs = None
    for temp in temps:
        if os.path.exists(temp):
            with contextlib.suppress(OSError):
                os.unlink(temp)
            continue
        with contextlib.suppress(Exception):
            fs = fs or filesystem(outdir)[0]
            fs.rm_file(temp)


@contextlib.contextmanager
def fetched(url: str, relative: str) -> Iterator[tuple[Path, tuple[int, int, str]]]:
    """The object at ``url`` downloaded to a local spool folder at ``relative`` (its metadata:
    size, mtime, ETag, as read just before the download); removed after the block."""
    fs, path = filesystem(url)
    spool = tempfile.mkdtemp(prefix="asr-src-")
    try:
        local = Path(spool, *[part for part in relative.split("/") if part not in ("", ".", "..")])
        local.parent.mkdir(parents=True, exist_ok=True)
        info = fs.info(path)
        fs.get_file(path, str(local))
        yield local, stamp(info)
    finally:
        shutil.rmtree(spool, ignore_errors=True)
