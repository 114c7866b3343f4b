"""Every agent's adapter package, by the short name its adapter registers (profile §7).

Nothing is imported here. ``registry`` imports a package's ``adapter`` module (which registers
it) when the agent is named, chosen by detection, or all are listed; detection itself imports
only each package's ``sniff`` module, so converting one file loads one converter.
"""

#: short name -> the package under ``asr_adapters.adapters``
PACKAGES = {
    "claude-code": "claude_code",
    "cline": "cline",
    "codex": "codex",
    "copilot-cli": "copilot_cli",
    "cursor": "cursor",
    "droid": "droid",
    "gemini-cli": "gemini_cli",
    "openclaw": "openclaw",
    "opencode": "opencode",
    "openhands": "openhands",
    "pi": "pi",
    "qwen-code": "qwen_code",
    "t3code": "t3code",
}
