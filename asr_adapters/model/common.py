"""Shared value objects: actors, blob and path references, capture states, assembly."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field


class ASRModel(BaseModel):
    """Base of every ASR model: unknown fields are kept and written back (ASR-218)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())


class Actor(ASRModel):
    """An actor reference (profile §3): a session with an optional address, or a participant."""

    session: str | None = None
    address: str | None = None
    participant: str | None = None


class Recipient(ASRModel):
    actor: Actor
    kind: str | None = None


class BlobRef(ASRModel):
    """Bytes kept outside the stream, named by their hash."""

    blob: str
    size: int | None = None
    mimeType: str | None = None


class PathRef(ASRModel):
    """A file path, relative to ``root`` when one is known."""

    root: str | None
    path: str


class CaptureState(ASRModel):
    """How much of a field the source holds: absent, truncated, masked or redacted."""

    state: str
    reason: str | None = None


class Assembly(ASRModel):
    """One record built from several native items."""

    mode: str
    sourceIds: list[str] = Field(default_factory=list)


class Derivation(ASRModel):
    method: str
    from_: int | None = Field(default=None, alias="from")


class Platform(ASRModel):
    messageIds: list[str] | None = None
    replyTo: str | None = None


class AgentInfo(ASRModel):
    name: str
    version: str | None = None


class SourceInfo(ASRModel):
    format: str | None = None
    variant: str | None = None
    file: str | None = None


#: A token count: an integer, never negative, never a string or a boolean.
TokenCount = Annotated[int, Field(strict=True, ge=0)]


class Usage(ASRModel):
    """Normalized token usage of one model response (docs/format.md): each key only where the
    source records that number, never computed from the others."""

    inputTokens: TokenCount | None = None
    outputTokens: TokenCount | None = None
    cacheReadTokens: TokenCount | None = None
    cacheWriteTokens: TokenCount | None = None
    reasoningTokens: TokenCount | None = None
    totalTokens: TokenCount | None = None


JSONValue = Any
