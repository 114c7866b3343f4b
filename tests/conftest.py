import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive headless Chromium are service tests too (``pytest -m "not services"``)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.services)
