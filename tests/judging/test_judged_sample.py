"""scripts/judged_sample.py (the screenshots' judged sample): the real judge against the loopback
server, then two experts, on a run made without Docker."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from studio.judging.queue import ReviewQueue
from tests.judging.projects import RUN_ID
from tests.judging.review_project import review_project

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "judged_sample.py"


def test_the_sample_is_judged_and_reviewed_by_two_experts(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("judged_sample", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root = review_project(tmp_path)
    module.add_sample_verdicts(root, [RUN_ID])
    queue = ReviewQueue.of_project(root)
    judge = f"judge:{module.MODEL}"
    marta, joris = module.EXPERTS
    assert len(queue.decisions) == 10
    for decision in queue.decisions:
        kind = "requirement" if decision.criterion.weight > 0 else "failure condition"
        intended = module.intended(RUN_ID, 0, "T01", decision.criterion.id, kind)
        said = decision.ratings[judge]
        # the judge's verdict came through the real judge: the server's answer, or missing when it never answered
        assert said.verdict == ("missing" if module.unresolved(RUN_ID, decision.criterion.id) else intended)
        assert said.verdict == "missing" or (said.note and said.evidence[0].startswith("outputs/"))
        assert marta in decision.ratings
    reviewed_by_joris = [d for d in queue.decisions if joris in d.ratings]
    assert 0 < len(reviewed_by_joris) < 10
    settled = [d for d in queue.decisions if d.adjudicated is not None]
    assert len(settled) == (1 if queue.adjudication(judge) else 0)
    assert all(d.adjudicated.verdict == d.ratings[marta].verdict for d in settled)
