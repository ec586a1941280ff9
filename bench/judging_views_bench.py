"""The judging views at volume (issue 21), offscreen, each figure beside a floor measured in the same run.

Judged copies of the sample (projects/kestrel-refinancing, 99 criteria over ten checkpoints and the
final rubric) at about 3,528, 14,112 and 100,000 decisions: every scope of every submission judged
by `judge:demo-judge` (a rationale and a cited place each), two experts on T01, T02, T05, T06 and
the final rubric (the second on about 60 %), and one settled difference per submission. The verdict
files are written directly in the store's format (fast; the bench checks the store reads them back).

Floor: reading the same verdict files - each file's text parsed by libyaml (`yaml.load` with
`CSafeLoader`), the least any reader of these files pays. Figures, per size:

- review shown: from reading the queue (`ReviewQueue.reload`, what the app runs in the background)
  through `ReviewView` built, shown and its events processed, until the first decision is on the
  right. Goal: <= 1 s at 14,112 decisions, <= 3 s at 100,000.
- P/F key: a verdict key pressed in the shown view (out of blind mode: store and move on), until
  its events are processed; median and p95. Goal: p95 <= 50 ms.
- dimension filter: the Dimension box set to each value in turn (and back to All), until the
  table has its rows; median and p95. Goal: p95 <= 100 ms.
- scores interactive: `ScoresView` over the project until its table holds the runs' scores (the
  charts may follow). Goal: <= 1 s at 14,112, <= 3 s at 100,000. Beside it the score sheet's own
  computation from cold files, and the shown view after an expert's verdict is stored (what a review
  session pays: only the run whose file changed is read and scored again).
- cost per decision from the smallest to the largest size (linear growth: about constant).

Checked: the queue's decision count, the keys' verdicts on disk, the filter's row count against a
count made without Qt, the scores table's rows. Exits 1 on a wrong answer.
Usage: QT_QPA_PLATFORM=offscreen python bench/judging_views_bench.py [--quick] [--rounds N] [--only review|scores]
(--quick: 3,528 and 14,112 decisions, fewer keys and rounds; --only: the Review or the Scores figures alone)
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import check, report_wrong, spread  # noqa: E402

SAMPLE = ROOT / "projects" / "kestrel-refinancing"
SIZES = (3_528, 14_112, 100_000)
QUICK_SIZES = (3_528, 14_112)
GOAL_SHOWN_S = {14_112: 1.0, 100_000: 3.0}
GOAL_KEY_MS, GOAL_FILTER_MS = 50.0, 100.0
SCORES_LIMIT_S = 300.0
PARTS = ("review", "scores")
JUDGE = "judge:demo-judge"
EXPERTS = ("Marta Lindqvist", "Joris de Wit")
REVIEWED = ("T01", "T02", "T05", "T06", "final")
T0 = "2026-11-30T20:00:00Z"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


# -- the judged copies ----------------------------------------------------------------------------
def _block(scope: str, cid: str, verdict: str, version: str, note: str | None = None,
           evidence: str | None = None) -> str:
    lines = [f"  - scope: {scope}", f"    criterion: {cid}", f"    verdict: {verdict}", f'    time: "{T0}"',
             f"    criterion_version: {version}"]
    if note:
        lines.append(f'    note: "{note}"')
    if evidence:
        lines.append(f'    evidence: ["{evidence}"]')
    return "\n".join(lines)


def _file(rater: str, submission: str, blocks: list[str]) -> str:
    name = f'"{rater}"' if " " in rater else rater  # as the store quotes a name with a space
    head = (f"# Verdicts of {rater} on {submission}: one block per verdict (dbstudio verdict store).\n"
            f"format: 1\nsubmission: {submission}\nrater: {name}\n")
    return head + ("verdicts:\n" + "\n".join(blocks) + "\n" if blocks else "verdicts: []\n")


def make_judged_copy(folder: Path, decisions: int) -> tuple[Path, int]:
    """The sample with submissions judged until about `decisions` decisions; (root, decisions made)."""
    from studio.judging.decisions import current_versions
    from studio.judging.queue import _rubrics
    from studio.judging.verdict_store import rater_slug
    from studio.store.loader import load_project

    root = folder / f"kestrel-{decisions}"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".git", "runs", "verdicts"))
    project = load_project(root).project
    versions = current_versions(project)
    rubrics = _rubrics(project)
    order = [s for s in project.timeline() if s in rubrics] + ["final"]
    per_submission = sum(len(rubrics[s]) for s in order)
    count = max(1, round(decisions / per_submission))
    for number in range(count):
        submission = f"harness@run-{number:05d}"
        judge, marta, joris = [], [], []
        settled = None
        for scope in order:
            for position, cid in enumerate(rubrics[scope]):
                version = versions[(scope, cid)]
                seed = (number * 31 + position * 7 + len(scope)) % 100
                value = "pass" if seed < 62 else "fail" if seed < 98 else "missing"
                judge.append(_block(scope, cid, value, version, f"outputs/report.md shows that {cid} holds as "
                                    "the brief asks; the cited passage states it with its source.",
                                    f"outputs/report.md#L{position + 1}-L{position + 3}"))
                if scope not in REVIEWED:
                    continue
                given = "fail" if value == "pass" else "pass"
                mine = given if seed % 10 == 0 else (value if value != "missing" else "pass")
                marta.append(_block(scope, cid, mine, version))
                if seed % 5 < 3:
                    theirs = given if seed % 17 == 0 else mine
                    joris.append(_block(scope, cid, theirs, version, "Read the bridge on the second sheet."
                                        if theirs != mine else None))
                    if theirs != mine and settled is None:
                        settled = _block(scope, cid, mine, version, "Settled with both reviewers.")
        out = root / "verdicts" / submission
        out.mkdir(parents=True)
        for rater, blocks in ((JUDGE, judge), (EXPERTS[0], marta), (EXPERTS[1], joris),
                              ("adjudicated", [settled] if settled else [])):
            if blocks:
                (out / f"{rater_slug(rater)}.yaml").write_text(_file(rater, submission, blocks), encoding="utf-8")
    return root, count * per_submission


def floor_read(root: Path) -> float:
    """Seconds to read and parse every verdict file with libyaml."""
    start = time.perf_counter()
    for path in sorted((root / "verdicts").glob("*/*.yaml")):
        yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    return time.perf_counter() - start


# -- the views --------------------------------------------------------------------------------------
def _settle(app, until: Callable[[], bool] = lambda: True, limit_s: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.perf_counter() + limit_s
    app.processEvents()
    while not until():
        if time.perf_counter() > deadline:
            raise TimeoutError("the view did not finish in time")
        app.processEvents()
        time.sleep(0.0005)


def review_shown(app, root: Path, loaded, runner):  # type: ignore[no-untyped-def]
    """(seconds until the shown Review view has its first decision on the right, the view)."""
    from studio.gui.judging.review_models import ReviewSession
    from studio.gui.judging.review_view import ReviewView
    from studio.judging.queue import ReviewQueue

    start, cpu = time.perf_counter(), time.process_time()
    queue = ReviewQueue(loaded)
    queue.reload()
    session = ReviewSession(queue)
    view = ReviewView(session, runner)
    view.resize(1500, 900)
    view.show()
    _settle(app, lambda: view.current is not None)
    view.cpu_s = time.process_time() - cpu  # type: ignore[attr-defined]  # the process's own share of a busy machine
    return time.perf_counter() - start, view


def _dispose(app, view) -> None:  # type: ignore[no-untyped-def]
    """Delete a closed view now, as the window's event loop does with a closed tab: processEvents()
    alone leaves deferred deletes queued, so each round's queue stayed alive and the collector's full
    passes over them (seconds by the third round at 100,000 decisions) landed in the next figures."""
    from PySide6.QtCore import QEvent

    view.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    _settle(app)


def keys(app, view, count: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Milliseconds per P/F key (out of blind mode: stored, then the next decision)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    view.session.set_rater("Bench Rater")
    view.session.set_blind(False)
    view.setFocus()
    _settle(app)
    times = []
    for number in range(count):
        key = Qt.Key.Key_P if number % 2 == 0 else Qt.Key.Key_F
        start = time.perf_counter()
        QTest.keyClick(view, key)
        app.processEvents()
        times.append((time.perf_counter() - start) * 1000)
    return times


def filters(app, view, rounds: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Milliseconds per change of the Dimension box, each value in turn and back to All."""
    box = view.dimension_filter
    decisions = view.session.queue.decisions
    times = []
    for _ in range(rounds):
        for index in [*range(1, box.count()), 0]:
            start = time.perf_counter()
            box.setCurrentIndex(index)
            app.processEvents()
            times.append((time.perf_counter() - start) * 1000)
            name = box.currentText()
            wanted = sum(1 for d in decisions if index == 0 or d.criterion.dimension == name)
            check(view.proxy.rowCount() == wanted, f"dimension filter {name}: {view.proxy.rowCount()} rows shown, "
                                                    f"{wanted} decisions have it")
    return times


