import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    module = sys.modules.get("test_properties") or sys.modules.get("reliability.test_properties")
    examples = getattr(module, "EXAMPLES", None)
    if examples:
        counts = ", ".join(f"{agent} {n}" for agent, n in sorted(examples.items()))
        terminalreporter.write_line(f"hypothesis examples per adapter: {counts}")
