"""Terminal output as a reader sees it in a terminal: ANSI colours and styles, no control glyphs.

Tool output and harness notices keep the escape sequences the terminal got, byte for byte, in
the record (ASR-211). For display only, SGR sequences (``ESC [ … m``: bold, dim, italic,
underline, the 16, 256 and 24-bit colours) become spans, and every other escape sequence
(cursor moves, erases, OSC titles and links) is left out. The page's HTML is built from escaped
text and numbers only: nothing from the session reaches an attribute.
"""

from __future__ import annotations

import re
from html import escape

from markupsafe import Markup

#: CSI sequences (``ESC [`` params, intermediates, a final byte), OSC sequences (``ESC ]`` to BEL
#: or ``ESC \\``) and two-byte escapes; C1 CSI (0x9b) too.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x1b"
)

_STYLES = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 9: "strike"}
_STYLE_OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 29: ("strike",)}

#: The xterm palette of the 16 basic colours (normal, then bright).
_PALETTE = (
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
)  # fmt: skip


def has_escapes(text: str) -> bool:
    return "\x1b" in text or "\x9b" in text


def strip(text: str) -> str:
    """The text without its escape sequences (for Markdown, whose fences cannot colour)."""
    return _ESCAPE.sub("", text) if has_escapes(text) else text


def _color_256(n: int) -> str:
    if n < 16:
        return _PALETTE[n]
    if n < 232:
        n -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return f"#{steps[n // 36]:02x}{steps[n // 6 % 6]:02x}{steps[n % 6]:02x}"
    level = 8 + (n - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


class _State:
    """The SGR state: the styles and colours the next text is shown in."""

    def __init__(self) -> None:
        self.styles: set[str] = set()
        self.fg: str | None = None
        self.bg: str | None = None

    def reset(self) -> None:
        self.styles.clear()
        self.fg = self.bg = None

    def apply(self, params: list[int]) -> None:
        i = 0
        while i < len(params):
            code = params[i]
            if code == 0:
                self.reset()
            elif code in _STYLES:
                self.styles.add(_STYLES[code])
            elif code in _STYLE_OFF:
                self.styles.difference_update(_STYLE_OFF[code])
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.fg = _PALETTE[code - 30 if code < 90 else code - 82]
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.bg = _PALETTE[code - 40 if code < 100 else code - 92]
            elif code == 39:
                self.fg = None
            elif code == 49:
                self.bg = None
            elif code in (38, 48) and i + 1 < len(params):
                color, used = self._extended(params[i + 1 :])
                if color is not None:
                    if code == 38:
                        self.fg = color
                    else:
                        self.bg = color
                i += used
            i += 1

    @staticmethod
    def _extended(rest: list[int]) -> tuple[str | None, int]:
        if rest[0] == 5 and len(rest) >= 2:
            return (_color_256(rest[1]) if 0 <= rest[1] <= 255 else None), 2
        if rest[0] == 2 and len(rest) >= 4:
            r, g, b = rest[1:4]
            if all(0 <= v <= 255 for v in (r, g, b)):
                return f"#{r:02x}{g:02x}{b:02x}", 4
            return None, 4
        return None, 1

    def open_tag(self) -> str:
        if not self.styles and self.fg is None and self.bg is None:
            return ""
        classes = " ".join(f"ansi-{name}" for name in sorted(self.styles))
        style = ";".join(
            f"{prop}:{value}" for prop, value in (("color", self.fg), ("background-color", self.bg)) if value
        )
        return f'<span class="ansi {classes}"' + (f' style="{style}"' if style else "") + ">"


def _params(sequence: str) -> list[int] | None:
    """The parameters of an SGR sequence, None for any other sequence."""
    body = sequence[2:] if sequence.startswith("\x1b[") else sequence[1:]
    if not body.endswith("m") or any(c not in "0123456789;:" for c in body[:-1]):
        return None
    return [int(p) if p.isdigit() else 0 for p in re.split("[;:]", body[:-1])] if body[:-1] else [0]


def to_html(text: str) -> Markup | str:
    """``text`` escaped, its SGR styles as spans, every other escape sequence left out; text
    with no escape sequence is returned as it is (the template escapes it)."""
    if not has_escapes(text):
        return text
    state = _State()
    out: list[str] = []
    position = 0
    tag = ""
    for match in _ESCAPE.finditer(text):
        if match.start() > position:
            chunk = escape(text[position : match.start()], quote=False)
            out.append(f"{tag}{chunk}</span>" if tag else chunk)
        position = match.end()
        params = _params(match.group())
        if params is not None:
            state.apply(params)
            tag = state.open_tag()
    if position < len(text):
        chunk = escape(text[position:], quote=False)
        out.append(f"{tag}{chunk}</span>" if tag else chunk)
    return Markup("".join(out))
