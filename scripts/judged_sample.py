"""A judged sample for the screenshots: the real judge (studio.judging.judge) run on every
checkpoint and final package of the given runs against the loopback chat-completions server of
the tests (tests/judging/chat_server.py), answering deterministically (the later run does better; a
few criteria are never answered and stay missing); then two experts' verdicts on T01, T02, T05, T06
and the final rubric, written through the review queue, with a few disagreements (Marta reads
T06-C03 and A-04 otherwise than the judge on every run, for the calibration flags) and the first
difference adjudicated.

    add_sample_verdicts(project_root, run_ids, runs_dir=None)

Qt-free; no key and no network: the server listens on 127.0.0.1 only."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the tests' chat server is imported from the source tree
    sys.path.insert(0, str(ROOT))

from studio.judging.judge import JudgeSettings, judge_submission  # noqa: E402
from studio.judging.queue import ReviewQueue  # noqa: E402
from studio.judging.submission import submission_of_run  # noqa: E402
from studio.judging.verdict_store import VerdictStore  # noqa: E402
from studio.model.vocabulary import FINAL_SCOPE  # noqa: E402
from studio.runs.record import load_run  # noqa: E402
from studio.store import layout  # noqa: E402
from studio.store.loader import load_project  # noqa: E402
from tests.judging.chat_server import ChatServer, Reply, Request, completion  # noqa: E402

MODEL = "demo-judge"
EXPERTS = ("Marta Lindqvist", "Joris de Wit")
REVIEWED_SCOPES = ("T01", "T02", "T05", "T06", FINAL_SCOPE)  # what the experts review
FLIPPED = ("T06-C03", "A-04")  # criteria Marta reads otherwise than the judge on every run: calibration flags
_CRITERION = re.compile(r"^- (\S+) \((requirement|failure condition|fatal gate)[^)]*\): (.+)$", re.MULTILINE)
_REF = re.compile(r"^\[([^\]\s]+)\]", re.MULTILINE)
_SCOPE = re.compile(r"^# Instruction of subtask (\S+):", re.MULTILINE)


def _share(*parts: str) -> float:
    """A stable number in [0, 1) from the parts (the same sample every time)."""
    digest = hashlib.sha256("/".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def intended(run: str, number: int, scope: str, criterion: str, kind: str) -> str:
    """The sample judge's verdict: the later (fixed) agent does better, the EBITDA restatement of
    T05/T06 trips both; a failure condition is present now and then, a fatal gate never."""
    share = _share(run, scope, criterion)
    if kind == "fatal gate":
        return "fail"
    if kind == "failure condition":
        return "pass" if share > 0.88 + 0.1 * number else "fail"
    drift = 0.12 if scope in ("T05", "T06") else 0.0
    return "pass" if share < 0.62 + 0.2 * number - drift else "fail"


def unresolved(run: str, criterion: str) -> bool:
    """A few criteria the sample judge never answers: stored as missing, never guessed."""
    return _share(run, criterion, "timeout") < 0.015


def _answerer(run: str, number: int) -> Callable[[Request], Reply]:
    def answer(request: Request) -> Reply:
        text = request.user_text
        found = _SCOPE.search(text)
        scope = found.group(1) if found else FINAL_SCOPE
        kinds = {cid: (kind, words) for cid, kind, words in _CRITERION.findall(text)}
        cited = _REF.findall(text)
        refs = [ref for ref in cited if ref.startswith("outputs/") or ref.startswith("final/")] or cited
        verdicts = []
        for cid in request.ids:
            if unresolved(run, cid):
                continue  # left out of a valid answer: unresolved
            kind, words = kinds.get(cid, ("requirement", "the criterion holds"))
            verdict = intended(run, number, scope, cid, kind)
            ref = refs[int(_share(cid, "ref") * len(refs))] if refs else ""
            file = ref.split("#")[0].split("!")[0] or "the submission"
            claim = words.rstrip(".")
            claim = claim[0].lower() + claim[1:] if claim else claim
            if verdict == "pass":
                rationale = f"{file} shows that {claim}; the cited passage states it with its source."
            else:
                rationale = f"Nothing in {file} or the other files shows that {claim}."
            verdicts.append({"criterion": cid, "holds": verdict == "pass", "rationale": rationale,
                             "evidence": [ref] if ref else []})
        return Reply(body=completion(json.dumps({"verdicts": verdicts})))

    return answer


def _scopes(run_dir: Path) -> list[str]:
    record = load_run(run_dir)
    scopes = [sub.id for sub in record.subtasks if sub.done and sub.checkpoint]
    return scopes + ([FINAL_SCOPE] if record.final else [])


def add_sample_verdicts(project_root: Path, run_ids: list[str], runs_dir: Path | None = None) -> None:
    """Judge every kept scope of the runs (the real judge, a loopback server), then the two experts."""
    project_root = Path(project_root)
    runs = Path(runs_dir) if runs_dir is not None else project_root / layout.RUNS_DIR
    loaded = load_project(project_root)
    store = VerdictStore(project_root)
    for number, run_id in enumerate(run_ids):
        with ChatServer(_answerer(run_id, number)) as server:
            settings = JudgeSettings(base_url=server.url, model=MODEL, timeout_s=30, backoff_s=0.05)
            for scope in _scopes(runs / run_id):
                judge_submission(loaded, submission_of_run(runs / run_id, scope), settings, store)
    queue = ReviewQueue.of_project(project_root)
    numbers = {run_id: number for number, run_id in enumerate(run_ids)}
    for decision in queue.decisions:
        run, scope, cid = decision.key
        if run not in numbers or scope not in REVIEWED_SCOPES:
            continue
        criterion = decision.criterion
        kind = "fatal gate" if criterion.gate else "requirement" if criterion.weight > 0 else "failure condition"
        value = intended(run, numbers[run], scope, cid, kind)
        other = "fail" if value == "pass" else "pass"
        flip = not criterion.gate and (_share(run, cid, "marta") < 0.1 or cid in FLIPPED)
        marta = other if flip else value
        queue.give(decision, EXPERTS[0], marta,
                   note="The figure is stated but its source is not cited." if flip else None)
        if _share(run, cid, "joris") < 0.6:
            joris = marta if criterion.gate or _share(run, cid, "joris-differs") > 0.06 else value
            queue.give(decision, EXPERTS[1], joris, note="Read the bridge on the second sheet." if joris != marta
                       else None)
    differ = queue.adjudication(f"judge:{MODEL}")
    if differ:  # one difference settled, the others left for the adjudication queue
        first = differ[0]
        queue.adjudicate(first, first.ratings[EXPERTS[0]].verdict, EXPERTS[0],
                         note="Settled with both reviewers: the source is cited in the workbook.")


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    ids = sys.argv[2:] or sorted(p.parent.name for p in (folder / layout.RUNS_DIR).glob("*/run.json"))
    add_sample_verdicts(folder, ids)
    print(f"judged and reviewed {len(ids)} run(s) of {folder}")
