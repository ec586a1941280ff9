"""A benchmark at paper scale (issue 24): `benchmark report` and the Benchmark window's grid, each
figure beside a floor measured in the same run.

The benchmark: review_bench's paper-scale corpus (11 projects, 150 subtasks, 4,313 criteria: 3,828
checkpoint, 313 cross-file, 172 package, plus the reused and artifact final criteria) and 7
systems, one named submission of each project's verdict store per (system, project) pair, judged on
every decision by the benchmark's judge, two experts on 478 decisions; three pairs also keep an
earlier attempt (`selected: false`, judged failing throughout, so it shows if it is counted) and one
pair has no outcome. The verdict files are written directly in the store's format, as
judging_views_bench writes them.

Floor: reading the verdict files the report reads (the selected submissions') with libyaml
(`yaml.load` with `CSafeLoader`), the least any reader of them pays; in a child process for the CLI
(Python's start, `import yaml` and the same reads). Figures:

- report (core): `load_benchmark` then `benchmark_report` with each pair's defect lineage, cold files. Goal: <= 3x
  the floor.
- report (CLI): `dbstudio benchmark report BENCH --format json` in a child process, beside the
  child floor.
- grid first paint (run states): the Benchmark window (offscreen) from opening the file until the
  grid's first paint, every cell filled with its pair's run state (its judging "reading verdicts…"
  where the verdicts decide it). Goal: <= 1 s. With this process's CPU time over the same span.
- grid complete (judging known): until the first paint with every pair's judging in its cell.
- Table 5 filled: until the report is scored and Table 5 holds it.

Checked: the pairs (every system x project, the one without an outcome not started, the attempts),
the scores of a few pairs against `dbstudio score --project P --run SUBMISSION --judge J` over the
same verdicts, the CLI's JSON against the core's, the grid's first cells against the pairs' run
states (each one its final status, or that status's run with its judging still being read) and its
complete cells against the pairs' status.
Exits 1 on a wrong answer.
Usage: QT_QPA_PLATFORM=offscreen python bench/benchmark_bench.py [--quick] [--rounds N] [--only report|window]
(--quick: 3 small projects x 3 systems, 24 expert decisions, one round)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import check, paired, run_sections, spread  # noqa: E402
from bench.judging_views_bench import EXPERTS, _block, _file, _settle, cold  # noqa: E402
from bench.processes import compile_bytecode, python_child, run_child  # noqa: E402
from bench.review_bench import make_corpus, make_project  # noqa: E402

SYSTEMS = ("claude", "codex", "gemini", "qwen", "kimi", "glm", "grok")
JUDGE = "judge:bench-judge"
EXPERT_DECISIONS = 478
GOAL_REPORT_RATIO, GOAL_PAINT_S = 3.0, 1.0
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class MadeBenchmark:
    path: Path  # benchmark.yaml
    projects: dict[str, Path]  # project id -> folder
    systems: tuple[str, ...]
    selected: dict[tuple[str, str], str]  # (system, project) -> the reported submission
    attempts: dict[tuple[str, str], int]
    decisions: int  # judged decisions of the selected submissions
    expert_decisions: int

    def verdict_files(self) -> list[Path]:
        """The files the report reads: every verdict file of the selected submissions."""
        return sorted(path for (_, project), submission in self.selected.items()
                      for path in (self.projects[project] / "verdicts" / submission).glob("*.yaml"))


def make_benchmark(base: Path, quick: bool) -> MadeBenchmark:
    """The projects, their verdict stores and benchmark.yaml under `base`."""
    from studio.judging.decisions import current_versions
    from studio.judging.verdict_store import rater_slug
    from studio.scoring.project_rubrics import project_rubrics
    from studio.store.loader import load_project

    if quick:
        rng = random.Random(3)
        roots = []
        for index in range(3):
            make_project(base / f"p{index:02d}", index, n_sub=4, n_mat=6, n_crit=30, n_cross=3, n_pkg=2, n_reuse=4,
                         rng=rng)
            roots.append(base / f"p{index:02d}")
        systems, experts = SYSTEMS[:3], 24
    else:
        roots, systems, experts = make_corpus(base), SYSTEMS, EXPERT_DECISIONS
    projects = {root.name: root for root in roots}  # the generator's project ids are its folder names
    ids = list(projects)
    no_outcome = (systems[-1], ids[-1])
    earlier = {(systems[0], ids[0]), (systems[1], ids[-1]), (systems[-1], ids[len(ids) // 2])}
    selected = {(s, p): f"{s}-1" for p in ids for s in systems if (s, p) != no_outcome}
    rubrics = {p: project_rubrics(load_project(root).project) for p, root in projects.items()}
    versions = {p: current_versions(load_project(root).project) for p, root in projects.items()}
    every = [(pair, scope, cid) for pair in selected for scope, entries in rubrics[pair[1]].items() for cid in entries]
    stride = max(1, len(every) // experts)
    reviewed = set(every[::stride][:experts])
    for number, ((system, project), submission) in enumerate(selected.items()):
        judge, first, second, settled = [], [], [], []
        for position, (scope, cid) in enumerate((s, c) for s, entries in rubrics[project].items() for c in entries):
            version = f"\"{versions[project][(scope, cid)]}\""  # a hex digest may read as a number
            seed = (number * 37 + position * 11 + len(scope)) % 100
            value = "pass" if seed < 70 + 3 * SYSTEMS.index(system) else "fail"
            judge.append(_block(scope, cid, value, version, f"final/{cid}.md states what {cid} asks, with its "
                                "source.", f"outputs/{scope}-main.md#L{position % 40 + 1}"))
            if ((system, project), scope, cid) in reviewed:
                mine = value if seed % 7 else ("fail" if value == "pass" else "pass")
                first.append(_block(scope, cid, mine, version))
                theirs = mine if seed % 5 else value
                second.append(_block(scope, cid, theirs, version))
                if theirs != mine:  # the experts differ: settled, or the decision would stay missing
                    settled.append(_block(scope, cid, mine, version, "Settled with both reviewers."))
        out = projects[project] / "verdicts" / submission
        out.mkdir(parents=True)
        for rater, blocks in ((JUDGE, judge), (EXPERTS[0], first), (EXPERTS[1], second),
                              ("adjudicated", settled)):
            if blocks:
                (out / f"{rater_slug(rater)}.yaml").write_text(_file(rater, submission, blocks), encoding="utf-8")
    for system, project in earlier:  # judged failing throughout: counted, it would show in the scores
        out = projects[project] / "verdicts" / f"{system}-0"
        out.mkdir(parents=True)
        blocks = [_block(scope, cid, "fail", f"\"{versions[project][(scope, cid)]}\"")
                  for scope, entries in rubrics[project].items() for cid in entries]
        (out / f"{rater_slug(JUDGE)}.yaml").write_text(_file(JUDGE, f"{system}-0", blocks), encoding="utf-8")
    lines = ["format: 1", "id: paper-suite", "title: Paper-scale suite", "projects:", *(f"  - {p}" for p in ids),
             f"judge: {JUDGE}", "systems:"]
    lines += [f"  - {{id: {s}, name: System {s}, model: {s}-model, harness: claude-code}}" for s in systems]
    lines.append("outcomes:")
    lines += [f"  - {{system: {s}, project: {p}, submission: {sub}}}" for (s, p), sub in selected.items()]
    lines += [f"  - {{system: {s}, project: {p}, submission: {s}-0, selected: false, reason: harness crashed}}"
              for s, p in sorted(earlier)]
    path = base / "benchmark.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    attempts = {pair: 1 + (pair in earlier) for pair in selected}
    return MadeBenchmark(path, projects, systems, selected, attempts, len(every), len(reviewed))


# -- the figures ----------------------------------------------------------------------------------
def floor_read(files: list[Path]) -> float:
    """Seconds to read and parse the verdict files with libyaml."""
    start = time.perf_counter()
    for path in files:
        yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    return time.perf_counter() - start


FLOOR_CHILD = ("import sys, yaml\nL = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)\n"
               "for p in open(sys.argv[1], encoding='utf-8').read().split('\\n'):\n"
               "    yaml.load(open(p, encoding='utf-8').read(), Loader=L)\n")


def core_report(path: Path):  # type: ignore[no-untyped-def]
    """(seconds of load_benchmark + benchmark_report from cold files, the report)."""
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.reading import BenchmarkReading
    from studio.benchmark.report import benchmark_report, with_lineage

    cold()
    gc.collect()
    start = time.perf_counter()
    loaded = load_benchmark(path)
    reading = BenchmarkReading(loaded)
    report = with_lineage(benchmark_report(loaded, reading), loaded, reading)  # as `benchmark report` makes it
    return time.perf_counter() - start, report


def store_scores(folder: Path, submission: str) -> dict:
    """`dbstudio score --project FOLDER --run SUBMISSION --judge JUDGE --format json`, in this process."""
    from studio.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["score", "--project", str(folder), "--run", submission, "--judge", JUDGE, "--format", "json"])
    check(code == 0, f"dbstudio score --project {folder.name} --run {submission}: exit {code}")
    return json.loads(out.getvalue()) if code == 0 else {}


def check_report(made: MadeBenchmark, report) -> None:  # type: ignore[no-untyped-def]
    pairs = {(p.system, p.project): p for p in report.pairs}
    expected = len(made.projects) * len(made.systems)
    check(len(report.pairs) == expected, f"report: {len(report.pairs)} pairs, {expected} expected")
    missing = [pair for pair in pairs if pair not in made.selected]
    check(len(missing) == 1 and pairs[missing[0]].run == "not started",
          f"report: the pairs without an outcome are {missing}, one expected, not started")
    for pair, submission in made.selected.items():
        status = pairs.get(pair)
        check(status is not None and status.outcome is not None and status.outcome.submission == submission
              and status.judging == "scored" and status.attempts == made.attempts[pair],
              f"report: {pair} is {status and status.text}, expected {submission} scored")
    rng = random.Random(len(made.selected))
    for system, project in rng.sample(sorted(made.selected), 3) + [p for p in made.selected if made.attempts[p] > 1][:1]:
        submission = made.selected[(system, project)]
        mine = report.scores.projects[project][system]
        theirs = store_scores(made.projects[project], submission).get("projects", {}).get(project, {}).get(submission)
        check(theirs is not None and theirs["final"] == round(mine.final, 4) and
              theirs["process"] == round(mine.process, 4),
              f"report: {system} on {project} scores {mine.final}/{mine.process}, dbstudio score gives "
              f"{theirs and (theirs['final'], theirs['process'])}")


def section_report(args: argparse.Namespace, work: Path) -> None:
    made = made_in(args, work)
    files = made.verdict_files()
    print(f"\n{len(made.projects)} projects x {len(made.systems)} systems: {made.decisions:,} judged decisions, "
          f"{made.expert_decisions} by two experts, {len(files)} verdict files")
    reports = []

    def side() -> float:
        seconds, report = core_report(made.path)
        reports.append(report)
        return seconds

    sides, floors = paired(rounds(args), side, lambda: floor_read(files))
    check_report(made, reports[0])
    ratios = [s / f for s, f in zip(sides, floors, strict=True)]
    print(f"  {spread('floor (libyaml over the verdict files)', floors, ' s')}")
    print(f"  {spread('report (core)', sides, ' s')}  ratio {_ratios(ratios)}  (goal <= {GOAL_REPORT_RATIO:.0f}x)")
    compile_bytecode()
    listing = work / "verdict-files.txt"
    listing.write_text("\n".join(str(p) for p in files), encoding="utf-8")
    argv = [sys.executable, "-m", "studio.cli.main", "benchmark", "report", str(made.path), "--format", "json"]
    children, child_floors = [], []

    def cli() -> float:
        child = run_child(argv)
        children.append(child)
        return child.wall

    cli_s, child_floor_s = paired(rounds(args), cli, lambda: python_child(FLOOR_CHILD, str(listing)).wall)
    check(json.loads(children[0].stdout) == reports[0].to_json(), "report (CLI): its JSON differs from the core's")
    child_floors = child_floor_s
    ratios = [s / f for s, f in zip(cli_s, child_floors, strict=True)]
    print(f"  {spread('floor child (python, import yaml, the same reads)', child_floors, ' s')}")
    print(f"  {spread('report (CLI, child)', cli_s, ' s')}  ratio {_ratios(ratios)}  "
          f"(peak {max(c.peak_mib for c in children):.0f} MiB)")


def rounds(args: argparse.Namespace) -> int:
    return args.rounds or (1 if args.quick else 5)


def _ratios(ratios: list[float]) -> str:
    return f"min {min(ratios):.2f}x  median {statistics.median(ratios):.2f}x  max {max(ratios):.2f}x"


_MADE: dict[Path, MadeBenchmark] = {}


def made_in(args: argparse.Namespace, work: Path) -> MadeBenchmark:
    """The one benchmark of this run, made on first use."""
    if work not in _MADE:
        start = time.perf_counter()
        _MADE[work] = make_benchmark(work / "suite", args.quick)
        print(f"(benchmark written in {time.perf_counter() - start:.1f} s)")
    return _MADE[work]


# -- the window -----------------------------------------------------------------------------------
@dataclass
class WindowTimes:
    """Seconds from opening the file, and the cells of the grid's first paint."""

    first_paint: float = 0.0
    first_paint_cpu: float = 0.0  # this process's CPU over the same span (both threads)
    complete: float = 0.0
    complete_cpu: float = 0.0
    first_cells: dict | None = None  # (project, system) -> text, as first painted


