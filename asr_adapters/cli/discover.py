"""The ``asr discover`` command (thin over ``batch.discover``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import orjson

from ..batch.discover import discover as discover_sessions
from ..batch.homes import agent_homes
from .params import AgentChoice, check_agents


@click.command(epilog="\b\nExit status: 0 listed (none found is said on stderr), 2 usage error.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--agent", "agents", type=AgentChoice(), multiple=True, help="Only this agent's sessions (repeatable).")
@click.option("--streams", is_flag=True, help="List every stream (subagents, threads); reads each input whole.")
@click.option("--homes", "show_homes", is_flag=True, help="Print every agent's home folders and stop.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
def discover(paths: tuple[Path, ...], agents: tuple[str, ...], streams: bool, show_homes: bool, as_json: bool) -> None:
    """List the sessions under PATHS, or in every agent's home, without converting them."""
    wanted = check_agents(agents)
    out = sys.stdout.buffer
    if show_homes:
        for home in agent_homes(None, wanted or None):
            row = {"agent": home.agent, "path": str(home.path), "exists": home.exists, "fallback": home.fallback}
            if as_json:
                out.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
            else:
                mark = "" if home.exists else "  (missing)"
                out.write(f"{home.agent:12} {home.path}{mark}\n".encode())
        out.flush()
        return
    found = discover_sessions(list(paths) if paths else None, agents=wanted or None, streams=streams)
    listed = 0
    for descriptor in found:
        listed += 1
        if as_json:
            out.write(orjson.dumps(descriptor.as_dict(), option=orjson.OPT_APPEND_NEWLINE))
        else:
            out.write(f"{descriptor.line()}\n".encode())
    out.flush()
    if listed == 0:
        where = [str(p) for p in paths] or [str(h.path) for h in agent_homes(None, wanted or None) if h.exists]
        if where:
            click.echo(f"asr discover: no sessions found under {', '.join(where)}", err=True)
        else:
            click.echo("asr discover: no sessions found: no agent home exists here (asr discover --homes)", err=True)
