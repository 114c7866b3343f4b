"""``import asr_adapters`` and each ``asr`` command load only what they use (issue #28).

A small conversion used to spend most of its time importing: the batch machinery (process
pools, the manifest, object stores) at ``import asr_adapters``, the HTML viewer (jinja2,
markdown-it) and the exporters for every command. Each case runs a fresh interpreter and lists
the modules it holds when it exits; no timing is measured.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from golden_support import GOLDEN

from asr_adapters.adapters import PACKAGES

SESSION = GOLDEN / "codex" / "03-user-message-parts" / "input.jsonl"
STREAM = GOLDEN / "codex" / "03-user-message-parts" / "expected.asr.jsonl"

_RECORD = """
import atexit, sys
listing = sys.argv[1]
def record():
    with open(listing, "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(record)
sys.argv = ["asr", *sys.argv[2:]]
if sys.argv[1:2] == ["import"]:
    import asr_adapters
else:
    from asr_adapters.cli import main
    main()
"""

BATCH_MACHINERY = ("asr_adapters.batch.runner", "asr_adapters.batch.pool", "multiprocessing", "concurrent.futures")
VIEWER = ("asr_adapters.view", "jinja2", "markdown_it")
RENDERERS = ("asr_adapters.view.html", "jinja2", "markdown_it")
EXPORTERS = ("asr_adapters.export",)
VALIDATOR = ("asr_adapters.validate",)
ADAPTERS = ("asr_adapters.adapters",)
#: every agent's package (``--agent``'s choices are listed from ``PACKAGES`` alone)
AGENT_PACKAGES = tuple(f"asr_adapters.adapters.{package}" for package in PACKAGES.values())


def _modules(args: list[str], tmp_path: Path) -> set[str]:
    listing = tmp_path / "modules.txt"
    subprocess.run([sys.executable, "-c", _RECORD, str(listing), *args], cwd=tmp_path, capture_output=True, check=False)
    return set(listing.read_text().split())


def _loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted({p for p in packages for m in modules if m == p or m.startswith(p + ".")})


def test_import_asr_adapters_loads_nothing_it_was_not_asked_for(tmp_path: Path) -> None:
    modules = _modules(["import"], tmp_path)
    assert _loaded(modules, BATCH_MACHINERY + VIEWER + EXPORTERS + VALIDATOR + ADAPTERS) == []
    assert sum(1 for m in modules if m.startswith("asr_adapters")) <= 5, sorted(modules)


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["convert", str(SESSION), "-o", "out.asr.jsonl"], BATCH_MACHINERY + VIEWER + EXPORTERS),
        (
            ["convert", "--no-check", str(SESSION), "-o", "out.asr.jsonl"],
            BATCH_MACHINERY + VIEWER + EXPORTERS + VALIDATOR,
        ),
        (["convert", "--help"], BATCH_MACHINERY + VIEWER + EXPORTERS + VALIDATOR + AGENT_PACKAGES),
        (["validate", str(STREAM)], BATCH_MACHINERY + VIEWER + EXPORTERS + ADAPTERS),
        (["agents"], BATCH_MACHINERY + VIEWER + EXPORTERS + VALIDATOR),
        (["schema"], BATCH_MACHINERY + VIEWER + EXPORTERS + VALIDATOR + ADAPTERS),
        (["export", "--help"], BATCH_MACHINERY + VIEWER + VALIDATOR + ADAPTERS),
        (["show", "--help"], BATCH_MACHINERY + RENDERERS + EXPORTERS + VALIDATOR + ADAPTERS),
        (["discover", "--help"], VIEWER + EXPORTERS + VALIDATOR),
    ],
    ids=[
        "convert FILE",
        "convert --no-check FILE",
        "convert --help",
        "validate",
        "agents",
        "schema",
        "export",
        "show",
        "discover",
    ],
)
def test_each_command_loads_only_what_it_uses(args: list[str], refused: tuple[str, ...], tmp_path: Path) -> None:
    modules = _modules(args, tmp_path)
    assert "asr_adapters.cli" in modules, "the command did not run"
    assert _loaded(modules, refused) == []


def test_show_and_batch_still_load_their_machinery(tmp_path: Path) -> None:
    """The other side: a page rendered loads the renderers; a batch run loads the pool."""
    page = tmp_path / "page.html"
    assert _loaded(_modules(["show", str(STREAM), "-o", str(page)], tmp_path), RENDERERS) == list(RENDERERS)
    out = tmp_path / "archive"
    batch = _modules(["batch", str(SESSION), "-o", str(out), "--jobs", "1", "--quiet"], tmp_path)
    assert "asr_adapters.batch.runner" in batch and page.is_file() and any(out.rglob("*.asr.jsonl"))


#: what a small conversion that redacts nothing, spills nothing and writes no socket never needs:
#: each was loaded by every ``asr convert`` (together about a sixth of its start-up instructions)
UNNEEDED = (
    "asr_adapters.redact.policy",  # the --redact policy (a frozen dataclass)
    "getpass",
    "secrets",
    "socket",
    "sqlite3",  # core.spill and core.digests: at the first spill
    "tempfile",  # core.spool, cli_convert: only when records must wait or a stream is held
    "_hashlib",  # OpenSSL, loaded by hashlib; core.digests takes blake2b from _blake2
    "base64",  # core.spill: only a spilled bytes value
    "click.shell_completion",  # cli.params: only when a shell asks for completions
)


def test_a_small_conversion_loads_no_redaction_spill_or_temporary_file_machinery(tmp_path: Path) -> None:
    modules = _modules(["convert", str(SESSION), "-o", "out.asr.jsonl"], tmp_path)
    assert "asr_adapters.cli" in modules and (tmp_path / "out.asr.jsonl").is_file()
    assert sorted(m for m in UNNEEDED if m in modules) == []


def test_redacting_still_loads_the_policy(tmp_path: Path) -> None:
    modules = _modules(["convert", "--redact", str(SESSION), "-o", "out.asr.jsonl"], tmp_path)
    assert "asr_adapters.redact.policy" in modules and (tmp_path / "out.asr.jsonl").is_file()


def test_converting_one_file_imports_one_converter(tmp_path: Path) -> None:
    """Detection asks every agent's ``sniff`` module; only the chosen agent's converter loads."""
    modules = _modules(["convert", str(SESSION), "-o", "out.asr.jsonl"], tmp_path)
    converters = sorted(m for m in modules if m.startswith("asr_adapters.adapters.") and m.endswith(".adapter"))
    assert converters == ["asr_adapters.adapters.codex.adapter"]
    sniffs = {m for m in modules if m.startswith("asr_adapters.adapters.") and m.endswith(".sniff")}
    assert len(sniffs) == len(PACKAGES)


_DATACLASSES = """
import atexit, dataclasses, sys
listing = sys.argv[1]
def record():
    made = sorted(
        f"{name}.{value.__name__}"
        for name, module in list(sys.modules.items())
        if name.startswith("asr_adapters") and module is not None
        for value in list(vars(module).values())
        if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
    )
    with open(listing, "w") as out:
        out.write("\\n".join(made))
atexit.register(record)
sys.argv = ["asr", *sys.argv[2:]]
from asr_adapters.cli import main
main()
"""

#: ``asr_adapters.Accounting``, ``Diagnostic`` and ``Finding``
PUBLIC_DATACLASSES = (
    "asr_adapters.core.accounting.Accounting",
    "asr_adapters.core.accounting.Diagnostic",
    "asr_adapters.validate.finding.Finding",
)
CLAUDE_SESSION = GOLDEN / "claude-code" / "fold-tool-calls" / "input.jsonl"


@pytest.mark.parametrize("session", [SESSION, CLAUDE_SESSION], ids=["codex", "claude-code"])
def test_a_small_conversion_compiles_no_dataclass(session: Path, tmp_path: Path) -> None:
    """A dataclass compiles its methods with exec at import, about 2.5 M instructions a class:
    the classes ``asr convert`` loads are ``core.valueclass`` classes (issue 28, target 3), but
    for the library API's public ones, which users may hand to ``dataclasses`` functions."""
    listing = tmp_path / "dataclasses.txt"
    command = [sys.executable, "-c", _DATACLASSES, str(listing), "convert", str(session), "-o", "out.asr.jsonl"]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "out.asr.jsonl").is_file()
    assert listing.read_text().split() == sorted(PUBLIC_DATACLASSES)


_LAZY = """
import importlib, sys
from asr_adapters import registry
from asr_adapters.adapters import PACKAGES
from asr_adapters.core.lazyre import LazyPattern
from asr_adapters.core.source import Source
modules = [importlib.import_module(f"asr_adapters.adapters.{p}.sniff") for p in PACKAGES.values()]
lazy = [v for m in modules for v in vars(m).values() if isinstance(v, LazyPattern)]
before = sum(p._compiled is not None for p in lazy)
agent = registry.detect(Source(sys.argv[1])).name
after = sum(p._compiled is not None for p in lazy)
print(len(lazy), before, after, agent)
"""


def test_detection_compiles_only_the_sniff_patterns_it_reaches(tmp_path: Path) -> None:
    """The sniff modules' patterns are ``LazyPattern``s: importing them compiles none, and
    detecting a Claude Code session compiles only those the other agents' tests reach."""
    done = subprocess.run(
        [sys.executable, "-c", _LAZY, str(CLAUDE_SESSION)], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    total, before, after, agent = done.stdout.split()
    assert agent == "claude-code"
    assert int(total) >= 25 and int(before) == 0
    assert 0 < int(after) < int(total)
