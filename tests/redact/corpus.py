"""A corpus made by the tests: every agent's golden inputs with secrets planted in them.

Each textual string of a native input (prose, commands, outputs, titles, paths, plan files,
vendor-only items, companion files, SQL string literals) gets a secret put before it, one
kind after another, in one of five disguises: written plainly, split across a line break, in
base64, in a URL, and inside JSON held in a string (raw tool arguments are planted inside
their JSON and written back as a string, one character of each secret spelled as a ``\\u``
escape). Every planted secret is made up here (random, from
a seed per case), so any of its bytes in an output is a leak.
"""

from __future__ import annotations

import base64
import json
import random
import re
import shutil
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from golden_support import GoldenCase, sql_script

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
#: native keys whose strings are structure (ids, types, roles, times), never planted
_STRUCTURE_KEY = re.compile(
    r"(?i)^(?:.*(?:id|ids|uuid|type|role|kind|status|timestamp|time|ts|at|hash|sha|version|model|name|provider|"
    r"signature|encrypted_content|data|mimeType|media_type|format|sender|from|to|channel|event|mode|level|"
    r"source|key|path)|cwd|slug|state|phase|visibility|subtype)$"
)


@dataclass
class Plant:
    """One planted secret: its kind, its disguise and the strings that must not appear."""

    kind: str
    disguise: str
    needles: list[str]
    #: the string the secret was put before (what must survive it)
    original: str = ""


