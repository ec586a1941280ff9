"""`dbstudio benchmark robustness`: how far each system's rank in a benchmark report can move when a
project or a criterion is left out, when the weights move a little, or when the judge is wrong as
often as the expert sample says it is (docs/robustness.md).

The ranking is the report's (studio/benchmark/report.py): each system's final-score mean (or
process-score mean) over the shared project set, from the same verdicts the report scores (the
selected submissions, the benchmark judge's verdict wherever the people have not settled the
decision). The analyses themselves are pure (studio/scoring/robust_*.py); this module reads the
benchmark into their terms and measures the judge's error on the expert sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from studio.benchmark.loader import LoadedBenchmark
from studio.benchmark.reading import BenchmarkReading
from studio.errors import StudioError

if TYPE_CHECKING:
    from studio.benchmark.report import BenchmarkReport
    from studio.judging.tables import ProjectVerdicts
    from studio.scoring.rank_intervals import PairOrder, RankInterval
    from studio.scoring.ranking import Ranking
    from studio.scoring.robust_flips import FlipBudget

KINDS = ("projects", "criteria", "weights", "judge")
TITLES = {"projects": "leave a project out", "criteria": "leave a criterion out", "weights": "weights ±{delta}",
          "judge": "judge error"}


class RobustnessError(StudioError):
    """The benchmark's ranking cannot be analysed (no shared project set, a system without a mean)."""


@dataclass(frozen=True)
class JudgeSample:
    """The judge's measured error on the decisions the people settled (adjudicated, else agreeing
    experts), pooled over every project, system, target and dimension of the benchmark."""

    judge: str | None  # None: every judge's verdicts (the benchmark pins none)
    decisions: int
    judge_passes: int
    false_passes: int  # judge pass, people fail
    judge_fails: int
    false_fails: int  # judge fail, people pass

    @property
    def false_pass_rate(self) -> Fraction:
        return Fraction(self.false_passes, self.judge_passes)

    @property
    def false_fail_rate(self) -> Fraction:
        return Fraction(self.false_fails, self.judge_fails)

    def problem(self) -> str | None:
        """Why no budget can be measured from this sample, or None."""
        who = self.judge or "the judges"
        if not self.decisions:
            return (f"no expert sample: no decision {who} judged in the reported submissions is settled by the "
                    "people (review some as an expert, or adjudicate them); the error rates are not invented")
        if not self.judge_passes:
            return (f"the expert sample ({self.decisions} decisions) holds no pass by {who}: the false-pass rate "
                    "is not measured")
        if not self.judge_fails:
            return (f"the expert sample ({self.decisions} decisions) holds no fail by {who}: the false-fail rate "
                    "is not measured")
        return None

    def to_json(self) -> dict:
        defined = self.problem() is None
        return {"judge": self.judge, "decisions": self.decisions, "judge_passes": self.judge_passes,
                "false_passes": self.false_passes, "judge_fails": self.judge_fails, "false_fails": self.false_fails,
                "false_pass_rate": float(self.false_pass_rate) if defined else None,
                "false_fail_rate": float(self.false_fail_rate) if defined else None}


@dataclass(frozen=True)
class Robustness:
    benchmark: str
    judge: str | None
    metric: str
    delta: int
    projects: list[str]  # the shared set
    systems: list[str]
    means: dict[str, Fraction]
    ranks: dict[str, int]
    orders: dict[str, PairOrder]  # kind -> its pair order (absent where unavailable)
    unavailable: dict[str, str]  # kind -> why
    sample: JudgeSample
    budgets: dict[str, FlipBudget] = field(default_factory=dict)
    judged: dict[str, tuple[int, int]] = field(default_factory=dict)  # system -> (judge passes, judge fails)

    def title(self, kind: str) -> str:
        return TITLES[kind].format(delta=self.delta)

    def intervals(self) -> dict[str, dict[str, RankInterval]]:
        return {kind: order.intervals() for kind, order in self.orders.items()}

    def to_json(self) -> dict:
        intervals = self.intervals()
        systems = []
        for s in self.systems:
            entry: dict = {"system": s, "mean": round(float(self.means[s]), 6), "rank": self.ranks[s]}
            for kind in KINDS:
                interval = intervals.get(kind, {}).get(s)
                entry[kind] = None if interval is None else [interval.best, interval.worst]
            systems.append(entry)
        kinds = {}
        for kind in KINDS:
            order = self.orders.get(kind)
            if order is None:
                kinds[kind] = {"title": self.title(kind), "available": False, "reason": self.unavailable[kind]}
                continue
            kinds[kind] = {"title": self.title(kind), "available": True, "perturbations": order.perturbations,
                           "exact": order.exact, "note": order.note,
                           "swaps": [{"rising": t, "over": s, "tied": self.means[t] == self.means[s], "when": when}
                                     for t, s, when in order.swaps(self.means)]}
        judge = {"sample": self.sample.to_json(),
                 "budgets": {s: {"judge_passes": self.judged[s][0], "to_fail": b.to_fail,
                                 "judge_fails": self.judged[s][1], "to_pass": b.to_pass}
                             for s, b in self.budgets.items()},
                 "meaning": "a worst case within the measured error budget, not a confidence interval"}
        return {"benchmark": self.benchmark, "judge": self.judge, "metric": f"{self.metric} score mean",
                "shared_projects": self.projects, "delta": self.delta,
                "construction": "pairwise: [1 + #systems above it under every perturbation, "
                                "1 + #systems above it under some perturbation]",
                "systems": systems, "kinds": kinds, "judge_error": judge}


