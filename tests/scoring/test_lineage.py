"""Defect lineage on constructed runs of the sample: verdicts written to its verdict store with known
defects — one that persists to the final package, one repaired there, one that propagates downstream
through a handoff, one nothing later observes, one caused by a criterion it requires, a missing verdict
and a checkpoint not judged — and each classified as built."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studio.judging.lineage_reading import lineage_of
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict, criterion_version
from studio.model.vocabulary import FINAL_SCOPE
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import run_cli

RUN = "run-constructed"


def write_run(root: Path, submission: str, overrides: dict[tuple[str, str], str], skip: set[str] = frozenset(),
              rater: str = "judge:test-model") -> None:
    """Every criterion of every scope (but `skip`) without a defect, unless `overrides` says its verdict."""
    project = load_project(root).project
    verdicts = []
    now = datetime(2026, 12, 2, tzinfo=UTC)
    scopes = [*project.timeline(), FINAL_SCOPE]
    for scope in scopes:
        if scope in skip:
            continue
        for criterion in project.rubric(scope).criteria:
            scored = project.scored_as(scope, criterion)
            clean = "fail" if scored.gate or (scored.weight or 0) < 0 else "pass"
            verdict = overrides.get((scope, criterion.key), clean)
            verdicts.append(Verdict(criterion=criterion.key, scope=scope, verdict=verdict, rater=rater,
                                    time=now, criterion_version=criterion_version(scored)))
    VerdictStore(root).put(submission, verdicts)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """One constructed run per case: everything downstream of an artifact hangs on it, so a second defect in
    the same run would be downstream of the first (its propagated failure)."""
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    # persisted: T06-C02 fails at T06 and again on the final model (and T06-C03 requires it)
    write_run(root, "run-persisted", {("T06", "T06-C02"): "fail", (FINAL_SCOPE, "T06-C02"): "fail"})
    # repaired: T07-C01 fails at T07, its reuse on the final presentation holds
    write_run(root, "run-repaired", {("T07", "T07-C01"): "fail"})
    # propagated: T01's earnings note (handed to T03) fails T01-C03, and T03-C02 fails on T03's summary
    write_run(root, "run-propagated", {("T01", "T01-C03"): "fail", ("T03", "T03-C02"): "fail"})
    # unobserved: T02's findings fail T02-C04; no later criterion judges that file, nothing downstream fails;
    # a missing verdict at T04 and T05 not judged at all
    write_run(root, RUN, {("T02", "T02-C04"): "fail", ("T04", "T04-C02"): "missing"}, skip={"T05"})
    return root


def _defects(root: Path, submission: str) -> dict:
    return {d.key: d for d in lineage_of(load_project(root), submission).defects}


def test_a_defect_that_persists_to_the_final_package(sample: Path) -> None:
    found = _defects(sample, "run-persisted")
    assert set(found) == {"T06/T06-C02", "T06/T06-C03"}
    assert (found["T06/T06-C02"].kind, found["T06/T06-C02"].fate) == ("persisted", "persisted")
    final = next(c for c in found["T06/T06-C02"].cells if c.scope == FINAL_SCOPE)
    assert final.fails_again == ["T06-C02"] and final.code() == "x"
    assert found["T06/T06-C03"].cause == "T06-C02"  # not credited only because what it requires failed
    assert found["T06/T06-C03"].kind == "persisted"  # the final model's T06-C02 is on its file too


def test_a_defect_repaired_later(sample: Path) -> None:
    (defect,) = _defects(sample, "run-repaired").values()
    assert (defect.key, defect.kind) == ("T07/T07-C01", "repaired")
    final = next(c for c in defect.cells if c.scope == FINAL_SCOPE)
    # its reuse holds there, and so does every other final criterion on the presentation it becomes (F3)
    assert final.holds_again[0] == "T07-C01" and not final.fails_again and final.text() == "holds again"


def test_a_defect_that_propagates_downstream(sample: Path) -> None:
    found = _defects(sample, "run-propagated")
    defect = found["T01/T01-C03"]
    assert (defect.kind, defect.propagated) == ("propagated", ["T03/T03-C02"])
    t03 = next(c for c in defect.cells if c.scope == "T03")
    assert t03.downstream == ["T03-C02"] and t03.code() == ">1"
    assert found["T03/T03-C02"].kind in ("persisted", "repaired", "unobserved", "propagated")
    assert all(not c.downstream for c in defect.cells if c.scope not in ("T03",))


def test_unobserved_missing_and_not_judged(sample: Path) -> None:
    lineage = lineage_of(load_project(sample), RUN)
    (defect,) = lineage.defects
    assert (defect.key, defect.kind, defect.fate) == ("T02/T02-C04", "unobserved", "unobserved")
    assert "T04/T04-C02" in lineage.unknown
    assert lineage.not_judged == ["T05"]
    assert next(c for c in defect.cells if c.scope == "T05").code() == "?"
    assert lineage.counts() == {"propagated": 0, "persisted": 0, "repaired": 0, "unobserved": 1}


def test_a_clean_run_has_no_defect_and_a_judge_filter_reads_only_its_verdicts(sample: Path) -> None:
    write_run(sample, "run-clean", {})
    lineage = lineage_of(load_project(sample), "run-clean")
    assert lineage.defects == [] and lineage.not_judged == []
    # no verdict of that judge: every scope not judged, nothing classified
    other = lineage_of(load_project(sample), RUN, judge="judge:another-model")
    assert other.defects == [] and other.judged == []


def test_the_command_line_prints_the_matrix_and_json(sample: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "lineage", str(sample), "--submission", "run-persisted")
    assert code == 0
    assert out.splitlines()[0] == "defect lineage of run-persisted: 0 propagated, 2 persisted, 0 repaired, 0 unobserved"
    row = next(line for line in out.splitlines() if line.startswith("T06/T06-C02"))
    assert row.split()[1] == "persisted" and row.split()[-1] == "x"  # fails again in the final package
    assert "(requires T06-C02)" in out
    code, out, _ = run_cli(capsys, "lineage", str(sample), "--submission", "run-propagated")
    assert "T01/T01-C03 propagated to T03/T03-C02" in out
    code, out, _ = run_cli(capsys, "lineage", str(sample), "--submission", RUN, "--json")
    data = json.loads(out)
    assert data["counts"]["unobserved"] == 1 and data["not_judged"] == ["T05"]
    code, _, err = run_cli(capsys, "lineage", str(sample), "--submission", "nobody")
    assert code == 2 and "no verdicts of submission 'nobody'" in err
