"""Draft rubric criteria with an LLM, from what the project already says:

- **checkpoint**: a subtask's instruction, its outputs and, when the project has one, the expert's reference
  deliverable for it (evaluator/reference/<SUBTASK>/, docs/rubric-testing.md) give criteria for its rubric;
- **propagation**: a correcting material (one that lists what it `corrects`) and the artifacts downstream of
  its release in the dependency map give criteria that check the correction reached each of them
  (`propagates` set to the material);
- **acceptance**: each acceptance item of the delivery contract that no final criterion tests gives a final
  criterion that tests it (`tests` set to the item).

The model answers one JSON object; each proposed criterion is checked (a known dimension, a signed weight of
1-10, files the rubric can cover) and what does not pass is left out with the reason. The drafts come back
as a SheetDiff of added criteria, each with `review.status: draft`, placed after the rubric's last
criterion: the app shows it in the rubric import's diff view and applies it only on the expert's accept;
`dbstudio draft` prints it and writes only with --apply. The request goes to the judge's endpoint with the
judge profile's settings and key rules (the key from the environment or the OS keyring, never stored)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.errors import StudioError
from studio.model.vocabulary import FINAL_SCOPE, Dimension, Target
from studio.sheets.diff import AddedCriterion, SheetDiff

if TYPE_CHECKING:
    from studio.judging.client import ChatClient
    from studio.judging.judge import JudgeSettings
    from studio.model import Project
    from studio.store.loader import LoadedProject

__all__ = ["DraftError", "DraftResult", "draft"]

KINDS = ("checkpoint", "propagation", "acceptance")
MAX_DRAFTS = 12
REFERENCE_CHARS = 40_000  # of the reference deliverable shown to the model

SYSTEM = """\
You help a domain expert write the rubric of a benchmark of professional deliverables. You propose \
criteria an expert will review before any is used. Each criterion is one checkable statement about the \
submitted files: a requirement (positive weight, credited when it holds) or a failure condition (negative \
weight, deducted when the fault is present). Name concrete figures, dates, parties and statuses where the \
material gives them. Answer with one JSON object and nothing else:
{"criteria": [{"text": "<the statement>", "dimension": "correctness|completeness|consistency|professionalism|\
usability", "weight": <integer from -10 to 10, not 0>, "covers": ["<file>", ...]}]}"""


class DraftError(StudioError):
    """Drafting cannot start (an unknown subtask or material, nothing to draft for) or the model's answer
    is not a JSON object of criteria."""


@dataclass
class DraftResult:
    diff: SheetDiff
    dropped: list[str] = field(default_factory=list)  # the proposals left out, with the reason
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None  # the model that answered

    def cost_line(self) -> str:
        return (f"{self.prompt_tokens:,} prompt and {self.completion_tokens:,} completion tokens"
                + (f" ({self.model})" if self.model else ""))


@dataclass(frozen=True)
class _Ask:
    rubric: str  # the scope the drafts go to
    files: list[str]  # what they may cover (SUBTASK:PATH, or deliverable ids)
    user: str
    extra: dict[str, Any]  # fields every draft gets (propagates, tests, target)


def draft(loaded: LoadedProject, kind: str, subject: str | None, settings: JudgeSettings,
          client: ChatClient | None = None) -> DraftResult:
    """Draft criteria of `kind` (checkpoint: `subject` a subtask; propagation: a correcting material;
    acceptance: none) with the judge settings' endpoint and model."""
    from studio.judging.client import load_json
    from studio.judging.judge import open_client

    if kind not in KINDS:
        raise DraftError(f"no drafting of '{kind}': draft checkpoint, propagation or acceptance criteria")
    ask = _ask(loaded, kind, subject)
    own = client is None
    chat = client if client is not None else open_client(settings)
    try:
        completion = chat.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": ask.user}])
    finally:
        if own:
            chat.close()
    result = DraftResult(SheetDiff(), prompt_tokens=completion.usage.prompt_tokens,
                         completion_tokens=completion.usage.completion_tokens, model=completion.served_model)
    try:
        data = load_json(completion.content)
    except Exception as exc:  # the model's text: any parse failure is the answer's fault
        raise DraftError(f"the model's answer is not JSON ({exc}); nothing was drafted ({result.cost_line()})") from None
    proposals = data.get("criteria") if isinstance(data, dict) else None
    if not isinstance(proposals, list):
        raise DraftError(f"the model's answer has no list 'criteria'; nothing was drafted ({result.cost_line()})")
    _accept(loaded.project, ask, proposals, result)
    return result