def cold() -> None:
    """Forget every parsed file and scored run: a figure from cold files, as when the project has just
    been opened."""
    from studio.judging.score_sheet import forget_scored
    from studio.judging.verdict_store import forget_parsed

    forget_parsed()
    forget_scored()


def score_sheet_alone(root: Path, loaded) -> float:  # type: ignore[no-untyped-def]
    """Seconds of the scores' own computation (read_score_sheet, cold files), without the charts."""
    from studio.judging.score_sheet import read_score_sheet

    cold()
    start = time.perf_counter()
    read_score_sheet(root, loaded.project, None)
    return time.perf_counter() - start


def scores_interactive(app, root: Path, runner, submissions: int,  # type: ignore[no-untyped-def]
                       loaded) -> tuple[float, float, float]:
    """(seconds from building the Scores view until its table holds every run's scores, the charts
    following in a task of their own; this process's CPU seconds meanwhile; seconds from a verdict
    stored until the shown table holds the new scores)."""
    from studio.editing.session import ProjectSession
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.judging.scores_view import ScoresView

    context = ProjectContext(ProjectSession(root))
    context.rater_identity().set_blind(False)  # every verdict counts (a blind rater without a name sees none)
    start, cpu = time.perf_counter(), time.process_time()
    view = ScoresView(context, runner)
    view.resize(1300, 900)
    view.show()
    try:
        _settle(app, lambda: view.model.rowCount() > 0 or view.status.text().startswith("no "), SCORES_LIMIT_S)
    except TimeoutError:
        print(f"  (scores: no table after {SCORES_LIMIT_S:.0f} s: counted as {SCORES_LIMIT_S:.0f} s)")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    check(view.model.rowCount() == submissions, f"scores: {view.model.rowCount()} runs shown, {submissions} judged")
    _settle(app, lambda: not runner.busy, 3600)  # the charts, before the next size
    again = scores_after_a_verdict(app, view, root, loaded)
    _settle(app, lambda: not runner.busy, 3600)
    view.close()
    view.deleteLater()
    _settle(app)
    return seconds, cpu, again


