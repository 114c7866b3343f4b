"""Shared value objects: actors, blob and path references, capture states, assembly."""

from __future__ import annotations

from typing import Annotated, Any, Literal

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
    """Normalized token usage of one model response (docs/format.md "Usage"): ``inputTokens``
    every input token, cached or not, with ``cacheReadTokens``/``cacheWriteTokens`` its parts
    from and to the cache; ``outputTokens`` every generated token, with ``reasoningTokens`` its
    reasoning part; ``totalTokens`` input + output. Each only where the source gives the numbers
    it needs; ``partial`` when the source recorded only a running count, not the final one."""

    inputTokens: TokenCount | None = Field(default=None, description="Every input token, cached or not.")
    outputTokens: TokenCount | None = Field(default=None, description="Every generated token, reasoning included.")
    cacheReadTokens: TokenCount | None = Field(default=None, description="The part of inputTokens read from the cache.")
    cacheWriteTokens: TokenCount | None = Field(
        default=None, description="The part of inputTokens written to the cache."
    )
    reasoningTokens: TokenCount | None = Field(default=None, description="The reasoning part of outputTokens.")
    totalTokens: TokenCount | None = Field(default=None, description="inputTokens + outputTokens.")
    partial: Literal[True] | None = Field(
        default=None,
        description="The source recorded only a running count for this response (a lower bound), not its final count.",
    )


JSONValue = Any