def _ask(loaded: LoadedProject, kind: str, subject: str | None) -> _Ask:
    project = loaded.project
    if kind == "checkpoint":
        return _checkpoint(loaded, subject)
    if kind == "propagation":
        return _propagation(project, subject)
    return _acceptance(project)


def _existing(project: Project, scope: str) -> str:
    rubric = project.rubric(scope)
    lines = [f"- {c.key}: {c.text}" for c in (rubric.criteria if rubric else []) if c.text]
    return "\n".join(lines) or "(none yet)"


def _checkpoint(loaded: LoadedProject, subtask_id: str | None) -> _Ask:
    from studio.store import layout

    project = loaded.project
    subtask = project.subtasks.get(subtask_id or "")
    if subtask is None:
        known = ", ".join(project.timeline()[:8])
        raise DraftError(f"no subtask '{subtask_id}': give one of {known}")
    instruction = loaded.files.read_text(f"{layout.SUBTASKS_DIR}/{subtask.id}/{subtask.instruction}") or ""
    outputs = [f"{subtask.id}:{o.path}" for o in subtask.outputs]
    reference = _reference_text(Path(loaded.root), subtask.id, [o.path for o in subtask.outputs])
    user = (f"# Subtask {subtask.id}: {subtask.title}\n\n## Instruction\n\n{instruction.strip()}\n\n"
            f"## Files the criteria may cover\n\n" + "\n".join(f"- {ref}" for ref in outputs)
            + f"\n\n## The expert's reference deliverable\n\n{reference}\n\n## Criteria the rubric has\n\n"
            f"{_existing(project, subtask.id)}\n\nPropose up to {MAX_DRAFTS} new criteria for this checkpoint that "
            "the rubric does not have yet; cover the files by the names listed.")
    return _Ask(subtask.id, outputs, user, {"target": Target.CHECKPOINT.value})


def _reference_text(root: Path, subtask_id: str, paths: list[str]) -> str:
    from studio.judging.evidence import extract_evidence

    folder = root / "evaluator" / "reference" / subtask_id
    if not folder.is_dir():
        return "(the project has no reference deliverable for this subtask)"
    try:
        text = extract_evidence(folder).render()
    except StudioError as exc:
        return f"(the reference deliverable cannot be read: {exc})"
    return text[:REFERENCE_CHARS] + ("\n(cut here)" if len(text) > REFERENCE_CHARS else "")


def _propagation(project: Project, material_id: str | None) -> _Ask:
    from studio.model.artifacts import artifacts_of, downstream_of

    material = project.material(material_id or "")
    if material is None or not material.corrects:
        correcting = [m.id for m in (project.materials.materials if project.materials else []) if m.corrects]
        raise DraftError(f"'{material_id}' is no material that corrects another: give one of "
                         f"{', '.join(correcting) or '(none: no material lists what it corrects)'}")
    seeds = [a.ref for sid in project.timeline() if material.id in project.subtasks[sid].inputs
             for a in artifacts_of(project, sid)]
    reached = list(dict.fromkeys(seeds + downstream_of(project, seeds)))
    checkpoint = [ref for ref in reached if ":" in ref]
    if not checkpoint:
        raise DraftError(f"no subtask takes {material.id} as an input: nothing downstream of it to check")
    first = checkpoint[0].split(":", 1)[0]
    user = (f"# Correction {material.id}: {material.title}\n\nIt corrects {', '.join(material.corrects)}."
            + (f" Note: {material.note}" if material.note else "")
            + "\n\n## Files downstream of it (the dependency map)\n\n" + "\n".join(f"- {ref}" for ref in checkpoint)
            + f"\n\n## Criteria the rubric of {first} has\n\n{_existing(project, first)}\n\nPropose up to "
            f"{MAX_DRAFTS} criteria for subtask {first}'s rubric that check the correction reached the files of "
            f"{first} listed above (not the superseded value); cover those files by the names listed.")
    files = [ref for ref in checkpoint if ref.startswith(first + ":")]
    return _Ask(first, files, user, {"target": Target.CHECKPOINT.value, "propagates": [material.id]})


