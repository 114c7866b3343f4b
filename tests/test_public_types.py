"""Types reach users (issue 32 item 3): the package ships ``py.typed``, so a type checker on a
user's script sees the public functions' real types, and the callable modules
(``asr_adapters.convert``, ``validate``, ``export``, ``stats``) show their functions' parameters
to ``inspect.signature`` and ``help()``."""

from __future__ import annotations

import inspect
import os
import pydoc
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import asr_adapters

ROOT = Path(__file__).resolve().parents[1]

USER_SCRIPT = """\
import asr_adapters

findings = asr_adapters.validate("out.asr.jsonl")
reveal_type(findings)
conversion = asr_adapters.convert("rollout.jsonl", as_dicts=True)
reveal_type(conversion)
wrong: str = asr_adapters.export([], to="atif")
"""


@pytest.mark.parametrize(
    ("name", "parameter"), [("convert", "as_dicts"), ("validate", "src"), ("export", "to"), ("stats", "paths")]
)
def test_the_callable_modules_show_their_functions_parameters(name: str, parameter: str) -> None:
    module = getattr(asr_adapters, name)
    signature = inspect.signature(module)
    assert parameter in signature.parameters
    assert "args" not in signature.parameters and "kwargs" not in signature.parameters


def test_py_typed_is_shipped_as_package_data() -> None:
    """The marker is in the package and in what a wheel of it carries (package-data)."""
    assert (ROOT / "asr_adapters" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["asr_adapters"]


@pytest.mark.heavy  # builds and installs a wheel, runs mypy (.ci/run runs -m heavy)
def test_a_type_checker_sees_the_public_types_of_the_installed_package(tmp_path: Path) -> None:
    """mypy on a user's script, finding the package as an installed one (on the interpreter's
    path, where only ``py.typed`` makes it read the package's types)."""
    pytest.importorskip("mypy", reason="mypy is not installed (the test extra)")
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--python-executable", sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    out = result.stdout
    assert "py.typed" not in out and "import-untyped" not in out, out
    assert (
        'Revealed type is "builtins.list[asr_adapters.validate' in out
        or 'Revealed type is "list[asr_adapters.validate' in out
    ), out
    assert 'Revealed type is "asr_adapters.convert.Conversion"' in out, out
    assert 'expression has type "Export"' in out, out


def test_help_names_the_parameters() -> None:
    for name, parameter in (("convert", "as_dicts"), ("validate", "src")):
        text = pydoc.render_doc(getattr(asr_adapters, name), renderer=pydoc.plaintext)
        assert parameter in text and "*args, **kwargs" not in text.split("FUNCTIONS")[-1][:400], text[:800]
