"""Content parts (MCP content blocks plus the ASR part types)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from .common import ASRModel, BlobRef, Derivation


class PartBase(ASRModel):
    """Members any part may carry (ASR-224, derivation)."""

    author: str | None = None
    origin: str | None = None
    phase: str | None = None
    derivation: Derivation | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class TextPart(PartBase):
    type: Literal["text"] = "text"
    text: str


class ImagePart(PartBase):
    type: Literal["image"] = "image"
    mimeType: str
    data: str | None = None
    blob: BlobRef | None = None


class AudioPart(PartBase):
    type: Literal["audio"] = "audio"
    mimeType: str
    data: str | None = None
    blob: BlobRef | None = None


class ResourceLinkPart(PartBase):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    size: int | None = None


class EmbeddedResource(PartBase):
    uri: str
    mimeType: str | None = None
    text: str | None = None
    blob: str | None = None
    blobRef: BlobRef | None = None


class ResourcePart(PartBase):
    type: Literal["resource"] = "resource"
    resource: EmbeddedResource


class OpaqueState(PartBase):
    format: str | None = None
    data: str | None = None
    blob: BlobRef | None = None


class ReasoningPart(PartBase):
    type: Literal["reasoning"] = "reasoning"
    visibility: str | None = None
    text: str | None = None
    summary: list[str] | None = None
    opaque: OpaqueState | None = None
    signature: str | None = None


class RefusalPart(PartBase):
    type: Literal["refusal"] = "refusal"
    text: str


class DataPart(PartBase):
    type: Literal["data"] = "data"
    data: Any
    schema_: str | None = Field(default=None, alias="schema")


class OpaquePart(PartBase):
    type: Literal["opaque"] = "opaque"
    format: str
    data: str | None = None
    blob: BlobRef | None = None


class UnknownPart(ASRModel):
    """A part type this version does not know: kept verbatim, members in their order (ASR-218)."""

    type: str


PART_MODELS: dict[str, type[PartBase]] = {
    "text": TextPart,
    "image": ImagePart,
    "audio": AudioPart,
    "resource_link": ResourceLinkPart,
    "resource": ResourcePart,
    "reasoning": ReasoningPart,
    "refusal": RefusalPart,
    "data": DataPart,
    "opaque": OpaquePart,
}


def _part_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in PART_MODELS else "unknown"


ContentPart = Annotated[
    Annotated[TextPart, Tag("text")]
    | Annotated[ImagePart, Tag("image")]
    | Annotated[AudioPart, Tag("audio")]
    | Annotated[ResourceLinkPart, Tag("resource_link")]
    | Annotated[ResourcePart, Tag("resource")]
    | Annotated[ReasoningPart, Tag("reasoning")]
    | Annotated[RefusalPart, Tag("refusal")]
    | Annotated[DataPart, Tag("data")]
    | Annotated[OpaquePart, Tag("opaque")]
    | Annotated[UnknownPart, Tag("unknown")],
    Discriminator(_part_tag),
]
