"""`dbstudio benchmark report` on three copies of the sample (s01, s02, s03) and two systems, alpha
and beta, whose verdicts are imported from filled templates (tests/cli/test_score_project.py's
verdicts): the report's numbers are exactly `dbstudio score TABLE --project ...`'s over the
equivalent table, the pair without an outcome (beta on s03) is named, the shared set leaves s03
out, and an unselected attempt of alpha on s01 (every criterion failed) counts nowhere."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from studio.store.workspace import sample_project
from tests.cli.test_score_project import PROJECT_ID, template, verdict_for, write
from tests.helpers import replace_in, run_cli

PROJECTS = ("s01", "s02", "s03")
JUDGE = "judge:j1"


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_rows(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    return write(path, header, rows)


def import_table(capsys, project: Path, table: Path, system: str, submission: str) -> None:
    code, _, err = run_cli(capsys, "verdicts", "import", str(project), str(table), "--system", system,
                           "--submission", submission, "--rater", JUDGE)
    assert code == 0, err


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("suite")
    table_rows: list[dict[str, str]] = []
    header: list[str] = []
    made = {}
    for number, name in enumerate(PROJECTS):
        project = Path(shutil.copytree(sample_project(), base / name))
        replace_in(project, "project.yaml", f"id: {PROJECT_ID}", f"id: {name}")
        path = template(project, base / f"{name}.csv", "alpha", "beta")
        header, rows = read_rows(path)
        for row in rows:
            row["verdict"] = verdict_for(row)
            if number == 1 and row["system"] == "alpha" and row["criterion"] == "A-01":
                row["verdict"] = "fail"  # s02's alpha differs from s01's
            if row["system"] == "beta" and row["criterion"] == "A-06":
                row["verdict"] = "pass"  # beta's final score known: (51 + 3) / 143 = 37.76
        write_rows(path, header, rows)
        made[name] = (project, path, rows)
        table_rows += [r for r in rows if not (name == "s03" and r["system"] == "beta")]
    return {"base": base, "made": made, "header": header, "table_rows": table_rows}


@pytest.fixture
def bench(suite: dict, capsys, tmp_path: Path) -> Path:
    base = tmp_path / "bench"
    base.mkdir()
    for name, (project, table, _rows) in suite["made"].items():
        copy = Path(shutil.copytree(project, base / name))
        import_table(capsys, copy, table, "alpha", "alpha-1")
        if name != "s03":
            import_table(capsys, copy, table, "beta", "beta-1")
    # an earlier attempt of alpha on s01 that failed everything: kept, not selected
    failing = tmp_path / "failing.csv"
    write_rows(failing, suite["header"], [{**r, "verdict": "fail"} for r in suite["made"]["s01"][2]])
    import_table(capsys, base / "s01", failing, "alpha", "alpha-0")
    code, _, err = run_cli(capsys, "benchmark", "new", str(base), "--id", "suite", "--title", "Suite",
                           *[a for name in PROJECTS for a in ("--project", str(base / name))])
    assert code == 0, err
    path = base / "benchmark.yaml"
    outcomes = [f"  - {{system: alpha, project: {name}, submission: alpha-1}}" for name in PROJECTS]
    outcomes += [f"  - {{system: beta, project: {name}, submission: beta-1}}" for name in ("s01", "s02")]
    outcomes += ["  - {system: alpha, project: s01, submission: alpha-0, selected: false, reason: first try}"]
    path.write_text(path.read_text().replace("systems: []\noutcomes: []\n", "") + (
        f"judge: {JUDGE}\nsystems:\n"
        "  - {id: alpha, name: Alpha, model: a-1, harness: claude-code}\n"
        "  - {id: beta, name: Beta, model: b-1, harness: codex}\n"
        "outcomes:\n" + "\n".join(outcomes) + "\n"))
    return path


def test_the_report_gives_exactly_the_numbers_of_score_over_the_equivalent_table(bench: Path, suite: dict, capsys,
                                                                                   tmp_path: Path):
    table = write_rows(tmp_path / "all.csv", suite["header"], suite["table_rows"])
    folders = [a for name in PROJECTS for a in ("--project", str(bench.parent / name))]
    code, out, err = run_cli(capsys, "score", str(table), *folders, "--format", "json")
    assert code == 0, err
    expected = json.loads(out)
    code, out, err = run_cli(capsys, "benchmark", "report", str(bench), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    # a table also lists its absent rows: none but beta's on s03, which the table lacks whole
    absent = {(p, s): entry.pop("absent") for p, by in expected["projects"].items() for s, entry in by.items()}
    assert {key for key, rows in absent.items() if rows} == {("s03", "beta")}
    # the pair without verdicts is scored as the table scores it: every verdict missing, named left out
    assert report["projects"]["s03"]["beta"]["final"] is None
    assert "s03" in report["systems"]["beta"]["final_left_out"]
    assert report["projects"] == expected["projects"]
    assert report["systems"] == expected["systems"]
    # by hand (tests/cli/test_score_project.py): alpha fails A-02..A-04 on s01 (129 / 143 = 90.21) and
    # also A-01 (8 points) on s02: 121 / 143 = 84.62; the failing attempt (0 on s01) is nowhere
    assert report["projects"]["s01"]["alpha"]["final"] == pytest.approx(90.2098)
    assert report["projects"]["s02"]["alpha"]["final"] == pytest.approx(84.6154)
    # the missing pair is named; the shared set is the projects every system has a known final score on
    pairs = {(p["system"], p["project"]): p for p in report["pairs"]}
    assert pairs[("beta", "s03")]["run"] == "not started" and pairs[("beta", "s03")]["submission"] is None
    assert pairs[("alpha", "s01")]["attempts"] == 2 and pairs[("alpha", "s01")]["submission"] == "alpha-1"
    assert report["projects"]["s01"]["beta"]["final"] == pytest.approx(37.7622)
    assert report["shared"]["projects"] == ["s01", "s02"] and report["shared"]["left_out"] == {"s03": ["beta"]}
    # alpha's mean: over its own three known projects, and over the shared two, (90.2098 + 84.6154) / 2
    assert report["shared"]["systems"]["alpha"]["final_mean"] == pytest.approx(87.4126, abs=1e-4)
    assert report["systems"]["alpha"]["final_mean"] == pytest.approx((2 * 90.2098 + 84.6154) / 3, abs=1e-4)


def test_the_text_report_and_the_files_it_writes(bench: Path, capsys, tmp_path: Path):
    out_dir = tmp_path / "out"
    code, out, err = run_cli(capsys, "benchmark", "report", str(bench), "--out", str(out_dir))
    assert code == 0, err
    assert "suite: 3 projects x 2 systems, scored by judge:j1" in out
    assert "beta on s03: not started" in out
    figures = [f"{name}.{form}" for name in ("fig5a", "fig5b", "fig5c", "fig5d", "fig5e", "fig5f", "fig9")
               for form in ("png", "svg")]
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(
        ["final.csv", "lineage.csv", "process.csv", "report.json", "table5.xlsx", *figures])
    from xml.etree import ElementTree

    from PIL import Image

    for name in figures:
        if name.endswith(".png"):
            with Image.open(out_dir / name) as image:
                assert image.format == "PNG" and image.size[0] > 500
        else:
            assert ElementTree.parse(out_dir / name).getroot().tag.endswith("svg")
    header, rows = read_rows(out_dir / "final.csv")
    assert header == ["project", "alpha", "beta"] and [r["project"] for r in rows] == list(PROJECTS)
    assert float(rows[0]["alpha"]) == pytest.approx(90.2098, abs=1e-3) and rows[2]["beta"] == ""
    book = openpyxl.load_workbook(out_dir / "table5.xlsx")
    assert book.sheetnames == ["Final", "Process", "Means"]
    assert book["Final"]["B2"].value == pytest.approx(90.2098, abs=1e-3)
    assert json.loads((out_dir / "report.json").read_text())["benchmark"] == "suite"


def test_a_benchmark_with_problems_is_not_reported(bench: Path, capsys):
    bench.write_text(bench.read_text().replace("selected: false, reason: first try", "selected: true"))
    code, _, err = run_cli(capsys, "benchmark", "report", str(bench))
    assert code == 2 and "fix them first" in err


def test_the_figures_draw_the_reports_numbers(bench: Path, capsys):
    from studio.benchmark.figures import figure_5a, figure_5b, figure_5c, figure_5e, figure_9
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report

    report = benchmark_report(load_benchmark(bench))

    def bars(figure) -> dict[str, float]:  # noqa: ANN001
        return {patch.get_gid(): patch.get_height() for patch in figure.axes[0].patches if patch.get_gid()}

    drawn = bars(figure_5a(report))
    assert drawn["own known projects|alpha"] == pytest.approx(report.scores.systems["alpha"].final_mean)
    assert drawn["shared set (2 projects)|alpha"] == pytest.approx(87.4126, abs=1e-4)
    assert drawn["shared set (2 projects)|beta"] == pytest.approx(37.7622, abs=1e-4)
    drawn = bars(figure_5b(report))
    assert drawn["process|beta"] == pytest.approx(report.scores.systems["beta"].process_mean)
    gaps = [t.get_text() for t in figure_5b(report).axes[0].texts if t.get_text().startswith("gap")]
    assert f"gap {report.scores.systems['alpha'].gap:+.1f}" in gaps
    # 5c: one point per pair with both scores known: 3 of alpha, 2 of beta (none on s03)
    points = [len(c.get_offsets()) for c in figure_5c(report).axes[0].collections]
    assert points == [3, 2]
    assert figure_5c(report).get_supxlabel() == "1 pair(s) with an unknown score left out"
    # 5e: a dimension no final criterion of the sample has is marked n/a, never drawn at 0
    drawn = bars(figure_5e(report))
    dims = report.scores.systems["alpha"].dimensions
    assert all(drawn[f"alpha|{d}"] == pytest.approx(v) for d, v in dims.items() if v is not None)
    assert all(f"alpha|{d}" not in drawn for d, v in dims.items() if v is None)
    # 9: every pair's checkpoint scores along the timeline and its final score; beta on s03 has none
    lines = {line.get_gid(): line for ax in figure_9(report).axes for line in ax.get_lines() if line.get_gid()}
    s01 = report.scores.projects["s01"]["alpha"]
    assert list(lines["s01|alpha"].get_ydata()) == [v for v in s01.checkpoints.values() if v is not None]
    assert list(lines["s01|alpha|final"].get_ydata()) == [pytest.approx(90.2098, abs=1e-4)]
    assert "s03|beta|final" not in lines


def test_resources_as_the_paper_counts_them(tmp_path: Path, capsys):
    """claude's run-a on p01 (tests/benchmark/test_benchmark_file.py) given two timed subtasks:
    T01 120 s with input 1,000, cache_creation 300, cache_read 5,000, output 200; T02 60 s with input
    10, output 5. Agent time 180 s; tokens 1,000 + 300 + 200 + 10 + 5 = 1,515 (cache_read not counted
    again). codex's run-b on p01 has a subtask without usage: its tokens are unknown, never 0."""
    from datetime import timedelta

    from studio.runs.record import SubtaskRecord, load_run, save_run
    from tests.benchmark.test_benchmark_file import written_bench
    from tests.judging.scored_runs import RUN_A, RUN_B, T0

    bench = written_bench(tmp_path / "suite", capsys)
    run_a = bench.parent / "p01" / "runs" / RUN_A
    record = load_run(run_a)
    record.subtasks = [SubtaskRecord(id="T01"), SubtaskRecord(id="T02")]
    record.subtasks[0].started, record.subtasks[0].ended = T0, T0 + timedelta(seconds=120)
    record.subtasks[0].tokens = {"input": 1000, "cache_creation": 300, "cache_read": 5000, "output": 200}
    record.subtasks[1].started, record.subtasks[1].ended = T0, T0 + timedelta(seconds=60)
    record.subtasks[1].tokens = {"input": 10, "output": 5}
    save_run(run_a, record)
    run_b = bench.parent / "p01" / "runs" / RUN_B
    record = load_run(run_b)
    record.subtasks = [SubtaskRecord(id="T01"), SubtaskRecord(id="T02")]  # T02 never started
    record.subtasks[0].started, record.subtasks[0].ended = T0, T0 + timedelta(seconds=30)
    save_run(run_b, record)
    code, out, err = run_cli(capsys, "benchmark", "report", str(bench), "--format", "json")
    assert code == 0, err
    resources = json.loads(out)["resources"]
    pairs = {(p["system"], p["project"]): p for p in resources["pairs"]}
    assert (pairs[("claude", "kestrel-p01")]["agent_s"], pairs[("claude", "kestrel-p01")]["tokens"]) == (180.0, 1515)
    assert (pairs[("codex", "kestrel-p01")]["agent_s"], pairs[("codex", "kestrel-p01")]["tokens"]) == (30.0, None)
    assert resources["systems"]["claude"]["tokens_total"] == 1515
    assert resources["systems"]["codex"]["unknown_tokens"] == ["kestrel-p01"]
    from studio.benchmark.figures import figure_5d
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report

    figure = figure_5d(benchmark_report(load_benchmark(bench)))
    drawn = {p.get_gid(): p.get_height() for ax in figure.axes for p in ax.patches if p.get_gid()}
    assert drawn["1|claude"] == pytest.approx(3.0) and drawn["2|claude"] == pytest.approx(1.515)
    assert drawn["1|codex"] == pytest.approx(0.5) and "2|codex" not in drawn  # unknown tokens: n/a, not 0
    assert "codex: kestrel-p01" in figure.get_supxlabel()


