"""``asr schema``: the JSON Schema of an ASR record."""

from __future__ import annotations

import click
import orjson

from .params import SIMPLE_EXITS


@click.command(epilog=SIMPLE_EXITS)
def schema() -> None:
    """Print the JSON Schema (2020-12) of an ASR record, for standard validators."""
    from ..model.api import json_schema

    click.echo(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