def benchmark_verdicts(loaded: LoadedBenchmark, reading: BenchmarkReading, project_id: str) -> ProjectVerdicts:
    """A project's verdicts as `benchmark report` scores them (studio.benchmark.report.scored_verdicts)."""
    from studio.benchmark.report import scored_verdicts

    return scored_verdicts(loaded, reading.project(project_id), project_id)


def _ranked_rubrics(verdicts: ProjectVerdicts, judge: str | None, metric: str, systems: list[str]) -> list:
    """The project's rubrics of the metric, every system's verdicts and which of them are the judge's alone."""
    from studio.judging.decisions import choose
    from studio.judging.verdicts import is_judge
    from studio.scoring.ranking import RankedRubric

    of_system = {system: submission for submission, system in verdicts.systems.items()}
    out = []
    for scope, entries in verdicts.rubrics.items():
        if (scope == "final") != (metric == "final"):
            continue
        rows = list(entries.values())
        given: dict[str, tuple] = {}
        judged: dict[str, tuple] = {}
        for system in systems:
            values, marks = [], []
            for entry in rows:
                ratings = verdicts.found.decisions.get((of_system[system], scope, entry.id), {})
                value = choose(ratings, judge).value
                verdict = None if value is None else value == "pass"
                values.append(verdict)
                # the judge's alone: no person gave a verdict (adjudicated or an expert's) that counts
                people = any(not is_judge(r) and v.verdict != "missing" for r, v in ratings.items())
                marks.append(verdict is not None and not people)
            given[system], judged[system] = tuple(values), tuple(marks)
        out.append(RankedRubric(verdicts.project_id, scope, tuple(e.id for e in rows), tuple(e.weight for e in rows),
                                tuple(bool(e.gate) for e in rows), tuple(tuple(e.requires) for e in rows), given,
                                judged))
    return out


def benchmark_ranking(loaded: LoadedBenchmark, metric: str = "final", reading: BenchmarkReading | None = None,
                      report: BenchmarkReport | None = None) -> tuple[Ranking, BenchmarkReport, BenchmarkReading]:
    """The report's ranking by `metric` over the shared project set, as the analyses take it."""
    from studio.benchmark.report import benchmark_report
    from studio.scoring.ranking import METRICS, Ranking, RankingError

    if metric not in METRICS:
        raise RobustnessError(f"--metric is final or process (got {metric!r})")
    reading = reading or BenchmarkReading(loaded)
    report = report or benchmark_report(loaded, reading)
    shared = report.shared
    if not report.systems:
        raise RobustnessError(f"{loaded.path} names no system: add systems and outcomes, then report")
    if not shared.projects:
        why = "; ".join(f"{p} (no known final score for {', '.join(s)})" for p, s in shared.left_out.items())
        raise RobustnessError(f"no shared project set to rank on: every project lacks a known final score for some "
                              f"system ({why or 'no project'}); run and judge those pairs first (`dbstudio benchmark status`)")
    averaged = {s: tuple(shared.projects) for s in report.systems}
    if metric == "process":
        averaged = {s: tuple(p for p in shared.projects if report.scores.projects[p][s].process is not None)
                    for s in report.systems}
        lacking = [s for s, projects in averaged.items() if not projects]
        if lacking:
            raise RobustnessError(f"no known process score on the shared set for {', '.join(lacking)}: it has no "
                                  "process mean to rank (see `dbstudio benchmark report`)")
    judge = loaded.benchmark.judge_rater if loaded.benchmark is not None else None
    rubrics = []
    for project in shared.projects:
        rubrics += _ranked_rubrics(benchmark_verdicts(loaded, reading, project), judge, metric, report.systems)
    try:
        ranking = Ranking(metric, tuple(report.systems), tuple(rubrics), averaged)
    except RankingError as exc:
        raise RobustnessError(str(exc)) from None
    return ranking, report, reading


def judge_sample(loaded: LoadedBenchmark, reading: BenchmarkReading) -> JudgeSample:
    """The benchmark judge's verdicts on the decisions the people settled, over every project's
    reported submissions, pooled."""
    from studio.agreement.certification import ErrorRates
    from studio.judging.judge_error import checked_decisions

    judge = loaded.benchmark.judge_rater if loaded.benchmark is not None else None
    checked = []
    for project in loaded.projects:
        verdicts = reading.project(project).verdicts
        if verdicts is not None:
            checked += checked_decisions(verdicts, [judge] if judge else None)
    rates = ErrorRates.of(checked)
    return JudgeSample(judge, rates.decisions, rates.true_pass + rates.false_pass, rates.false_pass,
                       rates.true_fail + rates.false_fail, rates.false_fail)


