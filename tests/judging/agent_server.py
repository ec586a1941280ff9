"""A scripted tool-calling model for the agent judge's tests, served by the loopback ChatServer.

It speaks the chat-completions tools API as OpenAI documents it: an assistant turn that calls tools
is `message.tool_calls: [{id, type: "function", function: {name, arguments}}]` with `content: null`
and `finish_reason: "tool_calls"`; the client answers each call with a `{role: "tool", tool_call_id,
content}` message. The script decides only from what the request carries: the calls it makes next
come from `plan(request)`, and the verdict from the tool results it was actually sent. A conversation
that breaks the API's rules (a call left unanswered, a tool message answering no call) is refused with
HTTP 400 as OpenAI refuses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.judging.chat_server import Reply, Request, api_error

_IDS = re.compile(r"one entry for each of (.+)\.\s*$")


def asked_ids(request: Request) -> list[str]:
    """The criterion ids the conversation asks about (from its last message that names them)."""
    for message in reversed(request.body["messages"]):
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, str):
            match = _IDS.search(content)
            if match:
                return [part.strip() for part in match.group(1).split(",")]
    return []


def tool_results(request: Request) -> list[str]:
    """The content of every tool message the request carries, in order."""
    return [str(message["content"]) for message in request.body["messages"] if message["role"] == "tool"]


def turns(request: Request) -> int:
    """The assistant turns that called tools so far in the conversation."""
    return sum(1 for message in request.body["messages"] if message["role"] == "assistant")


def usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def calling(calls: list[tuple[str, Any]], step: int, used: dict[str, Any] | None = None) -> Reply:
    """An assistant turn calling `calls` ((name, arguments: a dict sent as JSON, or raw text))."""
    parts = [
        {"id": f"call_{step}_{number}", "type": "function",
         "function": {"name": name, "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)}}
        for number, (name, arguments) in enumerate(calls)
    ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-agent-{step}", "object": "chat.completion", "model": None,
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": None, "tool_calls": parts}}],
    }
    if used is not None:
        body["usage"] = used
    return Reply(body=body)


def answering(ids: list[str], holds: Callable[[str], bool], step: int, used: dict[str, Any] | None = None,
              text: str | None = None) -> Reply:
    content = text if text is not None else json.dumps({"verdicts": [
        {"criterion": cid, "holds": holds(cid), "rationale": f"read for {cid}", "evidence": ["outputs/report.md#L1"]}
        for cid in ids]})
    body: dict[str, Any] = {
        "id": f"chatcmpl-agent-{step}", "object": "chat.completion", "model": None,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
    }
    if used is not None:
        body["usage"] = used
    return Reply(body=body)


def protocol_error(request: Request) -> Reply | None:
    """OpenAI's HTTP 400 for a conversation that breaks the tools API's rules, or None: an assistant
    message with tool_calls must be followed at once by a tool message for each of its ids; a tool
    message must answer such a call; `tool_choice` needs `tools`; each tool is a strict function."""
    body = request.body
    if "tool_choice" in body and not body.get("tools"):
        return api_error(400, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
                         "specified.", param="tool_choice")
    for tool in body.get("tools", []):
        function = tool.get("function", {})
        if tool.get("type") != "function" or not {"name", "description", "parameters"} <= set(function):
            return api_error(400, "Invalid tool: each tool is {type: function, function: {name, description, "
                             "parameters}}", param="tools")
    messages = body["messages"]
    waiting: list[str] = []
    for message in messages:
        if waiting and message["role"] != "tool":
            return api_error(400, "An assistant message with 'tool_calls' must be followed by tool messages "
                             "responding to each 'tool_call_id'. The following tool_call_ids did not have response "
                             f"messages: {', '.join(waiting)}", param="messages")
        if message["role"] == "tool":
            if message.get("tool_call_id") not in waiting or not isinstance(message.get("content"), str):
                return api_error(400, "Invalid parameter: messages with role 'tool' must be a response to a "
                                 "preceeding message with 'tool_calls'.", param="messages")
            waiting.remove(message["tool_call_id"])
        if message["role"] == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or []]
    if waiting:
        return api_error(400, f"tool_call_ids without a response: {', '.join(waiting)}", param="messages")
    return None


@dataclass
class ScriptedAgent:
    """Calls the tools `plan(request)` gives (an empty list: time to answer), then answers that each
    criterion holds exactly when `fact` is in a tool result it received. With `tool_choice: "none"`
    (the budget is spent) it answers at once, or with `final_text` when one is given. Each turn's usage
    is `prompt_tokens` + 10 per tool message so far, and `completion_tokens`."""

    plan: Callable[[Request], list[tuple[str, Any]]]
    fact: str
    final_text: str | None = None
    prompt_tokens: int = 1000
    completion_tokens: int = 40
    seen: list[Request] = field(default_factory=list)

    def reply(self, request: Request) -> Reply:
        self.seen.append(request)
        refused = protocol_error(request)
        if refused is not None:
            return refused
        step = turns(request) + 1
        results = tool_results(request)
        used = usage(self.prompt_tokens + 10 * len(results), self.completion_tokens)
        ids = asked_ids(request)
        final = request.body.get("tool_choice") == "none"
        calls = [] if final else self.plan(request)
        if calls:
            return calling(calls, step, used)
        if final and self.final_text is not None:
            return answering(ids, lambda _cid: False, step, used, self.final_text)
        found = any(self.fact in result for result in results)
        return answering(ids, lambda _cid: found, step, used)
