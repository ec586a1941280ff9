"""The reporting layer of agreement statistics: text report, xlsx workbook, PNG figure."""

from __future__ import annotations

import ast
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from openpyxl import load_workbook

from studio.agreement import RatingsBuilder, analyse
from studio.agreement.plot import write_plot
from studio.agreement.report import to_text, write_xlsx

ROOT = Path(__file__).resolve().parents[2]
AGREEMENT = ROOT / "studio" / "agreement"
TARGETS = ["checkpoint", "artifact", "cross-file", "package"]
DIMENSIONS = ["correctness", "completeness", "consistency", "professionalism", "usability"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _ratings(raters: list[tuple[str, float]], items: int = 40, criteria: int = 12, seed: int = 7):
    """A judge and experts over items x criteria; each rater agrees with a hidden truth with
    the given accuracy; targets, dimensions and projects cycle."""
    rng = np.random.default_rng(seed)
    builder = RatingsBuilder()
    for i in range(items):
        for c in range(criteria):
            truth = rng.random() < 0.8
            for name, accuracy in raters:
                verdict = truth if rng.random() < accuracy else not truth
                builder.add(f"C{c:02d}", f"item{i:02d}", name, "pass" if verdict else "fail",
                            TARGETS[c % 4], DIMENSIONS[c % 5], f"P{i % 5 + 1}")
    return builder.build()


@pytest.fixture(scope="module")
def three() -> dict:
    return analyse(_ratings([("judge", 0.9), ("expert1", 0.95), ("expert2", 0.93)]), resamples=200, seed=1)


@pytest.fixture(scope="module")
def two() -> dict:
    return analyse(_ratings([("judge", 0.9), ("expert", 0.95)]), resamples=200, seed=1)


@pytest.fixture(scope="module")
def unbooted() -> dict:
    return analyse(_ratings([("judge", 0.9), ("expert", 0.95)], items=10))


@pytest.fixture(scope="module")
def degenerate() -> dict:
    """Every rating 'pass': percent 100, AC1 1, kappa and alpha undefined; one expert rating missing."""
    builder = RatingsBuilder()
    for i in range(12):
        builder.add(f"C{i}", f"item{i % 3}", "judge", "pass", "artifact", "correctness")
        builder.add(f"C{i}", f"item{i % 3}", "expert", "pass" if i else None, "artifact", "correctness")
    return analyse(builder.build(), resamples=50, seed=3)


def _num(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def _interval(bounds: list[float], digits: int) -> str:
    return f"[{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"


def _line(text: str, start: str) -> str:
    matches = [line for line in text.splitlines() if line.strip().startswith(start)]
    assert matches, f"no line starts with {start!r}"
    return matches[0]


# -- text report ---------------------------------------------------------------------------
def test_text_header_and_pooled_block_of_two_raters(two):
    text = to_text(two)
    pooled = two.pooled
    assert "Raters:     2: judge, expert" in text
    assert "Judge:      judge" in text
    assert f"Decisions:  {two.decisions} (criterion x item) over {two.items} items" in text
    assert "200 resamples of whole items (cluster bootstrap), seed 1" in text
    assert (f"decisions rated by both raters: {pooled['n']} of {pooled['decisions']}; agreeing: {pooled['agree']}"
            in text)
    boot = pooled["bootstrap95"]
    line = _line(text, "percent agreement")
    assert _num(pooled["percent"], 2) + "%" in line
    assert _interval(pooled["wilson95"], 2) in line and _interval(boot["percent"]["interval"], 2) in line
    line = _line(text, "Cohen's kappa")
    assert line.split()[2] == _num(pooled["cohen_kappa"], 3)
    assert _interval(boot["cohen_kappa"]["interval"], 3) in line
    assert _line(text, "its standard error (SE)").split()[-1] == _num(pooled["cohen_kappa_se"], 3)
    assert _line(text, "SE under H0 (kappa = 0)").split()[-1] == _num(pooled["cohen_kappa_se0"], 3)
    line = _line(text, "Gwet's AC1")
    assert _num(pooled["gwet_ac1"], 3) in line and _interval(boot["gwet_ac1"]["interval"], 3) in line
    line = _line(text, "Krippendorff's alpha")
    assert _num(pooled["krippendorff_alpha"], 3) in line
    assert _interval(boot["krippendorff_alpha"]["interval"], 3) in line


def test_text_confusion_grid_pass_rates_and_judge_rates(two):
    text = to_text(two)
    confusion = two.pooled["confusion"]
    (pp, pf), (fp, ff) = confusion["counts"]
    assert "rows: judge; columns: expert" in text
    assert re.search(r"judge \\ expert\s+pass\s+fail\s+total", text)
    assert re.search(rf"\n\s+pass\s+{pp}\s+{pf}\s+{pp + pf}\n", text)
    assert re.search(rf"\n\s+fail\s+{fp}\s+{ff}\s+{fp + ff}\n", text)
    assert re.search(rf"\n\s+total\s+{pp + fp}\s+{pf + ff}\s+{pp + pf + fp + ff}\n", text)
    for rater, rate in two.pooled["pass_rates"].items():
        assert re.search(rf"\n\s+{rater}\s+{100 * rate:.1f}%\n", text)
    rates = two.pooled["judge_vs_experts"]
    assert (f"false-pass rate: {100 * rates['false_pass_rate']:.1f}% ({rates['false_pass']} of "
            f"{rates['expert_fail']} expert 'fail' verdicts") in text
    assert (f"false-fail rate: {100 * rates['false_fail_rate']:.1f}% ({rates['false_fail']} of "
            f"{rates['expert_pass']} expert 'pass' verdicts") in text


def test_text_groups_and_disagreements(two):
    text = to_text(two)
    for key, title in (("by_target", "By target"), ("by_dimension", "By dimension"), ("by_project", "By project")):
        assert title in text
        for group, block in two.groups(key).items():
            line = _line(text, group)
            cells = line.split()
            assert cells[1] == str(block["n"])
            assert f"{block['percent']:.1f}%" in line and _interval(block["wilson95"], 1) in line
            for value in (block["cohen_kappa"], block["gwet_ac1"], block["krippendorff_alpha"]):
                assert f"{value:.3f}" in line
            assert _interval(block["bootstrap95"]["gwet_ac1"]["interval"], 2) in line
    assert text.rstrip().endswith(f"Disagreements: {len(two.disagreements)} decisions where the raters' "
                                  "verdicts differ (listed in the xlsx and JSON).")


def test_text_more_than_two_raters_pairwise_and_ceiling(three):
    text = to_text(three)
    pooled = three.pooled
    assert "all raters agree (unanimous): " + str(pooled["agree"]) in text
    assert _num(pooled["percent"], 2) in _line(text, "percent agreement (mean over pairs)")
    assert _line(text, "Cohen's kappa").split()[2] == "n/a"  # two raters only: not "undefined", not 0
    assert "rows: judge; columns: experts (pooled)" in text
    for pair in pooled["pairwise"].values():
        line = _line(text, f"{pair['a']} - {pair['b']}")
        assert line.split()[3:] == [str(pair["n"]), str(pair["agree"]), f"{pair['percent']:.2f}%",
                                    f"{pair['cohen_kappa']:.3f}", f"{pair['gwet_ac1']:.3f}"]
    assert "percent agreement above the diagonal, Cohen's kappa below it" in text
    je, ee = pooled["judge_expert"], pooled["expert_expert"]
    line = _line(text, "judge-expert :")
    assert f"{je['percent']:.2f}%" in line and f"{je['cohen_kappa']:.3f}" in line and "(2 pairs)" in line
    line = _line(text, "expert-expert:")
    assert f"{ee['gwet_ac1']:.3f}" in line and "(1 pair)" in line and "ceiling" in line
    assert f"percent {je['percent'] - ee['percent']:+.2f} points" in _line(text, "judge minus ceiling")
    for group, block in three.by_target.items():
        line = _line(text, group)
        assert f"{block['judge_expert']['cohen_kappa']:.3f}" in line  # the J-E kappa column
        assert _interval(block["bootstrap95"]["percent"]["interval"], 1) in line


def test_text_prints_undefined_never_a_number(degenerate):
    pooled = degenerate.pooled
    assert pooled["cohen_kappa"] is None and pooled["krippendorff_alpha"] is None  # the premise
    assert pooled["judge_vs_experts"]["false_pass_rate"] is None
    text = to_text(degenerate)
    assert _line(text, "Cohen's kappa").split()[2:4] == ["undefined", "undefined"]
    assert _line(text, "its standard error (SE)").split()[-1] == "undefined"
    assert _line(text, "SE under H0 (kappa = 0)").split()[-1] == "undefined"
    assert _line(text, "Krippendorff's alpha").split()[3:5] == ["undefined", "undefined"]
    assert "false-pass rate: undefined (no expert 'fail' verdicts)" in text
    line = _line(text, "artifact")
    assert re.search(r"100\.0%\s+\[\d+\.\d, 100\.0\]\s+undefined\s+1\.000\s+\[1\.00, 1\.00\]\s+undefined$", line)
    assert "over 3 items" in text and "decisions rated by both raters: 11 of 12" in text
    assert "no project column in the ratings" in text


def test_text_without_bootstrap_has_no_bootstrap_column(unbooted):
    text = to_text(unbooted)
    assert "Bootstrap:  off" in text
    assert "bootstrap 95%" not in text and "boot 95%" not in text


@pytest.mark.parametrize("name", ["two", "three", "unbooted", "degenerate"])
def test_text_fits_100_columns(name, request):
    assert max(len(line) for line in to_text(request.getfixturevalue(name)).splitlines()) <= 100


def test_text_fits_100_columns_with_long_group_names():
    builder = RatingsBuilder()
    for c in range(6):
        for r, v in (("judge", c % 2), ("expert", c % 3 == 0)):
            builder.add(f"C{c}", "i", r, "pass" if v else "fail", target="a very long target name " * 5)
    text = to_text(analyse(builder.build(), resamples=20))
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "a very long target name a very" in text


# -- xlsx workbook -------------------------------------------------------------------------
def _rows(sheet) -> list[tuple]:
    return [row for row in sheet.iter_rows(values_only=True) if any(v not in (None, "") for v in row)]


def _pooled(book) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for row in _rows(book["Pooled"])[1:]:
        out.setdefault(row[0], []).append(row[1:])
    return out


def test_xlsx_sheets_and_pooled_values(two, tmp_path):
    path = tmp_path / "out" / "agreement.xlsx"
    write_xlsx(two, path)
    book = load_workbook(path)
    assert book.sheetnames == ["Pooled", "By target", "By dimension", "By project", "Confusion", "Disagreements"]
    pooled, block = _pooled(book), two.pooled
    boot = block["bootstrap95"]
    assert pooled["Raters"][0][0] == "judge, expert"
    assert pooled["Decisions"][0][0] == two.decisions and pooled["Items"][0][0] == two.items
    assert pooled["Bootstrap resamples"][0][0] == 200 and pooled["Bootstrap seed"][0][0] == 1
    assert pooled["Agreeing decisions"][0][0] == block["agree"]
    wilson, booted = pooled["Percent agreement"]
    assert wilson[:4] == (pytest.approx(block["percent"]), *map(pytest.approx, block["wilson95"]), "Wilson score")
    assert booted[:3] == (pytest.approx(block["percent"]), *map(pytest.approx, boot["percent"]["interval"]))
    for name, key in (("Cohen's kappa", "cohen_kappa"), ("Gwet's AC1", "gwet_ac1"),
                      ("Krippendorff's alpha (nominal)", "krippendorff_alpha")):
        row = pooled[name][0]
        assert row[:3] == (pytest.approx(block[key]), *map(pytest.approx, boot[key]["interval"]))
        assert row[3] == "cluster bootstrap over items"
    assert pooled["Cohen's kappa SE"][0][0] == pytest.approx(block["cohen_kappa_se"])
    assert pooled["Cohen's kappa SE under H0 (kappa = 0)"][0][0] == pytest.approx(block["cohen_kappa_se0"])
    for rater, rate in block["pass_rates"].items():
        assert pooled[f"Pass rate: {rater}"][0][0] == pytest.approx(rate)
    rates = block["judge_vs_experts"]
    row = pooled["Judge false-pass rate"][0]
    assert row[0] == pytest.approx(rates["false_pass_rate"])
    assert row[4].startswith(f"{rates['false_pass']} of {rates['expert_fail']} ")
    assert pooled["Judge false-fail rate"][0][0] == pytest.approx(rates["false_fail_rate"])


def test_xlsx_group_sheets(two, tmp_path):
    path = tmp_path / "agreement.xlsx"
    write_xlsx(two, path)
    book = load_workbook(path)
    for key, name in (("by_target", "target"), ("by_dimension", "dimension"), ("by_project", "project")):
        rows = _rows(book[f"By {name}"])
        header = rows[0]
        assert header[:6] == (name, "n", "agree", "percent", "wilson lo", "wilson hi")
        assert header[-2:] == ("false-pass", "false-fail")
        assert [r[0] for r in rows[1:]] == list(two.groups(key))
        for row in rows[1:]:
            block = two.groups(key)[row[0]]
            cells = dict(zip(header, row, strict=False))
            boot = block["bootstrap95"]
            assert (cells["n"], cells["agree"]) == (block["n"], block["agree"])
            expected = {
                "percent": block["percent"], "wilson lo": block["wilson95"][0], "wilson hi": block["wilson95"][1],
                "kappa": block["cohen_kappa"], "kappa se": block["cohen_kappa_se"],
                "kappa lo": boot["cohen_kappa"]["interval"][0], "kappa hi": boot["cohen_kappa"]["interval"][1],
                "AC1": block["gwet_ac1"], "AC1 lo": boot["gwet_ac1"]["interval"][0],
                "AC1 hi": boot["gwet_ac1"]["interval"][1], "alpha": block["krippendorff_alpha"],
                "alpha lo": boot["krippendorff_alpha"]["interval"][0],
                "alpha hi": boot["krippendorff_alpha"]["interval"][1],
                "false-pass": block["judge_vs_experts"]["false_pass_rate"],
                "false-fail": block["judge_vs_experts"]["false_fail_rate"],
            }
            assert {k: cells[k] for k in expected} == {k: pytest.approx(v) for k, v in expected.items()}


def test_xlsx_confusion_pairwise_and_disagreements(three, tmp_path):
    path = tmp_path / "agreement.xlsx"
    write_xlsx(three, path)
    book = load_workbook(path)
    assert book.sheetnames == ["Pooled", "By target", "By dimension", "By project", "Confusion", "Pairwise",
                               "Disagreements"]
    confusion = three.pooled["confusion"]
    counts = confusion["counts"]
    grid = _rows(book["Confusion"])
    assert grid[0] == ("rows: judge \\ columns: experts (pooled)", "pass", "fail", "total")
    assert grid[1] == ("pass", *counts[0], sum(counts[0]))
    assert grid[2] == ("fail", *counts[1], sum(counts[1]))
    assert grid[3] == ("total", counts[0][0] + counts[1][0], counts[0][1] + counts[1][1], sum(map(sum, counts)))

    pairs = _rows(book["Pairwise"])
    assert pairs[0] == ("rater A", "rater B", "n", "agree", "percent", "kappa", "AC1")
    for row, pair in zip(pairs[1:], three.pooled["pairwise"].values(), strict=False):
        assert row == (pair["a"], pair["b"], pair["n"], pair["agree"], pytest.approx(pair["percent"]),
                       pytest.approx(pair["cohen_kappa"]), pytest.approx(pair["gwet_ac1"]))
    ceiling = pairs[-1]
    assert ceiling[:2] == ("mean expert-expert (ceiling)", "1 pair")
    assert ceiling[4] == pytest.approx(three.pooled["expert_expert"]["percent"])

    rows = _rows(book["Disagreements"])
    assert rows[0] == ("criterion", "item", "target", "dimension", "project", "judge", "expert1", "expert2")
    assert len(rows) == len(three.disagreements) + 1
    first = three.disagreements[0]
    assert rows[1] == (first["criterion"], first["item"], first["target"], first["dimension"], first["project"],
                       *first["ratings"].values())

    pooled = _pooled(book)
    assert pooled["Cohen's kappa"][0][0] == "n/a"  # not computed for three raters: not blank, not 0
    assert pooled["Unanimous decisions"][0][0] == three.pooled["agree"]
    expected = three.pooled["judge_expert"]["cohen_kappa"]
    assert pooled["Mean judge-expert Cohen's kappa"][0][0] == pytest.approx(expected)


def test_xlsx_writes_undefined_as_text(degenerate, tmp_path):
    path = tmp_path / "agreement.xlsx"
    write_xlsx(degenerate, path)
    book = load_workbook(path)
    pooled = _pooled(book)
    assert pooled["Cohen's kappa"][0][:3] == ("undefined", "undefined", "undefined")
    assert pooled["Krippendorff's alpha (nominal)"][0][:3] == ("undefined", "undefined", "undefined")
    assert pooled["Krippendorff's alpha (nominal)"][0][4] == "50 of 50 resamples undefined"
    assert pooled["Cohen's kappa SE"][0][0] == "undefined"
    assert pooled["Judge false-pass rate"][0][0] == "undefined"
    assert pooled["Gwet's AC1"][0][:3] == (1, 1, 1)
    header, row = _rows(book["By target"])
    cells = dict(zip(header, row, strict=False))
    for key in ("kappa", "kappa se", "kappa lo", "kappa hi", "alpha", "alpha lo", "alpha hi", "false-pass"):
        assert cells[key] == "undefined", key
    assert cells["false-fail"] == 0 and cells["percent"] == 100
    assert _rows(book["By project"])[1][0] == "no project column in the ratings"
    undefined_cells = [c for ws in book for row in ws.iter_rows() for c in row if c.value == "undefined"]
    assert len(undefined_cells) >= 20


def test_xlsx_header_style_freeze_and_widths(three, tmp_path):
    path = tmp_path / "agreement.xlsx"
    write_xlsx(three, path)
    book = load_workbook(path)
    for sheet in book:
        if sheet.title == "Confusion":
            assert sheet.freeze_panes == "B2"
        else:
            assert sheet.freeze_panes == "A2", sheet.title
        assert all(c.font.bold for c in sheet[1] if c.value is not None), sheet.title
        assert sheet.column_dimensions["A"].width >= 8
    assert book["Pooled"].column_dimensions["A"].width >= len("Krippendorff's alpha (nominal)")


def test_xlsx_is_replaced_atomically_and_keeps_names_as_text(tmp_path):
    builder = RatingsBuilder()
    for c, (j, e) in enumerate([("pass", "fail"), ("fail", "fail"), ("pass", "pass")]):
        builder.add(f"=HYPERLINK(\"x\")+{c}", "item\x01one", "judge", j)
        builder.add(f"=HYPERLINK(\"x\")+{c}", "item\x01one", "expert", e)
    report = analyse(builder.build())
    path = tmp_path / "agreement.xlsx"
    path.write_bytes(b"old")
    write_xlsx(report, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agreement.xlsx"]  # no temporary file left
    book = load_workbook(path)
    rows = _rows(book["Disagreements"])
    assert rows[1][:2] == ('=HYPERLINK("x")+0', "itemone")  # text, not a formula; control character dropped
    assert book["Disagreements"]["A2"].data_type == "s"


def test_xlsx_failure_leaves_the_old_file(two, tmp_path, monkeypatch):
    import studio.agreement.report as report_module

    path = tmp_path / "agreement.xlsx"
    path.write_bytes(b"old")

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(report_module, "_disagreement_sheet", broken)
    with pytest.raises(RuntimeError):
        write_xlsx(two, path)
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agreement.xlsx"]


# -- PNG figure ----------------------------------------------------------------------------
def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("name", ["two", "three", "unbooted", "degenerate"])
def test_plot_writes_a_png(name, request, tmp_path):
    path = tmp_path / "figures" / "agreement.png"
    write_plot(request.getfixturevalue(name), path)
    assert path.stat().st_size > 10_000
    width, height = _png_size(path)
    assert 1800 <= width <= 2100 and 800 <= height <= 1300  # about 13 x 6.5 inches at 150 dpi
    assert sorted(p.name for p in path.parent.iterdir()) == ["agreement.png"]


def test_plot_with_undefined_coefficients_and_no_groups(tmp_path):
    builder = RatingsBuilder()
    for c in range(8):
        builder.add(f"C{c}", f"i{c % 2}", "a", "pass")
        builder.add(f"C{c}", f"i{c % 2}", "b", "pass" if c else "fail")
    report = analyse(builder.build(), resamples=30)
    report.pooled["gwet_ac1"] = None  # an undefined pooled value is left out as well
    path = tmp_path / "agreement.png"
    write_plot(report, path)
    assert path.stat().st_size > 10_000 and _png_size(path)[0] > 0


def test_plot_caption_names_the_undefined_values(degenerate):
    from studio.agreement.plot import PANELS, _caption, _plan

    panels = [_plan(degenerate, degenerate.groups(key), name) for key, name in PANELS]
    caption = _caption(degenerate, panels).replace("\n", " ")
    assert ("Not drawn, undefined: Cohen's kappa for target artifact; Cohen's kappa for dimension correctness."
            in caption)


def test_plot_does_not_use_pyplot_or_qt(two, tmp_path):
    """The figure is drawn without pyplot (no global backend switch) and with Qt unimportable."""
    import json

    report = tmp_path / "report.json"
    report.write_text(json.dumps(two.to_json()))
    script = f"""
import json, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6'):
            raise ImportError('Qt is blocked: ' + name)
sys.meta_path.insert(0, Block())
from studio.agreement.plot import write_plot
from studio.agreement.report import to_text, write_xlsx
from studio.agreement.results import AgreementReport
report = AgreementReport.from_json(json.load(open({str(report)!r})))
write_plot(report, {str(tmp_path / 'x.png')!r})
write_xlsx(report, {str(tmp_path / 'x.xlsx')!r})
to_text(report)
assert 'matplotlib.pyplot' not in sys.modules
"""
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.png").stat().st_size > 10_000


# -- architecture --------------------------------------------------------------------------
def test_no_agreement_module_imports_qt():
    offenders = {}
    modules = sorted(AGREEMENT.glob("*.py"))
    assert {p.name for p in modules} >= {"analysis.py", "report.py", "plot.py"}
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        bad = sorted(n for n in names if n.split(".")[0] in ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy"))
        if bad:
            offenders[path.name] = bad
    assert offenders == {}


def test_text_counts_resamples_where_a_coefficient_is_undefined(tmp_path):
    """Item 'easy' is all pass; a resample of only 'easy' items has no kappa: the interval uses
    the other resamples and says how many were set aside."""
    builder = RatingsBuilder()
    for c in range(6):
        builder.add(f"C{c}", "easy", "judge", "pass")
        builder.add(f"C{c}", "easy", "expert", "pass")
        builder.add(f"C{c}", "mixed", "judge", "pass" if c % 2 else "fail")
        builder.add(f"C{c}", "mixed", "expert", "pass" if c % 3 else "fail")
    report = analyse(builder.build(), resamples=200, seed=4)
    entry = report.pooled["bootstrap95"]["cohen_kappa"]
    assert 0 < entry["undefined_resamples"] < 200 and entry["interval"] is not None  # the premise
    text = to_text(report)
    shown = f"{_interval(entry['interval'], 3)} ({entry['undefined_resamples']} undefined)"
    assert shown in _line(text, "Cohen's kappa")
    assert "(k undefined): resamples where the coefficient had no value" in text
    write_xlsx(report, tmp_path / "a.xlsx")
    row = _pooled(load_workbook(tmp_path / "a.xlsx"))["Cohen's kappa"][0]
    assert row[4] == f"{entry['undefined_resamples']} of 200 resamples undefined"


def test_the_report_is_typed_and_round_trips_through_its_json(three):
    """The analysis returns an AgreementReport (the app binds to its fields); to_json() is the
    documented JSON and from_json() reads it back to an equal report."""
    import json

    from studio.agreement.results import AgreementReport

    assert isinstance(three, AgreementReport)
    assert list(three.to_json()) == ["raters", "categories", "judge", "decisions", "items", "bootstrap", "pooled",
                                     "by_target", "by_dimension", "by_project", "disagreements"]
    assert AgreementReport.from_json(json.loads(json.dumps(three.to_json()))) == three
    assert three.groups("by_target") is three.by_target
    with pytest.raises(KeyError):
        three.groups("pooled")
