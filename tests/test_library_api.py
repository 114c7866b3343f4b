"""The public API is what docs/library.md lists, and nothing leaks or shadows."""

from __future__ import annotations

import re
import types
from pathlib import Path

import asr_adapters
from asr_adapters import Conversion

DOC = (Path(__file__).resolve().parent.parent / "docs" / "library.md").read_text(encoding="utf-8")
CASE = "golden/claude-code/subagent-folder/input.jsonl"


def _documented() -> set[str]:
    section = DOC.split("## The public API", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)[`(]", row.split(" | ")[0])}


def test_public_names_are_exactly_the_documented_ones() -> None:
    documented = _documented()
    assert "read_records" in documented and "read_models" in documented
    assert set(asr_adapters.__all__) == documented
    public = {n for n in dir(asr_adapters) if not n.startswith("_")} | {"__version__"}
    modules = {n for n in public if isinstance(getattr(asr_adapters, n), types.ModuleType)}
    assert public - modules | {"convert", "export", "stats", "validate"} == documented
    assert "Any" not in public and "annotations" not in public


def test_validate_and_convert_do_not_shadow_their_subpackages() -> None:
    import asr_adapters.convert as convert_module
    import asr_adapters.validate as validate_module

    assert hasattr(validate_module, "StreamValidator") and hasattr(convert_module, "Conversion")
    assert asr_adapters.validate is validate_module and asr_adapters.convert is convert_module
    import asr_adapters.export as export_module

    assert asr_adapters.export is export_module and hasattr(export_module, "FORMATS")
    import asr_adapters.stats as stats_module

    assert asr_adapters.stats is stats_module and hasattr(stats_module, "session_summary")
    root = Path(__file__).resolve().parent.parent
    records = list(asr_adapters.convert(root / CASE, as_dicts=True))
    assert records[0]["type"] == "session"
    stream = root / "golden" / "claude-code" / "subagent-folder" / "expected.asr.jsonl"
    assert asr_adapters.validate(stream) == []


def test_accounting_counts_streams() -> None:
    conversion = Conversion(Path(__file__).resolve().parent.parent / CASE, as_dicts=True)
    for stream in conversion.streams():
        for _ in stream.records:
            pass
    assert conversion.accounting.as_dict()["streams"] == len(conversion.keys) == 2