def test_the_report_and_its_pairs_status_read_each_project_once(bench: Path, monkeypatch):
    # status used to read a project per pair, then the report read every project again
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.report import benchmark_report
    from studio.judging import tables
    from studio.store import loader

    reads: list[str] = []
    for module, name in ((loader, "load_project"), (tables, "read_project_verdicts")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, _real=real, _name=name, **kwargs:
                            reads.append(_name) or _real(*args, **kwargs))
    report = benchmark_report(load_benchmark(bench))
    assert reads.count("load_project") == len(PROJECTS) and reads.count("read_project_verdicts") == len(PROJECTS)
    pairs = {(p.system, p.project): p for p in report.pairs}
    assert pairs[("alpha", "s01")].judging == "scored" and pairs[("beta", "s03")].run == "not started"


def test_a_broken_verdict_file_leaves_the_other_pairs_of_its_project_judged(bench: Path, capsys):
    # the project's submissions are read together; when one file is broken each is read alone
    from studio.benchmark.loader import load_benchmark
    from studio.benchmark.status import benchmark_status

    (broken,) = (bench.parent / "s01" / "verdicts" / "beta-1").glob("*.yaml")
    broken.write_text("format: 1\nsubmission: beta-1\nverdicts: [\n", encoding="utf-8")
    pairs = {(p.system, p.project): p for p in benchmark_status(load_benchmark(bench))}
    assert pairs[("alpha", "s01")].judging == "scored" and pairs[("beta", "s01")].judging == "not judged"
    assert pairs[("beta", "s02")].judging == "scored"
    code, _, err = run_cli(capsys, "benchmark", "report", str(bench))
    assert code != 0 and str(broken) in err and "Traceback" not in err


