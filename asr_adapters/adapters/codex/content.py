"""Codex content parts (``input_text``, ``output_text``, ``input_image`` …) as ASR parts."""

from __future__ import annotations

from typing import Any

ENCRYPTED = "openai.encrypted_content"


def data_url_image(url: str) -> dict[str, Any] | None:
    """``data:image/png;base64,…`` as an image part; None for anything else."""
    if not url.startswith("data:"):
        return None
    meta, comma, payload = url.partition(",")
    if not comma:
        return None
    mime = meta[5:].split(";", 1)[0] or "application/octet-stream"
    if ";base64" not in meta:
        return None
    return {"type": "image", "mimeType": mime, "data": payload}


def image_part(native: dict[str, Any], url_key: str = "image_url") -> dict[str, Any]:
    """An image the model saw: inline bytes, or a link when Codex kept only a URL or file id."""
    url = native.get(url_key)
    part: dict[str, Any] | None = data_url_image(url) if isinstance(url, str) else None
    if part is None:
        if isinstance(url, str):
            part = {"type": "resource_link", "uri": url, "name": "image"}
        elif isinstance(native.get("file_id"), str):
            part = {"type": "resource_link", "uri": f"openai-file:{native['file_id']}", "name": "image"}
        else:
            part = {**native, "type": f"com.openai.codex/{native.get('type', 'unknown')}"}
            return part
    extras = {k: v for k, v in native.items() if k not in ("type", url_key, "file_id")}
    if extras:
        part["codex"] = extras
    return part


def convert_part(native: Any) -> dict[str, Any]:
    """One native content part. Unknown kinds keep their fields under a namespaced type,
    which readers skip and storage keeps (ASR-218)."""
    if not isinstance(native, dict):
        return {"type": "com.openai.codex/unknown", "value": native}
    kind = native.get("type")
    if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text") and isinstance(
        native.get("text"), str
    ):
        part: dict[str, Any] = {"type": "text", "text": native["text"]}
        if len(native) > 2:
            extras = {k: v for k, v in native.items() if k not in ("type", "text")}
            part["codex"] = {"type": kind, **extras} if kind not in ("input_text", "output_text") else extras
        return part
    if kind == "input_image":
        return image_part(native)
    if kind == "refusal" and isinstance(native.get("refusal"), str):
        return {"type": "refusal", "text": native["refusal"]}
    if kind == "encrypted_content" and isinstance(native.get("encrypted_content"), str):
        return {"type": "opaque", "format": ENCRYPTED, "data": native["encrypted_content"]}
    if kind == "input_audio" and isinstance(native.get("audio_url"), str):
        url = native["audio_url"]
        if url.startswith("data:") and ";base64," in url:
            meta, _, payload = url.partition(",")
            return {"type": "audio", "mimeType": meta[5:].split(";", 1)[0], "data": payload}
        return {"type": "resource_link", "uri": url, "name": "audio"}
    return {**native, "type": f"com.openai.codex/{kind if isinstance(kind, str) else 'unknown'}"}


def convert_parts(native: Any) -> list[dict[str, Any]]:
    if isinstance(native, str):
        return [{"type": "text", "text": native}]
    if not isinstance(native, list):
        return [] if native is None else [convert_part(native)]
    return [convert_part(p) for p in native]


def output_parts(output: Any) -> list[dict[str, Any]]:
    """A tool output: a string (kept exactly: it is what the model received) or parts."""
    if isinstance(output, str):
        return [{"type": "text", "text": output}]
    if isinstance(output, list):
        return convert_parts(output)
    if output is None:
        return []
    return [{"type": "data", "data": output}]
