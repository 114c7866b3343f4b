import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from golden_support import SHARED_SAMPLES

#: fixtures that convert or index the shared samples
_SAMPLE_FIXTURES = {"samples_archive", "samples_index"}


def _reads_samples(item: pytest.Item) -> bool:
    """A test over the real session files of ``$ASR_SAMPLES``: a parameter under that folder,
    a fixture that converts them, or a module that reads them all (``SAMPLES_MODULE``)."""
    if _SAMPLE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if getattr(getattr(item, "module", None), "SAMPLES_MODULE", False):
        return True
    callspec = getattr(item, "callspec", None)
    for value in callspec.params.values() if callspec is not None else ():
        if isinstance(value, Path) and (value == SHARED_SAMPLES or SHARED_SAMPLES in value.parents):
            return True
    return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive headless Chromium are service tests too (``pytest -m "not services"``);
    tests over the shared samples are ``samples`` tests (``pytest -m samples``)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.services)
        if _reads_samples(item):
            item.add_marker(pytest.mark.samples)