def grid_painted(app, path: Path, runner):  # type: ignore[no-untyped-def]
    """(the WindowTimes until the grid's first paint and its first paint with every judging known,
    the view)."""
    from PySide6.QtCore import QEvent, QObject

    from studio.gui.benchmark.view import BenchmarkView

    times = WindowTimes()
    painted: list[str] = []

    class Paints(QObject):
        def eventFilter(self, watched, event):  # type: ignore[no-untyped-def]  # noqa: N802 (Qt naming)
            if event.type() != QEvent.Type.Paint or view.grid_model.rowCount() == 0:
                return False
            now, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            if not painted:
                painted.append("first")
                times.first_paint, times.first_paint_cpu = now, cpu
                times.first_cells = _shown(view.grid_model)
            if "complete" not in painted and view.overview is not None and view.overview.judging_known:
                painted.append("complete")
                times.complete, times.complete_cpu = now, cpu
            return False

    cold()
    gc.collect()
    start, cpu_start = time.perf_counter(), time.process_time()
    view = BenchmarkView(path, runner)
    watcher = Paints(view)
    view.grid.viewport().installEventFilter(watcher)
    view.resize(1500, 900)
    view.show()
    _settle(app, lambda: bool(painted))
    view.opened_at = start
    return times, view


def _shown(model) -> dict:  # type: ignore[no-untyped-def]
    return {(model.projects[r], model.systems[c]): model.index(r, c).data()
            for r in range(model.rowCount()) for c in range(model.columnCount())}