def test_the_report_counts_each_pairs_defects_by_lineage_class(bench: Path, capsys, tmp_path: Path):
    from studio.judging.lineage_reading import lineage_of
    from studio.scoring.lineage import CLASSES
    from studio.store.loader import load_project
    from tests.scoring.test_lineage import write_run

    # beta's run of s02 fails T07-C01 at its checkpoint; its reuse in the final package holds
    write_run(bench.parent / "s02", "beta-1", {("T07", "T07-C01"): "fail"}, rater=JUDGE)
    out_dir = tmp_path / "out"
    code, out, err = run_cli(capsys, "benchmark", "report", str(bench), "--out", str(out_dir))
    assert code == 0, err
    assert "Defect lineage (checkpoint failures by what became of them)" in out
    header, rows = read_rows(out_dir / "lineage.csv")
    assert header == ["project", "system", *CLASSES]
    assert {(r["project"], r["system"]) for r in rows} == {("s01", "alpha"), ("s02", "alpha"), ("s03", "alpha"),
                                                           ("s01", "beta"), ("s02", "beta")}  # not alpha-0
    for row in rows:
        submission = f"{row['system']}-1"
        counts = lineage_of(load_project(bench.parent / row["project"]), submission, JUDGE).counts()
        assert {c: int(row[c]) for c in CLASSES} == counts
    beta = next(r for r in rows if (r["project"], r["system"]) == ("s02", "beta"))
    assert int(beta["repaired"]) + int(beta["propagated"]) + int(beta["persisted"]) == 1