@dataclass
class Planter:
    rng: random.Random
    plants: list[Plant] = field(default_factory=list)
    turn: int = 0

    def _token(self, alphabet: str, size: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(size))

    def _secret(self) -> tuple[str, str, str]:
        """(kind, the text as planted, the secret core), the kinds in turn."""
        t = self._token
        kinds: list[Callable[[], tuple[str, str, str]]] = [
            lambda: ("aws-access-key", (k := "AKIA" + t(_UPPER, 16)), k),
            lambda: ("github-token", (k := "ghp_" + t(_ALNUM, 36)), k),
            lambda: ("slack-token", (k := f"xoxb-{t(string.digits, 11)}-{t(string.digits, 12)}-{t(_ALNUM, 24)}"), k),
            lambda: ("stripe-key", (k := "sk_live_" + t(_ALNUM, 24)), k),
            lambda: ("openai-key", (k := "sk-proj-" + t(_ALNUM, 48)), k),
            lambda: ("anthropic-key", (k := "sk-ant-api03-" + t(_ALNUM, 64)), k),
            lambda: ("google-api-key", (k := "AIza" + t(_ALNUM, 35)), k),
            lambda: ("jwt", (k := f"eyJhbGciOiJIUzI1NiJ9.eyJ{t(_ALNUM, 30)}.{t(_ALNUM, 43)}"), k),
            lambda: ("url-password", f"postgres://app:{(k := t(_ALNUM, 20))}@db.internal.example:5432/prod", k),
            lambda: (
                "auth-header",
                f'curl -H "Authorization: Bearer {(k := t(_ALNUM, 32))}" https://api.example.net',
                k,
            ),
            lambda: ("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={(k := t(_ALNUM + '/+', 40))}", k),
            lambda: ("secret-assignment", f"DB_PASSWORD={(k := t(_ALNUM, 18))}", k),
            lambda: ("private-key", *self._private_key()),
        ]
        kind = kinds[self.turn % len(kinds)]
        return kind()

    def _private_key(self) -> tuple[str, str]:
        body = "\n".join(self._token(_ALNUM + "+/", 64) for _ in range(4))
        return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----", body

    def plant_path(self, original: str) -> str:
        """A file path with an access key as one of its folders (``/srv/AKIA…/src/app.py``)."""
        core = "AKIA" + self._token(_UPPER, 16)
        self.plants.append(Plant("aws-access-key", "path", [core]))
        return f"/srv/{core}{original}"

    def plant(self, original: str, *, in_json: bool = False) -> str:
        """``original`` with a secret before it (the disguises in turn)."""
        kind, text, core = self._secret()
        disguises = ["plain", "split", "base64", "url", "json"]
        disguise = "json" if in_json else disguises[self.turn % len(disguises)]
        if disguise == "split" and kind == "private-key":
            disguise = "plain"  # already over several lines
        if disguise == "url" and kind not in ("url-password", "auth-header"):
            disguise = "url"
            text = f"https://hooks.example.org/notify?access_token={core}&team=web" if "\n" not in core else text
        self.turn += 1
        needles = [core] if "\n" not in core else [line for line in core.split("\n")]
        if disguise == "split":
            at = text.index(core) + len(core) // 2
            text = text[:at] + "\n" + text[at:]
            needles += [core[: len(core) // 2], core[len(core) // 2 :]]
        elif disguise == "base64":
            blob = base64.b64encode(f"export TOKEN_VALUE={text}\n".encode()).decode()
            text = f"echo {blob} | base64 -d"
            needles.append(blob)
        self.plants.append(Plant(kind, disguise, needles, original))
        return f"{text} {original}"


def _plantable(key: str | None, value: str) -> bool:
    if key is not None and _STRUCTURE_KEY.match(key):
        return False
    return len(value) >= 12 and (" " in value or "\n" in value)


#: keys whose value is a file path a tool was given: a secret planted as a folder of it
_FILE_PATH_KEYS = frozenset({"file_path", "filePath", "notebook_path", "absolutePath"})


def _walk(value: Any, planter: Planter, key: str | None = None) -> Any:
    if isinstance(value, str) and key in _FILE_PATH_KEYS and value.startswith("/"):
        return planter.plant_path(value)
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped.startswith(("{", "[")):
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if isinstance(inner, (dict, list)):  # JSON in a string: planted inside, written back
                first = len(planter.plants)
                written = json.dumps(_walk_json_string(inner, planter))
                return _escaped_inside(written, planter.plants[first:])
        return planter.plant(value) if _plantable(key, value) else value
    if isinstance(value, dict):
        return {k: _walk(v, planter, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, planter, key) for v in value]
    return value


def _walk_json_string(value: Any, planter: Planter, key: str | None = None) -> Any:
    if isinstance(value, str):
        return planter.plant(value, in_json=True) if _plantable(key, value) else value
    if isinstance(value, dict):
        out = {k: _walk_json_string(v, planter, k) for k, v in value.items()}
        if not any(isinstance(v, str) and _plantable(k, v) for k, v in value.items()):
            out["note"] = planter.plant("planted here", in_json=True)  # one per JSON document at least
        return out
    if isinstance(value, list):
        return [_walk_json_string(v, planter, key) for v in value]
    return value


def _escaped_inside(written: str, plants: list[Plant]) -> str:
    """JSON text with one character in the middle of each secret planted in it spelled as a
    ``\\u`` escape (as a source that escapes more than it must writes it): only the decoded
    string holds the secret whole, so only a scan of it finds it, and its replacement must
    take the escaped spelling. The halves around the escape become needles too."""
    for plant in plants:
        core = plant.needles[0]
        if len(plant.needles) > 1 or written.count(core) != 1:
            continue  # a private key's lines; a core written otherwise
        middle = len(core) // 2
        written = written.replace(core, f"{core[:middle]}\\u{ord(core[middle]):04x}{core[middle + 1 :]}")
        plant.needles += [core[:middle], core[middle + 1 :]]
    return written


_SQL_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def _plant_sql(text: str, planter: Planter) -> str:
    def literal(match: re.Match[str]) -> str:
        value = match.group(1).replace("''", "'")
        if match.start() > 0 and match.string[match.start() - 1].isalnum():
            return match.group()
        planted = _walk(value, planter)
        return "'" + planted.replace("'", "''") + "'"

    out = []
    for line in text.splitlines(keepends=True):  # the schema's DDL stays as it is
        out.append(_SQL_LITERAL.sub(literal, line) if line.lstrip().upper().startswith("INSERT") else line)
    return "".join(out)


def plant_case(case: GoldenCase, target: Path, seed: int) -> Planter:
    """``case``'s folder copied into ``target`` with secrets planted in its inputs."""
    planter = Planter(random.Random(seed))
    shutil.copytree(case.folder, target, symlinks=True)
    for path in sorted(target.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.name == "README.md" or path.name.startswith("expected"):
            continue
        if path.suffix == ".jsonl":
            lines = []
            for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
                try:
                    value = json.loads(line)
                except ValueError:
                    lines.append(line)
                    continue
                end = "\n" if line.endswith("\n") else ""
                lines.append(json.dumps(_walk(value, planter), ensure_ascii=False) + end)
            path.write_text("".join(lines), encoding="utf-8")
        elif path.suffix == ".json":
            try:
                value = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                continue
            path.write_text(json.dumps(_walk(value, planter), ensure_ascii=False, indent=1), encoding="utf-8")
        elif path.suffix == ".sql":  # its includes inlined from the golden folder, then planted
            script = sql_script(case.folder / path.relative_to(target))
            path.write_text(_plant_sql(script, planter), encoding="utf-8")
        elif path.suffix == ".md":
            path.write_text(planter.plant(path.read_text(encoding="utf-8")), encoding="utf-8")
    return planter


def strings_of(value: Any, key: str | None = None) -> list[str]:
    """Every string value of a record (ids and structure included), for the survival check."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k != "capture" for s in strings_of(v, k)]
    if isinstance(value, list):
        return [s for v in value for s in strings_of(v, key)]
    return []
