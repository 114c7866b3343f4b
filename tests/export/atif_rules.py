"""The checks Harbor's ATIF pydantic models make beyond what their JSON Schema can say.

Restated in our words from the model validators of harbor 0.25.0
(``harbor/models/trajectories/{trajectory,step,content,subagent_trajectory_ref}.py``); the
JSON Schema beside this file (``atif.schema.json``) covers field names, types and required
members. Returns a list of problems (empty when the document passes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def problems(trajectory: dict[str, Any], where: str = "$") -> list[str]:
    found: list[str] = []
    steps = trajectory.get("steps", [])
    for index, step in enumerate(steps):
        at = f"{where}.steps[{index}]"
        if step.get("step_id") != index + 1:
            found.append(f"{at}: step_id {step.get('step_id')} is not {index + 1}")
        if step.get("timestamp") is not None:
            try:
                datetime.fromisoformat(step["timestamp"].replace("Z", "+00:00"))
            except ValueError:
                found.append(f"{at}: timestamp not ISO 8601")
        if step.get("source") != "agent":
            found += [f"{at}: {name} on a non-agent step" for name in AGENT_ONLY if step.get(name) is not None]
        if step.get("llm_call_count") == 0 and step.get("source") == "agent":
            found += [
                f"{at}: {name} with llm_call_count 0" for name in ("metrics", "reasoning_content") if name in step
            ]
        calls = {call["tool_call_id"] for call in step.get("tool_calls") or []}
        for result in (step.get("observation") or {}).get("results", []):
            if result.get("source_call_id") is not None and result["source_call_id"] not in calls:
                found.append(f"{at}: source_call_id {result['source_call_id']!r} is not a call of this step")
            for ref in result.get("subagent_trajectory_ref") or []:
                if ref.get("trajectory_id") is None and ref.get("trajectory_path") is None:
                    found.append(f"{at}: subagent ref with neither trajectory_id nor trajectory_path")
            found += _content_problems(result.get("content"), at)
        found += _content_problems(step.get("message"), at)
    seen: set[str] = set()
    for index, child in enumerate(trajectory.get("subagent_trajectories") or []):
        at = f"{where}.subagent_trajectories[{index}]"
        ident = child.get("trajectory_id")
        if ident is None or ident in seen:
            found.append(f"{at}: trajectory_id missing or not unique")
        seen.add(str(ident))
        found += problems(child, at)
    return found


def _content_problems(content: Any, at: str) -> list[str]:
    if not isinstance(content, list):
        return []
    found = []
    for part in content:
        if part.get("type") == "text" and (part.get("text") is None or "source" in part):
            found.append(f"{at}: text part needs text and no source")
        if part.get("type") in ("image", "audio") and (part.get("source") is None or "text" in part):
            found.append(f"{at}: media part needs a source and no text")
    return found
