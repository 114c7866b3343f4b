"""``asr agents``: the agents this version reads."""

from __future__ import annotations

import click
import orjson

from .. import registry
from .params import SIMPLE_EXITS


@click.command(epilog=SIMPLE_EXITS)
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line: name, registry name, description.")
def agents(as_json: bool) -> None:
    """List the agents this version reads (the names --agent takes)."""
    for adapter in registry.all_adapters():
        if as_json:
            row = {"name": adapter.name, "registryName": adapter.registry_name, "description": adapter.description}
            click.echo(orjson.dumps(row).decode())
        else:
            click.echo(f"{adapter.name:12} {adapter.registry_name:28} {adapter.description}")
