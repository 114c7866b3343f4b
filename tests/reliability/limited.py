"""Running ``asr`` in a child process under hard memory and CPU limits (``resource``), so a test
of bounded memory or time fails by the kernel's limit, never by a timing."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

ASR = Path(sys.executable).parent / "asr"
#: A plain ``asr convert`` of a small file needs well under 100 MiB of address space.
DEFAULT_MEMORY = 512 << 20
DEFAULT_CPU_SECONDS = 60


def run_limited(
    *args: str,
    memory: int = DEFAULT_MEMORY,
    cpu_seconds: int = DEFAULT_CPU_SECONDS,
    stdin: bytes | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``asr ARGS`` with RLIMIT_AS = ``memory`` bytes and RLIMIT_CPU = ``cpu_seconds``: going past
    either kills it (MemoryError or SIGXCPU/SIGKILL), which the caller sees as a failed run."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))

    return subprocess.run(
        [str(ASR), *args],
        input=stdin,
        capture_output=True,
        preexec_fn=limit,
        cwd=cwd,
        timeout=cpu_seconds * 4,
        check=False,
    )


def one_error(result: subprocess.CompletedProcess[bytes]) -> str:
    """The single ``asr: error:`` line of a run that must fail cleanly (exit 1, no traceback)."""
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 1, (result.returncode, stderr[-2000:])
    assert "Traceback" not in stderr and "MemoryError" not in stderr, stderr[-2000:]
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("asr: error: "), stderr[-2000:]
    return lines[0]