def _acceptance(project: Project) -> _Ask:
    if project.info is None or project.final_rubric is None:
        raise DraftError("the project has no delivery contract or no final rubric: add them first")
    tested = {item for c in project.final_rubric.criteria for item in c.tests}
    open_items = [a for a in project.info.delivery.acceptance if a.id not in tested]
    if not open_items:
        raise DraftError("every acceptance item is tested by a final criterion already: nothing to draft")
    deliverables = [d.id for d in project.info.delivery.final_deliverables]
    listed = "\n".join(f"- {a.id}: {a.text}" for a in open_items)
    files = "\n".join(f"- {d.id}: {d.path} ({d.title})" for d in project.info.delivery.final_deliverables)
    user = (f"# Delivery contract\n\n{project.info.delivery.scope}\n\n## Acceptance items no criterion tests yet\n\n"
            f"{listed}\n\n## Final deliverables (cover them by id, or 'package')\n\n{files}\n\n## Final criteria\n\n"
            f"{_existing(project, FINAL_SCOPE)}\n\nPropose one package-level criterion per acceptance item above that "
            "tests it; add \"tests\": [\"<item id>\"] to each.")
    return _Ask(FINAL_SCOPE, [*deliverables, "package"], user,
                {"target": Target.PACKAGE.value, "open_items": [a.id for a in open_items]})


def _accept(project: Project, ask: _Ask, proposals: list[Any], result: DraftResult) -> None:
    from studio.editing.rubric import next_criterion_id

    rubric = project.rubric(ask.rubric)
    taken = {c.key for _, c in project.all_criteria()}
    last = rubric.criteria[-1].key if rubric is not None and rubric.criteria else None
    dimensions = {d.value for d in Dimension}
    allowed = set(ask.files)
    open_items = set(ask.extra.get("open_items", []))
    for number, proposal in enumerate(proposals[:MAX_DRAFTS], 1):
        if not isinstance(proposal, dict):
            result.dropped.append(f"proposal {number}: not an object")
            continue
        text = proposal.get("text")
        weight = proposal.get("weight")
        dimension = proposal.get("dimension")
        covers = proposal.get("covers") or []
        problems = []
        if not isinstance(text, str) or not text.strip():
            problems.append("no text")
        if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= abs(weight) <= 10:
            problems.append(f"weight {weight!r} is not a whole number from -10 to 10 other than 0")
        if dimension not in dimensions:
            problems.append(f"dimension {dimension!r} is not one of {', '.join(sorted(dimensions))}")
        if not isinstance(covers, list) or any(item not in allowed for item in covers):
            problems.append(f"covers {covers!r}: only {', '.join(ask.files)}")
        tests = proposal.get("tests") or []
        if open_items and (not isinstance(tests, list) or not tests or any(t not in open_items for t in tests)):
            problems.append(f"tests {tests!r}: name the acceptance items it tests ({', '.join(sorted(open_items))})")
        if problems:
            result.dropped.append(f"proposal {number} ({str(text)[:60]!r}): " + "; ".join(problems))
            continue
        key = next_criterion_id(ask.rubric, taken, ask.extra.get("target"))
        taken.add(key)
        values: dict[str, Any] = {"id": key, "text": " ".join(str(text).split()), "covers": list(covers),
                                  "target": ask.extra["target"], "dimension": dimension, "weight": weight}
        if "propagates" in ask.extra:
            values["propagates"] = list(ask.extra["propagates"])
        if open_items:
            values["tests"] = list(tests)
        values["review.status"] = "draft"
        result.diff.added.append(AddedCriterion(ask.rubric, key, values, number, last))
        last = key
