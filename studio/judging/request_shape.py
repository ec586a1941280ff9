"""What a judge request sends besides the messages, as its profile says, and the prompt's size in tokens.

Only what is set is sent: no temperature unless one is given (reasoning models refuse any but the
default), the output cap under the name the API wants (`max_completion_tokens` for OpenAI, which
refuses `max_tokens` on reasoning models), a reasoning effort where the model takes one, and the
answer's form: a strict JSON schema where the server enforces one, JSON mode, or nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# The answer's shape (studio/judging/prompt.py parses it). The verdict word stays a plain string here:
# the prompt says which words it wants, and the parser refuses any other.
VERDICTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "criterion": {"type": "string"},
                    "verdict": {"type": "string"},
                    "rationale": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["criterion", "verdict", "rationale", "evidence"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["verdicts"],
    "additionalProperties": False,
}
SCHEMA_NAME = "criterion_verdicts"
REASONING_EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh")
# The paper's judge allowed 1,200 s a request; a reasoning model at high effort queued on a busy
# server needs that much.
DEFAULT_TIMEOUT_S = 1200.0
# The agent judge's budgets per conversation (studio/judging/agent_judge.py): model turns that call
# tools, and prompt plus completion tokens (each turn sends the conversation so far again).
DEFAULT_AGENT_STEPS = 20
DEFAULT_AGENT_TOKENS = 300_000
# A token is about four characters of English prose and fewer of numbers and code; the estimate
# errs low (a prompt it lets through that does not fit is refused by the server in one request,
# never retried), so it never keeps back a prompt that would have fitted.
CHARS_PER_TOKEN = 4
# What one image costs at most in OpenAI's accounting of a high-detail tile grid (765 for 1024x1024).
TOKENS_PER_IMAGE = 765
# Each message's framing (role, separators) in the chat template.
TOKENS_PER_MESSAGE = 4


@dataclass(frozen=True)
class RequestShape:
    temperature: float | None = None
    reasoning_effort: str | None = None
    max_output_tokens: int | None = None
    output_tokens_parameter: str = "max_tokens"
    structured_output: str = "json_object"  # "json_schema", "json_object" or "none"

    def body(self, model: str, messages: Sequence[dict[str, Any]], json_answer: bool = True,
             tools: Sequence[dict[str, Any]] | None = None, tool_choice: str | None = None) -> dict[str, Any]:
        """The request's body; `tools` are function tools in the chat-completions shape (the agent judge's),
        `tool_choice` "auto" or "none" (the model answers without calling one)."""
        body: dict[str, Any] = {"model": model, "messages": list(messages)}
        if tools:
            body["tools"] = list(tools)
            if tool_choice is not None:
                body["tool_choice"] = tool_choice
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.reasoning_effort is not None:
            body["reasoning_effort"] = self.reasoning_effort
        if self.max_output_tokens is not None:
            body[self.output_tokens_parameter] = self.max_output_tokens
        if json_answer and self.structured_output == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": VERDICTS_SCHEMA},
            }
        elif json_answer and self.structured_output == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body


def estimated_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """The prompt's size in tokens, estimated from its characters (no tokenizer of the server's model
    is at hand); images at their most."""
    total = 0
    for message in messages:
        total += TOKENS_PER_MESSAGE
        content = message.get("content")
        calls = message.get("tool_calls")
        if calls:  # an assistant's tool calls, sent back with the conversation
            total += len(json.dumps(calls)) // CHARS_PER_TOKEN
        if isinstance(content, str):
            total += len(content) // CHARS_PER_TOKEN
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    total += len(str(part.get("text", ""))) // CHARS_PER_TOKEN
                elif part.get("type") == "image_url":
                    total += TOKENS_PER_IMAGE
                else:
                    total += len(json.dumps(part)) // CHARS_PER_TOKEN
    return total
