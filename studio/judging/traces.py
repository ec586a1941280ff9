"""The agent judge's traces, kept beside the verdicts: one file per judging of a submission.

<project>/verdicts/<submission>/traces/<time>-<scope>-<rater>.yaml holds every conversation of one
agent judging (the criteria asked, each step's tool calls with their arguments, the size and digest of
what they returned, the step's tokens, and how it ended). The files are under git with the verdicts
and written like the costs (studio/judging/costs.py): each judging a new file of its own, atomically.
`traces_for` reads them back; `decision_trace` finds the conversation that decided one criterion.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from studio.judging.agent_judge import Conversation, conversation_data, conversation_of
from studio.judging.errors import JudgingError
from studio.judging.verdict_store import check_submission_id, rater_slug
from studio.store import layout
from studio.store.atomic import write_atomic

TRACES_DIR = "traces"
FORMAT_VERSION = 1
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class JudgingTrace:
    """The conversations of one agent judging of one submission's scope."""

    submission: str
    scope: str
    rater: str
    started: datetime
    conversations: list[Conversation]
    path: Path | None = None


def traces_dir(project_dir: Path, submission_id: str) -> Path:
    return layout.verdicts_dir(Path(project_dir)) / check_submission_id(submission_id) / TRACES_DIR


def write_trace(project_dir: Path, submission: str, scope: str, rater: str, started: datetime,
                conversations: Sequence[Conversation]) -> Path:
    """Write one judging's trace to a new file of its own; the path."""
    stamp = started.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    name = f"{stamp}-{rater_slug(scope)}-{rater_slug(rater)}-{secrets.token_hex(2)}.yaml"
    path = traces_dir(project_dir, submission) / name
    data = {
        "format": FORMAT_VERSION,
        "submission": submission,
        "scope": scope,
        "rater": rater,
        "started": started.astimezone(UTC).isoformat(),
        "conversations": [conversation_data(conversation) for conversation in conversations],
    }
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=4096)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    return path


def traces_for(project_dir: Path, submission_id: str, scope: str | None = None) -> list[JudgingTrace]:
    """The agent judgings of a submission (of one scope when given), oldest first; a file that cannot
    be read names itself."""
    folder = traces_dir(project_dir, submission_id)
    if not folder.is_dir():
        return []
    found = [_read(path) for path in sorted(folder.glob("*.yaml"))]
    found = [trace for trace in found if scope is None or trace.scope == scope]
    found.sort(key=lambda trace: trace.started)
    return found


def decision_trace(project_dir: Path, submission_id: str, scope: str, criterion: str) -> Conversation | None:
    """The last conversation that asked about `criterion` (the one whose answer, or lack of one, stands)."""
    for trace in reversed(traces_for(project_dir, submission_id, scope)):
        for conversation in reversed(trace.conversations):
            if criterion in conversation.criteria:
                return conversation
    return None


def _read(path: Path) -> JudgingTrace:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
        return JudgingTrace(
            str(data["submission"]), str(data["scope"]), str(data["rater"]),
            datetime.fromisoformat(str(data["started"])),
            [conversation_of(item) for item in data["conversations"]], path,
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise JudgingError(
            f"{path}: not a readable trace file ({type(exc).__name__}: {exc}); restore it from git or delete it"
        ) from None


def conversation_lines(conversation: Conversation) -> list[str]:
    """A conversation as `dbstudio judge --trace` prints it and the review shows it: what it asked and
    how it ended, then each step and its tool calls (names and texts escaped: the model's and the
    submission's words, never markup)."""
    from studio.judging.agent_judge import arguments_text
    from studio.untrusted import shown

    reason = f": {conversation.reason}" if conversation.reason else ""
    lines = [f"{', '.join(conversation.criteria)}: {conversation.outcome}, {conversation.tokens:,} tokens{reason}"]
    for step in conversation.steps:
        final = ", final answer asked without tools" if step.final else ""
        lines.append(f"  step {step.step} ({step.prompt_tokens:,} prompt + {step.completion_tokens:,} completion "
                     f"tokens, {step.finish_reason or 'no finish reason'}{final})")
        for call in step.calls:
            mark = "refused" if call.error else "returned"
            lines.append(f"    {shown(call.name)}({shown(arguments_text(call.arguments))}) {mark} {call.chars:,} "
                         f"characters [{call.digest}]: {shown(call.head)}")
    return lines
