"""scripts/judged_sample.py (the screenshots' judged sample): the real judge against the loopback
server, then two experts with a few disagreements, on a run made without Docker."""

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
    assert len(queue.decisions) == 10 and all(d.judge_rater() == judge for d in queue.decisions)
    assert all(set(d.ratings) - {"adjudicated"} == {"judge:test-model", judge, *module.EXPERTS} for d in queue.decisions)
    assert sum(d.adjudicated is not None for d in queue.decisions) == 1
    rationale = queue.decisions[0].ratings[judge]
    assert rationale.evidence and rationale.evidence[0].startswith("outputs/")
    assert queue.adjudication(judge)  # a few decisions for the adjudication queue
    assert len(queue.adjudication(judge)) < len(queue.decisions)
