"""Record models: the spec's message, plan and delivery records and the profile's others."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from .common import (
    Actor,
    AgentInfo,
    ASRModel,
    Assembly,
    CaptureState,
    PathRef,
    Platform,
    Recipient,
    SourceInfo,
    Usage,
)
from .parts import ContentPart


class Envelope(ASRModel):
    """Members every record may carry (profile §2)."""

    type: str
    seq: int | None = None
    id: str | None = None
    ts: str | None = None
    tsPrecision: str | None = None
    turnId: str | None = None
    inferenceId: str | None = None
    capture: dict[str, CaptureState] | None = None
    idSource: str | None = None
    supersedes: str | None = None
    parent: str | None = None
    copiedFrom: str | None = None
    assembly: Assembly | None = None


class ParticipantDecl(ASRModel):
    participantId: str
    kind: str | None = None
    name: str | None = None


class ConversationDecl(ASRModel):
    conversationId: str
    platform: str | None = None
    kind: str | None = None
    name: str | None = None


class SessionRecord(Envelope):
    """The stream header (profile §4)."""

    type: Literal["session"] = "session"
    session: str
    agent: AgentInfo
    producer: AgentInfo
    source: SourceInfo | None = None
    title: str | None = None
    cwd: str | None = None
    participants: list[ParticipantDecl] | None = None
    conversations: list[ConversationDecl] | None = None


class MessageRecord(Envelope):
    type: Literal["message"] = "message"
    messageId: str
    role: str | None = None
    author: str | None = None
    origin: str | None = None
    phase: str | None = None
    audience: str | None = None
    status: str | None = None
    from_: Actor | None = Field(default=None, alias="from")
    recipients: list[Recipient] | None = None
    triggersTurn: bool | None = None
    conversation: str | None = None
    platform: Platform | None = None
    addressed: bool | None = None
    via: str | None = None
    derivedFrom: list[str] | None = None
    content: list[ContentPart]
    displayContent: list[ContentPart] | None = None
    displayCorrespondence: str | None = None
    #: Normalized usage of the model response that produced it, and the agent's own object verbatim.
    usage: Usage | None = None
    nativeUsage: dict[str, Any] | None = None


class PlanEntry(ASRModel):
    entryId: str | None = None
    content: str
    status: str
    priority: str | None = None
    owner: str | None = None
    blockedBy: list[str] | None = None


class Budget(ASRModel):
    tokens: int | None = None
    seconds: int | float | None = None


class PlanRecord(Envelope):
    type: Literal["plan"] = "plan"
    planId: str
    planType: str
    status: str | None = None
    callId: str | None = None
    entries: list[PlanEntry] | None = None
    content: list[ContentPart] | None = None
    source: PathRef | None = None
    budget: Budget | None = None
    used: Budget | None = None


class DeliveryRecord(Envelope):
    type: Literal["delivery"] = "delivery"
    message: str | None = None
    conversation: str | None = None
    status: str
    reason: str | None = None
    platformMessageIds: list[str] | None = None
    attempt: int | None = None


class ToolCallRecord(Envelope):
    type: Literal["tool_call"] = "tool_call"
    callId: str
    name: str | None = None
    messageId: str | None = None
    input: Any = None
    arguments: str | None = None
    status: str | None = None
    #: Usage of a response with no message record of its own (on its first tool call).
    usage: Usage | None = None
    nativeUsage: dict[str, Any] | None = None


class ToolResultRecord(Envelope):
    type: Literal["tool_result"] = "tool_result"
    callId: str
    name: str | None = None
    status: str | None = None
    isError: bool | None = None
    exitCode: int | None = None
    content: list[ContentPart] = Field(default_factory=list)


class SubagentRecord(Envelope):
    type: Literal["subagent"] = "subagent"
    callId: str | None = None
    session: str | None = None
    address: str | None = None
    agentType: str | None = None
    description: str | None = None


class InputRequestRecord(Envelope):
    type: Literal["input_request"] = "input_request"
    requestId: str | None = None
    callId: str | None = None
    kind: str | None = None
    content: list[ContentPart] | None = None
    options: list[Any] | None = None
    answer: list[ContentPart] | None = None
    status: str | None = None


class ParticipantRecord(Envelope):
    type: Literal["participant"] = "participant"
    participantId: str
    kind: str | None = None
    name: str | None = None


class ConversationRecord(Envelope):
    type: Literal["conversation"] = "conversation"
    conversationId: str
    platform: str | None = None
    kind: str | None = None
    name: str | None = None


class VendorRecord(Envelope):
    """A native item no ASR record type carries, kept verbatim."""

    type: Literal["vendor"] = "vendor"
    schema_: str = Field(alias="schema")
    data: Any = None


class UnknownRecord(Envelope):
    """A record type this version does not know: kept verbatim (ASR-218)."""


RECORD_MODELS: dict[str, type[Envelope]] = {
    "session": SessionRecord,
    "message": MessageRecord,
    "plan": PlanRecord,
    "delivery": DeliveryRecord,
    "tool_call": ToolCallRecord,
    "tool_result": ToolResultRecord,
    "subagent": SubagentRecord,
    "input_request": InputRequestRecord,
    "participant": ParticipantRecord,
    "conversation": ConversationRecord,
    "vendor": VendorRecord,
}


def _record_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in RECORD_MODELS else "unknown"


Record = Annotated[
    Annotated[SessionRecord, Tag("session")]
    | Annotated[MessageRecord, Tag("message")]
    | Annotated[PlanRecord, Tag("plan")]
    | Annotated[DeliveryRecord, Tag("delivery")]
    | Annotated[ToolCallRecord, Tag("tool_call")]
    | Annotated[ToolResultRecord, Tag("tool_result")]
    | Annotated[SubagentRecord, Tag("subagent")]
    | Annotated[InputRequestRecord, Tag("input_request")]
    | Annotated[ParticipantRecord, Tag("participant")]
    | Annotated[ConversationRecord, Tag("conversation")]
    | Annotated[VendorRecord, Tag("vendor")]
    | Annotated[UnknownRecord, Tag("unknown")],
    Discriminator(_record_tag),
]
