"""The edit-impact core against brute force: on seeded random projects (two checkpoint rubrics and a
final one, gates, `requires`, negative weights, scores that clip) judged for three submissions with
some verdicts missing, a random edit (text, weight and gate edits stale a verdict; `requires` edits,
new and deleted criteria do not), every completion of the missing verdicts is enumerated here one
by one: each score's range is exactly [min, max] over them, and a pair of submissions is reported
as able to change order exactly when some joint completion puts the lower one level or above.
Hand-made cases pin the wording of each kind of flip."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import pytest

from studio.scoring.bounds import ScoreRange
from studio.scoring.edit_impact import (
    flip_text,
    mean_span,
    possible_flips,
    project_flips,
    span_text,
    submission_impact,
)
from studio.scoring.engine import RubricColumns, ScoredCriterion, ScoringError

SCOPES = ("T01", "T02", "final")
SUBMISSIONS = ("s1", "s2", "s3")


@dataclass
class Spec:
    """One criterion as the rubric defines it."""

    id: str
    weight: int
    gate: bool = False
    requires: tuple[str, ...] = ()
    text: str = "t"


@dataclass
class Case:
    before: dict[str, list[Spec]]
    after: dict[str, list[Spec]]
    verdicts: dict[str, dict[tuple[str, str], bool | None]]  # submission -> (scope, id) -> verdict before
    stale: set[tuple[str, str]] = field(default_factory=set)  # edited in text, weight or gate


def random_rubric(rng: random.Random, scope: str) -> list[Spec]:
    while True:
        specs: list[Spec] = []
        for n in range(rng.randint(2, 4)):
            cid = f"{scope}-{n}"
            gate = rng.random() < 0.15
            weight = 0 if gate else rng.choice([w for w in range(-10, 11) if w])
            earlier = [s.id for s in specs]
            requires = tuple(rng.sample(earlier, rng.randint(0, min(2, len(earlier))))) if earlier and rng.random() < 0.4 else ()
            specs.append(Spec(cid, weight, gate, requires))
        if any(s.weight > 0 for s in specs):
            return specs


def edit(rng: random.Random, before: dict[str, list[Spec]]) -> tuple[dict[str, list[Spec]], set[tuple[str, str]]]:
    after = {scope: [Spec(s.id, s.weight, s.gate, s.requires, s.text) for s in specs] for scope, specs in before.items()}
    stale: set[tuple[str, str]] = set()
    for _ in range(rng.randint(1, 3)):
        scope = rng.choice(SCOPES)
        specs = after[scope]
        kind = rng.choice(["text", "weight", "gate", "requires", "add", "delete"])
        target = rng.choice(specs)
        if kind == "text":
            target.text += " (reworded)"
            stale.add((scope, target.id))
        elif kind == "weight" and not target.gate:
            target.weight = rng.choice([w for w in range(-10, 11) if w and w != target.weight])
            stale.add((scope, target.id))
        elif kind == "gate":
            target.gate, target.weight = (False, rng.choice([-3, 2, 6])) if target.gate else (True, 0)
            stale.add((scope, target.id))
        elif kind == "requires":
            earlier = [s.id for s in specs[:specs.index(target)]]
            target.requires = tuple(rng.sample(earlier, rng.randint(0, len(earlier)))) if earlier else ()
        elif kind == "add":
            specs.append(Spec(f"{scope}-new{rng.randrange(10**6)}", rng.choice([-4, 3, 5, 8])))
        elif kind == "delete" and len(specs) > 1:
            specs.remove(target)
            for other in specs:
                other.requires = tuple(r for r in other.requires if r != target.id)
            stale.discard((scope, target.id))
    return after, stale


def random_case(seed: int) -> Case:
    rng = random.Random(seed)
    while True:
        before = {scope: random_rubric(rng, scope) for scope in SCOPES}
        after, stale = edit(rng, before)
        if not all(any(s.weight > 0 for s in specs) for specs in after.values()):
            continue
        verdicts = {sub: {(scope, s.id): rng.choice([True, True, False, None] if rng.random() < 0.25 else [True, False])
                          for scope, specs in before.items() for s in specs} for sub in SUBMISSIONS}
        return Case(before, after, verdicts, stale)


def columns(specs: list[Spec], scope: str, verdict_of: dict[tuple[str, str], bool | None]) -> RubricColumns:
    return RubricColumns.of([ScoredCriterion(s.id, s.weight, "artifact" if scope == "final" else "checkpoint",
                                             "correctness", verdict_of.get((scope, s.id)), s.gate, s.requires)
                             for s in specs])


def sides(case: Case, sub: str) -> tuple[dict[str, RubricColumns], dict[str, RubricColumns]]:
    given = case.verdicts[sub]
    # after the edit: a stale verdict no longer counts, a new criterion has none
    kept = {key: value for key, value in given.items() if key not in case.stale}
    return ({scope: columns(specs, scope, given) for scope, specs in case.before.items()},
            {scope: columns(specs, scope, kept) for scope, specs in case.after.items()})


# -- the reference: every completion, scored from the rules of domain.md ---------------------------
def credit_and_gate(specs: list[Spec], verdict: dict[str, bool]) -> tuple[int, bool]:
    """(Σ w·h, whether a gate triggered), h resolving `requires` recursively."""
    def holds(cid: str) -> bool:
        spec = next(s for s in specs if s.id == cid)
        return verdict[cid] and all(holds(r) for r in spec.requires)

    return sum(s.weight for s in specs if holds(s.id)), any(s.gate and holds(s.id) for s in specs)


def reference_score(specs: list[Spec], verdict: dict[str, bool]) -> float:
    credit, gate = credit_and_gate(specs, verdict)
    if gate:
        return 0.0
    positive = sum(s.weight for s in specs if s.weight > 0)
    return min(100.0, max(0.0, 100.0 * credit / positive))


def completions(rubrics: dict[str, list[Spec]], given: dict[tuple[str, str], bool | None]) -> list[dict[str, float]]:
    """The scores (each rubric's, 'process', 'final') of every completion of the missing verdicts."""
    open_keys = [(scope, s.id) for scope, specs in rubrics.items() for s in specs if given.get((scope, s.id)) is None]
    out = []
    for values in itertools.product((False, True), repeat=len(open_keys)):
        full = {**{k: v for k, v in given.items() if v is not None}, **dict(zip(open_keys, values, strict=True))}
        scores = {scope: reference_score(specs, {s.id: full[(scope, s.id)] for s in specs})
                  for scope, specs in rubrics.items()}
        checkpoints = [scores[s] for s in rubrics if s != "final"]
        scores["process"] = sum(checkpoints) / len(checkpoints)
        out.append(scores)
    return out


def kept_verdicts(case: Case, sub: str) -> dict[tuple[str, str], bool | None]:
    return {key: value for key, value in case.verdicts[sub].items() if key not in case.stale}


@pytest.mark.parametrize("seed", range(300))
def test_ranges_and_flips_are_those_of_every_completion(seed: int):
    case = random_case(seed)
    impacts = {sub: submission_impact(sub, *sides(case, sub)) for sub in SUBMISSIONS}
    before = {sub: completions(case.before, case.verdicts[sub]) for sub in SUBMISSIONS}
    after = {sub: completions(case.after, kept_verdicts(case, sub)) for sub in SUBMISSIONS}
    for sub, impact in impacts.items():
        for scope in SCOPES:
            rubric = impact.rubrics[scope]
            for span, found in ((rubric.before, before[sub]), (rubric.after, after[sub])):
                values = [c[scope] for c in found]
                assert span is not None and span.exact
                assert (span.low, span.high) == pytest.approx((min(values), max(values))), (seed, sub, scope)
            had = {cid for (s, cid), v in case.verdicts[sub].items() if s == scope and v is not None}
            assert set(rubric.stale) == {cid for s, cid in case.stale if s == scope and cid in had}
            assert set(rubric.removed) == {s.id for s in case.before[scope]} - {s.id for s in case.after[scope]}
        for measure in ("final", "process"):
            for side, found in ((0, before[sub]), (1, after[sub])):
                values = [c[measure] for c in found]
                span = impact.span(measure, side)
                assert span is not None
                assert (span.low, span.high) == pytest.approx((min(values), max(values)))
    flips = {(f.measure, f.above, f.below): f for f in project_flips(impacts.values())}
    expected = {}
    for measure in ("final", "process"):
        for upper, lower in itertools.permutations(SUBMISSIONS, 2):
            # ranked over before in every joint completion, then the joint completions after
            if not min(c[measure] for c in before[upper]) > max(c[measure] for c in before[lower]):
                continue
            # every joint completion (each submission's verdicts are its own), by the distinct scores reached
            reached_upper, reached_lower = {c[measure] for c in after[upper]}, {c[measure] for c in after[lower]}
            gaps = [b - a for a in reached_upper for b in reached_lower]  # lower - upper
            if max(gaps) >= -1e-9:
                expected[(measure, upper, lower)] = (min(gaps) >= -1e-9, max(gaps) <= 1e-9)
    assert {key: (f.certain, f.tie_only) for key, f in flips.items()} == expected, seed


def test_the_random_cases_hold_every_kind_of_flip():
    """The brute-force cases above are not all alike: some flips can happen, some are certain, some
    can only tie, and most pairs keep their order."""
    kinds = set()
    for seed in range(300):
        case = random_case(seed)
        flips = project_flips([submission_impact(sub, *sides(case, sub)) for sub in SUBMISSIONS])
        kinds |= {("certain" if f.certain else "tie" if f.tie_only else "can") for f in flips}
        kinds |= {"none"} if not flips else set()
    assert kinds == {"certain", "tie", "can", "none"}


def test_the_random_cases_hold_gates_requires_deductions_and_clipping():
    seen = set()
    for seed in range(300):
        case = random_case(seed)
        for scope, specs in case.after.items():
            seen |= {"requires"} if any(s.requires for s in specs) else set()
            seen |= {"negative"} if any(s.weight < 0 for s in specs) else set()
            for sub in SUBMISSIONS:
                given = kept_verdicts(case, sub)
                open_ids = [s.id for s in specs if given.get((scope, s.id)) is None]
                for values in itertools.product((False, True), repeat=len(open_ids)):
                    full = {s.id: given.get((scope, s.id)) for s in specs} | dict(zip(open_ids, values, strict=True))
                    credit, gate = credit_and_gate(specs, full)
                    seen |= {"gate triggered"} if gate else {"clipped"} if credit < 0 else set()
        seen |= {"stale"} if case.stale else set()
    assert seen == {"gate triggered", "requires", "negative", "clipped", "stale"}


def crit(cid: str, weight: int, verdict: bool | None, gate: bool = False,
         requires: tuple[str, ...] = ()) -> ScoredCriterion:
    return ScoredCriterion(cid, weight, "checkpoint", "correctness", verdict, gate, requires)


def rubric(*criteria: ScoredCriterion) -> dict[str, RubricColumns]:
    return {"T01": RubricColumns.of(list(criteria))}


def test_a_stale_verdict_opens_the_range_a_kept_one_does_not():
    # before: a 6 pass, b 4 fail -> 60; after a's verdict is stale: 0 (a fails) to 60
    impact = submission_impact("s", rubric(crit("a", 6, True), crit("b", 4, False)),
                               rubric(crit("a", 6, None), crit("b", 4, False)))
    t01 = impact.rubrics["T01"]
    assert t01.before == ScoreRange(60.0, 60.0, True) and t01.after == ScoreRange(0.0, 60.0, True)
    assert t01.stale == ("a",) and t01.missing == 1 and impact.changed
    assert span_text(t01.before) == "60.00" and span_text(t01.after) == "0.00–60.00"


def test_requires_and_deletions_rescore_exactly():
    # before: b (4) requires a (6, fail): 0 credit; after the requires is gone and c is deleted
    before = rubric(crit("a", 6, False), crit("b", 4, True, requires=("a",)), crit("c", -5, True))
    after = rubric(crit("a", 6, False), crit("b", 4, True))
    impact = submission_impact("s", before, after)
    t01 = impact.rubrics["T01"]
    assert t01.before == ScoreRange(0.0, 0.0, True) and t01.after == ScoreRange(40.0, 40.0, True)
    assert t01.removed == ("c",) and not t01.stale and t01.missing == 0


def test_a_new_criterion_has_no_verdict():
    impact = submission_impact("s", rubric(crit("a", 5, True)), rubric(crit("a", 5, True), crit("n", -5, None)))
    t01 = impact.rubrics["T01"]
    assert t01.added == ("n",) and t01.after == ScoreRange(0.0, 100.0, True)


def test_a_rubric_left_without_positive_weight_is_named():
    with pytest.raises(ScoringError, match="the rubric of T01 as edited: the rubric has no positive weight"):
        submission_impact("s", rubric(crit("a", 5, True)), rubric(crit("a", -5, True)))


def spans(**values: tuple[float, float]) -> dict[str, ScoreRange]:
    return {name: ScoreRange(low, high, True) for name, (low, high) in values.items()}


def test_the_words_of_each_flip():
    before = spans(a=(80, 80), b=(70, 70), c=(60, 60), d=(50, 50))
    after = spans(a=(40, 80), b=(70, 70), c=(75, 75), d=(30, 40))
    flips = {(f.above, f.below): f for f in possible_flips("final", before, after)}
    # a can fall to 40: b (70) and c (75) may pass it, d (at most 40) can only tie it; c passes b surely
    assert set(flips) == {("a", "b"), ("a", "c"), ("a", "d"), ("b", "c")}
    assert flips[("a", "d")].tie_only and not flips[("a", "d")].certain
    assert flips[("b", "c")].certain
    assert flip_text(flips[("b", "c")]) == ("final: b (70.00) was above c (60.00); after the edit 70.00 against "
                                            "75.00: c ranks above it")
    assert flip_text(flips[("a", "d")]).endswith("d can tie it, no more")
    assert flip_text(flips[("a", "b")]).endswith("b can rank level or above it")


def test_pairs_tied_or_overlapping_before_are_not_ranked():
    before = spans(a=(60, 70), b=(60, 60), c=(60, 60))  # a may be 60 too; b and c are level
    after = spans(a=(0, 100), b=(0, 100), c=(0, 100))
    assert possible_flips("final", before, after) == []


def test_the_mean_of_independent_ranges():
    assert mean_span([ScoreRange(10, 20, True), ScoreRange(30, 30, True)]) == ScoreRange(20, 25, True)
    assert mean_span([ScoreRange(10, 20, False), ScoreRange(30, 30, True)]).exact is False
    assert mean_span([ScoreRange(10, 20, True), None]) is None and mean_span([]) is None


@pytest.mark.parametrize("seed", range(60))
def test_means_over_projects_change_order_exactly_when_some_joint_completion_does(seed: int):
    """Two projects, the same three systems on each: a system's mean ranges over the mean of its lows to
    the mean of its highs, and the flips among the means are those of every joint completion."""
    projects = [random_case(1000 + 2 * seed), random_case(1001 + 2 * seed)]
    spans_before, spans_after, reached_before, reached_after = {}, {}, {}, {}
    for sub in SUBMISSIONS:
        impacts = [submission_impact(sub, *sides(case, sub)) for case in projects]
        spans_before[sub] = mean_span([i.final[0] for i in impacts])
        spans_after[sub] = mean_span([i.final[1] for i in impacts])
        before = [{c["final"] for c in completions(case.before, case.verdicts[sub])} for case in projects]
        after = [{c["final"] for c in completions(case.after, kept_verdicts(case, sub))} for case in projects]
        reached_before[sub] = {(a + b) / 2 for a in before[0] for b in before[1]}
        reached_after[sub] = {(a + b) / 2 for a in after[0] for b in after[1]}
        assert (spans_after[sub].low, spans_after[sub].high) == pytest.approx(
            (min(reached_after[sub]), max(reached_after[sub])))
    found = {(f.above, f.below): (f.certain, f.tie_only) for f in possible_flips("final", spans_before, spans_after)}
    expected = {}
    for upper, lower in itertools.permutations(SUBMISSIONS, 2):
        if not min(reached_before[upper]) > max(reached_before[lower]):
            continue
        gaps = [b - a for a in reached_after[upper] for b in reached_after[lower]]
        if max(gaps) >= -1e-9:
            expected[(upper, lower)] = (min(gaps) >= -1e-9, max(gaps) <= 1e-9)
    assert found == expected
