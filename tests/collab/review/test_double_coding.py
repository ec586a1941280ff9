"""The double-coding plan: its size is the least n whose Wilson interval is as narrow as asked, it is
drawn the same for the same seed and covers every judged scope, and its progress counts the
decisions both experts gave."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.judging.double_coding import interval_width, load_plan, needed
from studio.judging.queue import ReviewQueue
from studio.store.yamlfile import YamlDocument, plain
from tests.collab.review.review_work_project import SCOPES, cli, review_work_project
from tests.helpers import REPO_ROOT

Z = 1.959963984540054
RATERS = ("Anna Berg", "Ben Ode")


def wilson_width(n: int, p: float) -> float:
    """The 95% Wilson interval's width written out here from the formula in docs/review-work.md."""
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return min(1.0, centre + half) - max(0.0, centre - half)


def closed_form(width: float, p: float) -> int:
    """n from the quadratic the docs give: W^2 n^2 + (2 W^2 z^2 - 4 z^2 p q) n + W^2 z^4 - z^4 >= 0."""
    a, b = width * width, 2 * width * width * Z * Z - 4 * Z * Z * p * (1 - p)
    c = width * width * Z**4 - Z**4
    return math.ceil((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a))


@pytest.mark.parametrize(("width", "p", "expected_n"), [
    (0.10, 0.85, 196), (0.05, 0.85, 784), (0.20, 0.85, 49), (0.10, 0.50, 381), (0.10, 0.93, 107),
])
def test_the_plans_n_is_the_least_with_a_wilson_interval_that_narrow(width: float, p: float, expected_n: int):
    n = needed(width, p)
    assert wilson_width(n, p) <= width < wilson_width(n - 1, p)
    assert n == expected_n == closed_form(width, p)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.02, 0.6), st.floats(0.3, 0.99))
def test_needed_is_minimal_for_any_width_and_agreement(width: float, p: float):
    n = needed(width, p)
    assert interval_width(n, p) <= width
    assert n == 1 or interval_width(n - 1, p) > width
    assert interval_width(n, p) == pytest.approx(wilson_width(n, p))


def _plan(root: Path, *options: str) -> tuple[int, str, str]:
    return cli("plan", str(root), "--raters", *RATERS, *options)


def test_a_plan_is_drawn_the_same_for_a_seed_and_covers_every_scope(tmp_path: Path):
    first = review_work_project(tmp_path / "a")
    second = tmp_path / "b" / "project"
    shutil.copytree(first, second)
    assert _plan(first, "--width", "0.30", "--seed", "11")[0] == 0
    assert _plan(second, "--width", "0.30", "--seed", "11")[0] == 0
    text = (first / "review/double-coding.yaml").read_text()
    assert text == (second / "review/double-coding.yaml").read_text()
    plan = load_plan(first)
    assert plan is not None and plan.seed == 11 and plan.needed == needed(0.30, 0.85) == 22
    assert len(plan.decisions) == 22
    assert {ref.scope for ref in plan.decisions} == set(SCOPES)
    assert len({(r.run, r.scope, r.criterion) for r in plan.decisions}) == 22  # no decision twice
    # each scope in proportion to its decisions (T01 holds 20 of 36, T02 and final 8 each)
    assert [sum(r.scope == s for r in plan.decisions) for s in SCOPES] == [12, 5, 5]
    # within a scope the criteria come round before any repeats: T02 has 4 criteria over two runs
    t02 = [r.criterion for r in plan.decisions if r.scope == "T02"]
    assert len(set(t02[:4])) == 4
    shutil.rmtree(second / "review")
    assert _plan(second, "--width", "0.30", "--seed", "12")[0] == 0
    assert (second / "review/double-coding.yaml").read_text() != text
    schema = json.loads((REPO_ROOT / "schemas/double-coding.schema.json").read_text())
    jsonschema.validate(plain(YamlDocument.load(first / "review/double-coding.yaml").data), schema)


def test_a_small_plan_still_reaches_every_scope(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert _plan(root, "--width", "0.6", "--seed", "3")[0] == 0
    plan = load_plan(root)
    assert plan is not None and plan.needed == needed(0.6, 0.85) and plan.needed >= len(SCOPES)
    assert {ref.scope for ref in plan.decisions} == set(SCOPES)


def test_progress_counts_what_both_experts_gave_and_resizes_from_the_observed_agreement(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert _plan(root, "--width", "0.30", "--seed", "5")[0] == 0
    plan = load_plan(root)
    assert plan is not None
    queue = ReviewQueue.of_project(root)
    refs = plan.decisions[:10]
    for index, ref in enumerate(refs):
        decision = queue.find(ref.run, ref.scope, ref.criterion)
        queue.give(decision, RATERS[0], "pass")
        if index < 8:  # two given by one expert only: not double-coded yet
            queue.give(decision, RATERS[1], "pass" if index < 6 else "fail")
    code, out, _ = cli("plan", str(root), "--status", "--format", "json")
    assert code == 0
    status = json.loads(out)
    assert (status["planned"], status["double_coded"], status["agreed"]) == (22, 8, 6)
    assert status["observed_agreement"] == pytest.approx(0.75)
    assert status["current_width"] == pytest.approx(wilson_width(8, 0.75))
    assert status["needed"] == needed(0.30, 0.75) == 30
    assert status["still_needed"] == 30 - 8
    # updating the plan keeps every planned decision and draws more for the observed agreement
    assert _plan(root, "--width", "0.30")[0] == 0
    grown = load_plan(root)
    assert grown is not None and grown.seed == 5 and grown.needed == 30 and len(grown.decisions) == 30
    assert grown.decisions[:22] == plan.decisions
    code, out, _ = cli("plan", str(root), "--status")
    assert "double-coded by all: 8; agreed: 6" in out and "still needed 22" in out


@pytest.mark.parametrize(("options", "named"), [
    (("--width", "1.5"), "--width 1.5"),
    (("--width", "0"), "--width 0.0"),
    (("--width", "0.1", "--expected", "1"), "--expected 1.0"),
    (("--width", "0.1", "--seed", "-4"), "--seed -4"),
])
def test_bad_plan_input_exits_2_naming_it(tmp_path: Path, options: tuple[str, ...], named: str):
    root = review_work_project(tmp_path)
    code, _, err = _plan(root, *options)
    assert code == 2 and named in err
    assert not (root / "review").exists()  # nothing half-written


def test_a_plan_needs_two_experts_and_status_needs_a_plan(tmp_path: Path):
    root = review_work_project(tmp_path)
    code, _, err = cli("plan", str(root), "--raters", "Anna Berg", "--width", "0.1")
    assert code == 2 and "at least two different experts" in err
    code, _, err = cli("plan", str(root), "--raters", "Anna Berg", "judge:gpt", "--width", "0.1")
    assert code == 2 and "'judge:gpt' is reserved" in err
    code, _, err = cli("plan", str(root), "--status")
    assert code == 2 and "no double-coding plan yet" in err
