"""Derive the ATIF JSON Schema kept as test data from Harbor's published pydantic models.

Harbor (the ATIF owner) needs Python >= 3.12 and publishes no JSON Schema file, so the test
data is generated from the models in its wheel: only ``harbor/models/trajectories/*.py`` is
loaded (they depend on pydantic alone), and ``Trajectory.model_json_schema()`` is written with
the descriptions removed (their prose stays theirs). Usage::

    pip download harbor==0.25.0 --no-deps --only-binary=:all: --python-version 3.12 -d /tmp/h
    python scripts/derive_atif_schema.py /tmp/h/harbor-0.25.0-py3-none-any.whl tests/export/atif.schema.json
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

PACKAGE = "harbor/models/trajectories/"


def _strip_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _strip_descriptions(value) for key, value in node.items() if key != "description"}
    if isinstance(node, list):
        return [_strip_descriptions(value) for value in node]
    return node


def derive(wheel: Path) -> dict[str, Any]:
    """Load only the trajectory models from the wheel and return their JSON Schema."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory() as root, zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith(PACKAGE) and name.endswith(".py"):
                archive.extract(name, root)
        for package in ("harbor", "harbor/models"):
            (Path(root) / package / "__init__.py").write_text("")
        sys.path.insert(0, root)
        module = importlib.import_module("harbor.models.trajectories.trajectory")
        schema = _strip_descriptions(module.Trajectory.model_json_schema())
    schema["$comment"] = (
        f"Derived from {wheel.name} (sha256 {digest}), harbor/models/trajectories/trajectory.py "
        "Trajectory.model_json_schema() by scripts/derive_atif_schema.py; descriptions removed. "
        "Model validators (sequential step ids, observation source_call_id in the step's tool_calls, "
        "agent-only step fields, content part shape, unique embedded trajectory_id) are not "
        "expressible here and are checked by tests/export/atif_rules.py."
    )
    return schema


if __name__ == "__main__":
    result = derive(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