def scores_after_a_verdict(app, view, root: Path, loaded) -> float:  # type: ignore[no-untyped-def]
    """Seconds from an expert's verdict stored (on the last run, whose decisions the Review figures'
    keys do not reach, in the first checkpoint the experts do not review, on a criterion of positive
    weight requiring none that no other expert rated: the opposite of the verdict that counts there)
    until the shown table holds the run's new scores."""
    from datetime import UTC, datetime

    from studio.judging.decisions import current_versions
    from studio.judging.verdict_store import VerdictStore
    from studio.judging.verdicts import Verdict
    from studio.scoring.project_rubrics import project_rubrics

    rubrics = project_rubrics(loaded.project)
    run = view.sheet.runs[-1]
    number, first = next((n, score) for n, score in enumerate(run.checkpoints) if score.scope not in REVIEWED)
    store = VerdictStore(root)
    given: dict[tuple[str, str], str] = {(v.criterion, v.rater): v.verdict for v in store.verdicts(run.submission)
                                         if v.scope == first.scope}
    raters = {c: {rater for (criterion, rater) in given if criterion == c} for c in rubrics[first.scope]}
    criterion = next(c for c, e in rubrics[first.scope].items() if e.weight > 0 and not e.requires and not e.gate
                     and raters[c] <= {JUDGE, "Bench Scorer"})
    counts = given.get((criterion, "Bench Scorer"), given.get((criterion, JUDGE)))
    flipped = "fail" if counts == "pass" else "pass"
    version = current_versions(loaded.project)[(first.scope, criterion)]
    before = view.sheet
    start = time.perf_counter()
    store.put(run.submission, [Verdict(criterion=criterion, scope=first.scope, verdict=flipped,  # type: ignore[arg-type]
                                       rater="Bench Scorer", time=datetime.now(UTC), criterion_version=version)])
    view.refresh()  # what the store watcher asks for when it sees the write
    _settle(app, lambda: view.sheet is not before, SCORES_LIMIT_S)
    seconds = time.perf_counter() - start
    check(view.sheet.runs[-1].checkpoints[number] != first, f"scores: {first.scope} of {run.submission} is still "
                                                            f"{first.text()} after an expert's {flipped}")
    return seconds


