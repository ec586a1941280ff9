"""A judged sample for the screenshots: the real judge (studio.judging.judge) run on every
checkpoint and final package of the given runs against the loopback chat-completions server of
the tests (tests/judging/chat_server.py), answering deterministically; then two experts' verdicts
on the first decisions, with a few disagreements, written through the review queue.

    add_sample_verdicts(project_root, run_ids, runs_dir=None)

Qt-free; no key and no network: the server listens on 127.0.0.1 only."""

from __future__ import annotations

import hashlib
import json
import re
import sys
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
EXPERTS = ("Marta Lindqvist", "Jonas Weber")
REVIEWED = 14  # decisions each expert reviews, from the first
_CRITERION = re.compile(r"^- (\S+) \((requirement|failure condition|fatal gate)[^)]*\): (.+)$", re.MULTILINE)
_REF = re.compile(r"^\[([^\]\s]+)\]", re.MULTILINE)


def _share(*parts: str) -> int:
    """A stable number 0-99 from the parts (the same sample every time)."""
    return int(hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:8], 16) % 100


def _answer(request: Request) -> Reply:
    """Pass about four in five requirements; cite a place of the evidence the prompt shows."""
    text = request.user_text
    kinds = {cid: (kind, words) for cid, kind, words in _CRITERION.findall(text)}
    found = _REF.findall(text)
    refs = [ref for ref in found if ref.startswith("outputs/")] or found or ["(no evidence)"]
    verdicts = []
    for cid in request.ids:
        kind, words = kinds.get(cid, ("requirement", "the criterion"))
        holds = _share(cid, "holds") < (78 if kind == "requirement" else 15)
        ref = refs[_share(cid, "ref") % len(refs)]
        file = ref.split("#")[0].split("!")[0]
        claim = words.rstrip(".")
        claim = claim[0].lower() + claim[1:] if claim else claim
        if holds:
            rationale = f"{file} shows that {claim}; the cited passage states it with its source."
        else:
            rationale = f"Nothing in {file} or the other files shows that {claim}."
        verdicts.append({"criterion": cid, "verdict": "pass" if holds else "fail", "rationale": rationale,
                         "evidence": [ref]})
    return Reply(body=completion(json.dumps({"verdicts": verdicts})))


def _scopes(run_dir: Path) -> list[str]:
    record = load_run(run_dir)
    scopes = [sub.id for sub in record.subtasks if sub.done and sub.checkpoint]
    return scopes + ([FINAL_SCOPE] if record.final else [])


def add_sample_verdicts(project_root: Path, run_ids: list[str], runs_dir: Path | None = None) -> None:
    """Judge every kept scope of the runs, then add the two experts' verdicts."""
    project_root = Path(project_root)
    runs = Path(runs_dir) if runs_dir is not None else project_root / layout.RUNS_DIR
    loaded = load_project(project_root)
    store = VerdictStore(project_root)
    with ChatServer(_answer) as server:
        settings = JudgeSettings(base_url=server.url, model=MODEL, timeout_s=30, backoff_s=0.05)
        for run_id in run_ids:
            for scope in _scopes(runs / run_id):
                judge_submission(loaded, submission_of_run(runs / run_id, scope), settings, store)
    queue = ReviewQueue.of_project(project_root)
    order = {run_id: str(number) for number, run_id in enumerate(run_ids)}  # not the run's id: the same every time
    settled = False
    for decision in queue.decisions[:REVIEWED]:
        key = (order.get(decision.submission, decision.submission), decision.scope, decision.criterion.id)
        judge = decision.judge_verdict()
        said = judge.verdict if judge is not None and judge.verdict in ("pass", "fail") else "pass"
        other = "fail" if said == "pass" else "pass"
        marta = other if _share(*key, "marta") < 20 else said
        jonas = other if _share(*key, "jonas") < 18 else said
        queue.give(decision, EXPERTS[0], marta,
                   note="The figure is stated but its source is not cited." if marta != said else None)
        queue.give(decision, EXPERTS[1], "na" if _share(*key, "na") < 5 else jonas,
                   note="Read the bridge on the second sheet." if jonas != said else None)
        if not settled and len({v.verdict for v in decision.experts().values()}) > 1:
            queue.adjudicate(decision, said, note="Settled with both reviewers: the source is cited in the workbook.")
            settled = True

if __name__ == "__main__":
    folder = Path(sys.argv[1])
    ids = sys.argv[2:] or sorted(p.parent.name for p in (folder / layout.RUNS_DIR).glob("*/run.json"))
    add_sample_verdicts(folder, ids)
    print(f"judged and reviewed {len(ids)} run(s) of {folder}")
