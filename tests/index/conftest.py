"""Archives to index: the golden inputs batch-converted (everywhere), the shared samples (where
they are: ../shared/samples, or ASR_SAMPLES), and small constructed streams."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, SHARED_SAMPLES

from asr_adapters.cli import main
from asr_adapters.index import build_index
from asr_adapters.model.order import canonical_order

SAMPLES = SHARED_SAMPLES


def batch(sources: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["batch", str(sources), "-o", str(out), "-q", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def golden_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every golden case's native input, converted by ``asr batch`` (built once, then copied)."""
    return batch(GOLDEN, tmp_path_factory.mktemp("golden") / "archive")


@pytest.fixture(scope="session")
def golden_index(golden_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("golden-index") / "index.sqlite"
    report = build_index(golden_archive, index)
    assert report.problems == []
    return index


@pytest.fixture(scope="session")
def samples_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"no shared samples at {SAMPLES} (set ASR_SAMPLES to their folder)")
    return batch(SAMPLES, tmp_path_factory.mktemp("samples") / "archive")


@pytest.fixture(scope="session")
def samples_index(samples_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("samples-index") / "index.sqlite"
    build_index(samples_archive, index)
    return index


@pytest.fixture
def copy_archive(tmp_path: Path) -> Callable[[Path], Path]:
    def copy(archive: Path) -> Path:
        target = tmp_path / "archive"
        shutil.copytree(archive, target, symlinks=True)
        return target

    return copy


def header(session: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "session",
        "session": session,
        "agent": {"name": session.split(":", 1)[0]},
        "producer": {"name": "asr-adapters", "version": "0.1.0"},
        **extra,
    }


def write_stream(path: Path, records: list[dict[str, Any]]) -> Path:
    """A stream file of ``records`` (seq and id filled in, canonical key order)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for seq, record in enumerate(records, 1):
        record = {"seq": seq, "id": f"r{seq}", **record}
        lines.append(orjson.dumps(canonical_order(record)) + b"\n")
    path.write_bytes(b"".join(lines))
    return path