def benchmark_robustness(loaded: LoadedBenchmark, metric: str = "final", delta: int = 1,
                         reading: BenchmarkReading | None = None) -> Robustness:
    """Every system's rank and its three kinds of interval (leaving out: projects, criteria)."""
    from studio.scoring.rank_intervals import ranks
    from studio.scoring.ranking import RankingError
    from studio.scoring.robust_flips import budgets, judge_error, judged_counts
    from studio.scoring.robust_leave_out import leave_criterion_out, leave_project_out
    from studio.scoring.robust_weights import MAX_DELTA, weight_box

    if not 0 <= delta <= MAX_DELTA:
        raise RobustnessError(f"--delta is a whole number of weight points from 0 to {MAX_DELTA} (got {delta})")
    ranking, report, reading = benchmark_ranking(loaded, metric, reading)
    orders = {"projects": leave_project_out(ranking), "criteria": leave_criterion_out(ranking),
              "weights": weight_box(ranking, delta)}
    unavailable = {}
    sample = judge_sample(loaded, reading)
    problem = sample.problem()
    flip_budgets: dict = {}
    if problem is not None:
        unavailable["judge"] = problem
    else:
        flip_budgets = budgets(ranking, sample.false_pass_rate, sample.false_fail_rate)
        try:
            orders["judge"] = judge_error(ranking, flip_budgets)
        except RankingError as exc:
            unavailable["judge"] = str(exc)
    return Robustness(report.benchmark, report.judge, metric, delta, list(report.shared.projects), list(ranking.systems),
                      dict(ranking.means), ranks(ranking.means), orders, unavailable, sample, flip_budgets,
                      {s: judged_counts(ranking, s) for s in ranking.systems})


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)"


def robustness_text(result: Robustness) -> str:
    """The table of ranks and intervals, the pairs that can swap, and what each interval assumes."""
    n = len(result.projects)
    lines = [f"{result.benchmark}: {result.metric} score means over the shared set ({n} project"
             f"{'s' if n != 1 else ''}: {', '.join(result.projects)}), {len(result.systems)} systems"
             + (f", scored by {result.judge}" if result.judge else ""),
             "each interval: [1 + the systems above it under every perturbation, 1 + those above it under some], "
             "each pair asked on its own", ""]
    intervals = result.intervals()
    heads = ["system", "mean", "rank"] + [result.title(kind) for kind in KINDS]
    rows = [[s, f"{float(result.means[s]):.2f}", str(result.ranks[s])]
            + [intervals[kind][s].text() if kind in intervals else "n/a" for kind in KINDS] for s in result.systems]
    widths = [max(len(r[c]) for r in [heads, *rows]) for c in range(len(heads))]
    for row in [heads, *rows]:
        lines.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                               for c, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    lines += ["", "Pairs that can swap:"]
    for kind in KINDS:
        order = result.orders.get(kind)
        if order is None:
            lines.append(f"  {result.title(kind)}: n/a ({result.unavailable[kind]})")
            continue
        swaps = order.swaps(result.means)
        lines.append(f"  {result.title(kind)}:{'' if swaps else ' none'}")
        lines += [f"    {t} above {s}" + (" (tied nominally)" if result.means[t] == result.means[s] else "")
                  + (f": {when}" if when else "") for t, s, when in swaps]
        if order.note:
            lines.append(f"    (not exact: {order.note})")
    lines += ["", "What each assumes:"]
    for kind, order in result.orders.items():
        if kind == "projects":
            lines.append(f"  {result.title(kind)}: {order.perturbations} cases, nothing left out or one shared "
                         "project left out, each mean over the rest")
        elif kind == "criteria":
            lines.append(f"  {result.title(kind)}: {order.perturbations} cases, nothing left out or one criterion of "
                         "one rubric left out for every system")
        elif kind == "weights":
            lines.append(f"  {result.title(kind)}: every non-gate weight within ±{result.delta} of its own, sign kept, "
                         "magnitude 1..10, all at once")
    sample = result.sample
    if "judge" in result.orders:
        lines.append(f"  judge error: a worst case within a measured error budget, not a confidence interval; from "
                     f"{sample.decisions} expert-settled decisions of {sample.judge or 'the judges'}: false-pass rate "
                     f"{_rate(sample.false_passes, sample.judge_passes)} of its passes, false-fail rate "
                     f"{_rate(sample.false_fails, sample.judge_fails)} of its fails")
        for s, budget in result.budgets.items():
            passes, fails = result.judged[s]
            lines.append(f"    {s}: up to {budget.to_fail} of its {passes} judge passes may be fails, "
                         f"{budget.to_pass} of its {fails} judge fails passes")
    else:
        lines.append(f"  judge error: unavailable: {result.unavailable['judge']}")
    return "\n".join(lines)

