"""Shared value objects: actors, blob and path references, capture states, assembly."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)


class ASRModel(BaseModel):
    """Base of every ASR model: unknown fields are kept and written back (ASR-218)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())

    #: The keys in the order they came, so that what is read and written back keeps its bytes
    #: even where a member the model declares (``usage``) came after members it does not.
    _order: tuple[str, ...] | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        model = handler(data)
        if isinstance(data, dict) and isinstance(model, ASRModel):
            model._order = tuple(data)
        return model

    @model_serializer(mode="wrap")
    def _keep_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        order = self._order
        if order is None or not isinstance(data, dict):
            return data
        return {**{key: data[key] for key in order if key in data}, **data}


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