def bench_size(app, work: Path, size: int, rounds: int, key_count: int,  # type: ignore[no-untyped-def]
               parts: tuple[str, ...] = PARTS) -> dict[str, float]:
    from studio.gui.base.tasks import TaskRunner
    from studio.judging.verdict_store import forget_parsed
    from studio.store.loader import load_project

    root, made = make_judged_copy(work, size)
    submissions = len(list((root / "verdicts").iterdir()))
    loaded = load_project(root)
    runner = TaskRunner()
    floors, shown_s, scores_s, cpu_s, sheet_s, after_s, scores_cpu_s = [], [], [], [], [], [], []
    key_ms: list[float] = []
    filter_ms: list[float] = []
    for number in range(rounds):
        gc.collect()
        floors.append(floor_read(root))
        forget_parsed()  # every figure from cold files, as when the project has just been opened
        if "review" in parts:
            _review_round(app, root, loaded, runner, number, made, key_count, (shown_s, cpu_s, key_ms, filter_ms))
        if "scores" in parts:
            gc.collect()  # the Review figures' leftovers, collected before the Scores figures as before the round's
            cold()
            seconds, cpu, again = scores_interactive(app, root, runner, submissions, loaded)
            scores_s.append(seconds)
            scores_cpu_s.append(cpu)
            after_s.append(again)
            sheet_s.append(score_sheet_alone(root, loaded))
    floor = statistics.median(floors)
    print(f"\n{made:,} decisions ({submissions} submissions), floor (libyaml over the verdict files): "
          f"{spread('', floors, ' s')[2:]}")
    for label, values, goal in (("review shown", shown_s, GOAL_SHOWN_S.get(size)),
                                ("scores interactive", scores_s, GOAL_SHOWN_S.get(size))):
        if not values:
            continue
        ratio = statistics.median(values) / floor
        print(f"  {spread(label, values, ' s')}  ({ratio:.1f}x the floor"
              + (f"; goal <= {goal:.0f} s)" if goal else ")"))
    if "review" in parts:
        print(f"  review shown, this process's CPU: {spread('', cpu_s, ' s')[2:]}  (the rest of the wall time "
              "is the machine's other work)")
    if "scores" in parts:
        print(f"  scores interactive, this process's CPU: {spread('', scores_cpu_s, ' s')[2:]}")
        print(f"  scores: the score sheet alone (no charts): {spread('', sheet_s, ' s')[2:]}")
        print(f"  scores after a verdict stored (the table holds the new scores): {spread('', after_s, ' s')[2:]}")
    if "review" in parts:
        print(f"  P/F key: median {statistics.median(key_ms):.1f} ms  p95 {percentile(key_ms, 0.95):.1f} ms  "
              f"(goal p95 <= {GOAL_KEY_MS:.0f} ms; {len(key_ms)} keys)")
        print(f"  dimension filter: median {statistics.median(filter_ms):.1f} ms  p95 "
              f"{percentile(filter_ms, 0.95):.1f} ms  (goal p95 <= {GOAL_FILTER_MS:.0f} ms; {len(filter_ms)} changes)")
    return {"decisions": made, "floor": floor, "shown": statistics.median(shown_s) if shown_s else float("nan"),
            "scores": statistics.median(scores_s) if scores_s else float("nan")}


