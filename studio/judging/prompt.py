"""The judge's prompt and the parser of its answer.

PROMPT_VERSION names the wording below; it is part of every judge verdict's reuse key, so
changing the wording (and the version with it) has every criterion judged again.
docs/judging.md quotes the prompt verbatim: keep the two in step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from studio.judging.client import AttemptFailed

PROMPT_VERSION = "judge-1"

SYSTEM_PROMPT = """\
You are the judge of a benchmark of professional deliverables. An agent worked on a multi-stage \
project; you read the files it submitted and decide, for each rubric criterion you are given, \
whether the criterion's statement holds of the submission.

For every criterion give a binary verdict:
- a requirement (positive weight): "pass" when the submission meets it, "fail" when it does not;
- a failure condition (negative weight) or a fatal gate: "pass" when the condition is present in \
the submission (the deduction or the gate applies), "fail" when it is absent.

Judge only from the evidence given: a file, figure or statement that is not in the evidence is \
absent. Evaluator references are private notes for you; the agent never saw them. Cite the places \
you relied on with the references shown in square brackets in the evidence (such as \
outputs/model.xlsx!Debt!B4 or outputs/memo.pdf#page=3).

Answer with one JSON object and nothing else:
{"verdicts": [{"criterion": "<criterion id>", "verdict": "pass" or "fail", \
"rationale": "<one to three sentences>", "evidence": ["<reference>", ...]}]}
with exactly one entry per criterion listed."""

USER_TEMPLATE = """\
# {context_title}

{context_text}

# Evaluator references
{references}

# Evidence: the submission's files
{evidence}

# Criteria to judge
{criteria}

Answer with the JSON object described above: one entry for each of {ids}."""

NO_REFERENCES = "(none for this scope)"


@dataclass(frozen=True)
class Reference:
    """An evaluator-only file the project assigns to a scope (evaluator/references.yaml `for:`)."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class ScopeContext:
    """What the judge reads besides the evidence: the subtask's instruction (or the delivery
    contract for the final rubric) and the evaluator references assigned to the scope."""

    scope: str
    title: str  # "Instruction of subtask T03" or "Delivery contract"
    text: str
    references: tuple[Reference, ...] = ()


@dataclass(frozen=True)
class AskedCriterion:
    """A criterion as the judge is asked about it (a reused final criterion has its original's text)."""

    id: str
    text: str
    weight: int
    gate: bool = False
    check_note: str | None = None  # the result of a programmatic check given as evidence

    def line(self) -> str:
        if self.gate:
            kind = "fatal gate"
        elif self.weight < 0:
            kind = f"failure condition, weight {self.weight}"
        else:
            kind = f"requirement, weight +{self.weight}"
        text = " ".join(self.text.split())
        note = f"\n  Programmatic check: {self.check_note}" if self.check_note else ""
        return f"- {self.id} ({kind}): {text}{note}"


def user_message(context: ScopeContext, criteria: Sequence[AskedCriterion], evidence: str) -> str:
    references = "\n\n".join(f"## {ref.id}: {ref.title}\n\n{ref.text.strip()}" for ref in context.references)
    return USER_TEMPLATE.format(
        context_title=context.title, context_text=context.text.strip() or "(empty)",
        references=references or NO_REFERENCES, evidence=evidence.strip() or "(the submission has no files)",
        criteria="\n".join(criterion.line() for criterion in criteria),
        ids=", ".join(criterion.id for criterion in criteria),
    )


def messages(context: ScopeContext, criteria: Sequence[AskedCriterion], evidence: str,
             images: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The chat messages of one request; `images` are data: URLs for a multimodal model."""
    text = user_message(context, criteria, evidence)
    content: str | list[dict[str, Any]] = text
    pictures = list(images)
    if pictures:
        content = [{"type": "text", "text": text}] + [{"type": "image_url", "image_url": {"url": url}}
                                                      for url in pictures]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]


class AnsweredVerdict(BaseModel):
    """One entry of the judge's answer."""

    criterion: str
    verdict: Literal["pass", "fail"]
    rationale: str = ""
    evidence: list[str] = []


class _Answer(BaseModel):
    verdicts: list[Any]


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_answer(text: str, asked: Iterable[str]) -> dict[str, AnsweredVerdict]:
    """The verdicts of a valid answer for the criteria asked, by id. An answer that is no JSON object
    with a `verdicts` list raises AttemptFailed; an entry that does not validate, names a criterion
    not asked, or contradicts another entry leaves its criterion out (unresolved)."""
    data = _json_object(text)
    try:
        answer = _Answer.model_validate(data)
    except ValidationError:
        raise AttemptFailed(f"the answer has no 'verdicts' list: {_short(text)}") from None
    wanted = set(asked)
    found: dict[str, AnsweredVerdict] = {}
    contradicted: set[str] = set()
    for item in answer.verdicts:
        try:
            verdict = AnsweredVerdict.model_validate(_normalised(item))
        except ValidationError:
            continue
        if verdict.criterion not in wanted:
            continue
        earlier = found.get(verdict.criterion)
        if earlier is not None and earlier.verdict != verdict.verdict:
            contradicted.add(verdict.criterion)
        found.setdefault(verdict.criterion, verdict)
    return {cid: verdict for cid, verdict in found.items() if cid not in contradicted}


def _normalised(item: Any) -> Any:
    # Models write "PASS" or " Fail" often enough; the meaning is not in doubt.
    if isinstance(item, Mapping) and isinstance(item.get("verdict"), str):
        item = dict(item)
        item["verdict"] = item["verdict"].strip().lower()
        if isinstance(item.get("criterion"), str):
            item["criterion"] = item["criterion"].strip()
    return item


def _json_object(text: str) -> Any:
    candidates = [text.strip()]
    candidates += [match.group(1).strip() for match in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    raise AttemptFailed(f"the answer is not a JSON object: {_short(text)}")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:160] + ("..." if len(text) > 160 else ""))
