"""``asr validate``: check ASR streams against the spec's rules (thin over ``validate.paths``)."""

from __future__ import annotations

import sys

import click
import orjson

from ..core.errors import UsageProblem
from .params import EXIT_USAGE, VALIDATE_EXITS, InputPath, fail


@click.command(epilog=VALIDATE_EXITS)
@click.argument("paths", nargs=-1, required=True, type=InputPath(dir_okay=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1), not only errors.")
def validate(paths: tuple[str, ...], fmt: str, strict: bool) -> None:
    """Check ASR streams against the spec's rules; exit 1 when any rule is broken.

    PATHS are stream files, folders (every *.asr.jsonl under them, as asr batch writes them,
    .zst and .gz too) or - for stdin. A native session log gets one finding saying so.
    Warnings (references to records the stream does not hold) are printed but fail only
    with --strict.
    """
    from ..validate.paths import validate_paths

    try:
        files, findings = validate_paths(paths)
    except UsageProblem as exc:
        fail(str(exc), EXIT_USAGE)
        return
    errors = sum(1 for f in findings if f.is_error)
    failed = bool(findings) if strict else errors > 0
    if fmt == "json":
        payload = {"files": len(files), "findings": [f.as_dict() for f in findings], "ok": not failed}
        click.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
    else:
        for finding in findings:
            click.echo(finding.describe())
        if findings:
            warnings = len(findings) - errors
            click.echo(
                f"{len(findings)} finding(s) in {len(files)} stream(s): {errors} error(s), {warnings} warning(s)",
                err=True,
            )
        else:
            click.echo(f"ok: {len(files)} stream(s), no findings", err=True)
    sys.exit(1 if failed else 0)