def check_grid(view, first: dict) -> None:  # type: ignore[no-untyped-def]
    """The cells first painted are the pairs' run states, none blank or wrong; the cells shown once
    complete are every pair's status, as the report gives it."""
    from dataclasses import replace

    from studio.benchmark.status import READING

    report = view.overview.report
    check(report is not None and report.pairs == view.overview.status, "grid: the report's pairs differ from the "
                                                                       "status the grid shows")
    wanted = {(p.project, p.system): p.text for p in report.pairs}
    early = {(p.project, p.system): {p.text} | ({replace(p, judging=READING, verdicts=0, missing=0).text}
                                               if p.judging is not None else set()) for p in report.pairs}
    check(first.keys() == wanted.keys() and all(first[k] in early[k] for k in wanted),
          f"grid: {sum(first.get(k) not in v for k, v in early.items())} of {len(early)} cells of the first paint "
          "are neither the pair's status nor its run state")
    check(any(READING in (text or "") for text in first.values()) or first == wanted,
          "grid: the first paint is neither the run states nor the complete status")
    shown = _shown(view.grid_model)
    check(shown == wanted, f"grid: {sum(shown.get(k) != v for k, v in wanted.items())} of {len(wanted)} cells "
                           "differ from the pairs' status")


def section_window(args: argparse.Namespace, work: Path) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from studio.gui.base.tasks import TaskRunner

    made = made_in(args, work)
    files = made.verdict_files()
    os.environ["XDG_CONFIG_HOME"] = str(work)
    app = QApplication.instance() or QApplication(["benchmark-bench"])
    import studio.gui.benchmark.view  # noqa: F401  (imported before timing, as the window has by then)
    runner = TaskRunner()
    floors, paints, paint_cpu, complete, complete_cpu, table5, figures = [], [], [], [], [], [], []
    for number in range(rounds(args)):
        floors.append(floor_read(files))
        times, view = grid_painted(app, made.path, runner)
        paints.append(times.first_paint)
        paint_cpu.append(times.first_paint_cpu)
        _settle(app, lambda: view.overview.report is not None and times.complete > 0)  # noqa: B023
        table5.append(time.perf_counter() - view.opened_at)
        complete.append(times.complete)
        complete_cpu.append(times.complete_cpu)
        if number == 0:
            check_grid(view, times.first_cells or {})
        start = time.perf_counter()
        view.tabs.setCurrentIndex(view.tabs.count() - 1)  # the Figures tab
        _settle(app, lambda: view.figure.png is not None)  # type: ignore[attr-defined]  # noqa: B023
        figures.append(time.perf_counter() - start)
        _settle(app, lambda: not runner.busy)
        view.close()
        view.deleteLater()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        _settle(app)
    print(f"\nthe Benchmark window, {len(made.projects)} projects x {len(made.systems)} systems")
    print(f"  {spread('floor (libyaml over the verdict files)', floors, ' s')}")
    print(f"  {spread('(b) grid first paint (run states)', paints, ' s')}  (goal <= {GOAL_PAINT_S:.0f} s)")
    print(f"  {spread('    its CPU, this process', paint_cpu, ' s')}  (the rest of the wall time is the "
          "machine's other work)")
    print(f"  {spread('(c) grid complete (judging known)', complete, ' s')}  "
          f"({statistics.median(complete) / statistics.median(floors):.1f}x the floor)")
    print(f"  {spread('    its CPU, this process', complete_cpu, ' s')}")
    print(f"  {spread('Table 5 filled (the report scored after the judging)', table5, ' s')}")
    print(f"  {spread('Figures tab shown until its first figure is on it', figures, ' s')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 small projects x 3 systems, one round")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per figure (default 5, quick 1)")
    return run_sections(parser, {"report": section_report, "window": section_window}, "benchmark-bench-")


if __name__ == "__main__":
    sys.exit(main())
