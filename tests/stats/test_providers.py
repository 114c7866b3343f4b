"""A response is priced at the provider its record names (docs/stats.md, "Cost"): GLM-5 at
Z.AI is not GLM-5 at Zhipu AI, GPT-4o through GitHub Copilot is not OpenAI's API. Each agent's
provider ids are mapped to genai-prices'; a provider genai-prices does not know, or one that
lists no such model, falls back to the model's name; a model nobody prices stays unpriced.
Priced with genai-prices' real data."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from typing import Any

import pytest
from genai_prices import Usage, calc_price

from asr_adapters.stats import session_summary
from asr_adapters.stats.providers import genai_provider
from stats.streams import Stream, usage

WHEN = "2026-03-03T10:00:00Z"


def listed(model: str, provider_id: str | None, input_tokens: int = 10_000, output: int = 500) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at = datetime(2026, 3, 3, 10, tzinfo=UTC)
        price = calc_price(
            Usage(input_tokens=input_tokens, output_tokens=output), model, provider_id=provider_id,
            genai_request_timestamp=at,
        )  # fmt: skip
        return float(price.total_price)


def priced(agent: str, model: str, **named: Any) -> tuple[float | None, str | None, str | None]:
    stream = Stream(f"{agent}:p", agent, ts=WHEN, **named.pop("header", {}))
    stream.reply(WHEN, model, usage(10_000, 500), **named)
    (response,) = session_summary(stream.records).responses
    return response.cost, response.cost_by, response.priced_as


def test_openclaw_names_the_provider_on_each_message() -> None:
    cost, by, priced_as = priced("openclaw", "glm-5", provider="zai", api="openai-completions")
    assert priced_as == "zai/GLM-5" and by == "genai-prices"
    assert cost == pytest.approx(listed("glm-5", "zai"), rel=1e-9)
    assert cost != pytest.approx(listed("glm-5", None), rel=1e-3)  # Zhipu AI's price, by name alone
    copilot = priced("openclaw", "gpt-4o", provider="github-copilot")
    assert copilot == (0.0, "genai-prices", "github-copilot/gpt-4o")  # in the subscription: genai-prices' figure


def test_each_agents_member_and_ids_are_read() -> None:
    assert priced("pi", "glm-5", provider="zai")[2] == "zai/GLM-5"
    assert priced("opencode", "glm-5", opencode={"info": {"providerID": "zai-coding-plan"}})[2] == "zai/GLM-5"
    assert priced("cline", "glm-5", cline={"modelInfo": {"providerId": "zai"}})[2] == "zai/GLM-5"
    assert priced("codex", "glm-5", header={"meta": {"model_provider": "zai"}})[2] == "zai/GLM-5"
    assert priced("claude-code", "glm-5", provider="zai")[2] != "zai/GLM-5"  # Claude Code names no provider
    assert genai_provider("pi", "amazon-bedrock") == "aws" and genai_provider("opencode", "xai") == "x-ai"
    assert genai_provider("cline", "openai") is None  # Cline's "OpenAI Compatible": any server
    assert genai_provider("cline", "openai-native") == genai_provider("pi", "openai") == "openai"


def test_fall_backs() -> None:
    # a provider genai-prices does not know (a proxy, a local server): the model's name decides
    assert priced("openclaw", "gpt-5", provider="my-proxy")[2] == "openai/gpt-5"
    assert priced("cline", "gpt-5", cline={"modelInfo": {"providerId": "openai"}})[2] == "openai/gpt-5"
    # a known provider that lists no such model: the model's own provider's price
    cost, _, priced_as = priced("openclaw", "claude-sonnet-4-5", provider="github-copilot")
    assert priced_as == "anthropic/claude-sonnet-4-5" and cost == pytest.approx(listed("claude-sonnet-4-5", None))
    # nobody prices it: unpriced with its tokens, never $0
    stream = Stream("openclaw:u", "openclaw", ts=WHEN)
    stream.reply(WHEN, "glm-99-preview", usage(10_000, 500), provider="zai")
    summary = session_summary(stream.records)
    assert summary.responses[0].cost is None and summary.totals.unpriced_tokens.total == 10_500