def _review_round(app, root: Path, loaded, runner, number: int, made: int, key_count: int,  # type: ignore[no-untyped-def]
                  figures: tuple[list[float], list[float], list[float], list[float]]) -> None:
    """One round of the Review figures, added to `figures` (shown s, its CPU s, key ms, filter ms):
    shown and the filters every round, the keys in the first."""
    shown_s, cpu_s, key_ms, filter_ms = figures
    seconds, view = review_shown(app, root, loaded, runner)
    shown_s.append(seconds)
    cpu_s.append(view.cpu_s)
    check(len(view.session.queue.decisions) == made, f"{made}: the queue has {len(view.session.queue.decisions)}"
                                                      f" decisions, {made} were judged")
    filter_ms += filters(app, view, 1 if number else 2)
    if number == 0:
        key_ms += keys(app, view, key_count)
        _settle(app, lambda: not runner.busy)
        stored = sum(1 for d in view.session.queue.decisions if "Bench Rater" in d.ratings)
        check(stored == key_count, f"{made}: {stored} of {key_count} keyed verdicts in the queue")
        on_disk = sum(len(yaml.load(p.read_text(encoding="utf-8"), Loader=_Loader)["verdicts"])
                      for p in (root / "verdicts").glob("*/bench-rater.yaml"))
        check(on_disk == key_count, f"{made}: {on_disk} of {key_count} keyed verdicts on disk")
    view.close()
    _settle(app, lambda: not runner.busy)
    _dispose(app, view)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the two smaller sizes, fewer rounds and keys")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per size (default 3, quick 1)")
    parser.add_argument("--sizes", type=int, nargs="+", help="decisions per judged copy (default 3528 14112 100000)")
    parser.add_argument("--only", choices=PARTS, help="the Review or the Scores figures alone")
    args = parser.parse_args()
    parts = (args.only,) if args.only else PARTS
    rounds = args.rounds or (1 if args.quick else 3)
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    results = []
    with tempfile.TemporaryDirectory(prefix="judging-views-bench-") as folder:
        os.environ["XDG_CONFIG_HOME"] = folder  # the review remembers the rater in QSettings: not the user's
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication(["judging-views-bench"])
        app.setOrganizationName("DeliverBench-bench")
        import studio.gui.judging.review_view  # noqa: F401  (imported before timing: the window has
        import studio.gui.judging.scores_view  # noqa: F401  loaded the previews and charts by then)
        for size in sizes:
            results.append(bench_size(app, Path(folder), size, rounds, 15 if args.quick else 40, parts))
    first, last = results[0], results[-1]
    growth = last["decisions"] / first["decisions"]
    print(f"\ngrowth from {first['decisions']:,} to {last['decisions']:,} decisions ({growth:.1f}x): "
          f"floor {last['floor'] / first['floor']:.1f}x, review shown {last['shown'] / first['shown']:.1f}x, "
          f"scores {last['scores'] / first['scores']:.1f}x (linear: about {growth:.1f}x)")
    return report_wrong()


if __name__ == "__main__":
    sys.exit(main())
