"""Reports of an agreement analysis: a terminal text report and an xlsx workbook.

Both take the dict returned by `studio.agreement.analyse` and never recompute a statistic.
A value of None is shown as "undefined" (the coefficient has no value on these data, e.g.
kappa when every rating is "pass") — never as 0 or 1. A statistic that the analysis does
not compute for this design (Cohen's kappa and the Wilson interval with more than two
raters, bootstrap intervals without --bootstrap) is shown as "n/a".
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import cast

from studio.agreement.analysis import MAX_DISAGREEMENTS
from studio.agreement.results import AgreementReport, BlockView
from studio.store.atomic import write_atomic

WIDTH = 100
UNDEFINED = "undefined"
NA = "n/a"
GROUPINGS = (("by_target", "target"), ("by_dimension", "dimension"), ("by_project", "project"))


# -- formatting ---------------------------------------------------------------------------
def _pct(value: float | None, digits: int = 2) -> str:
    """A value already on the 0..100 scale."""
    return UNDEFINED if value is None else f"{value:.{digits}f}%"


def _rate(value: float | None, digits: int = 1) -> str:
    """A proportion 0..1 shown as a percentage."""
    return UNDEFINED if value is None else f"{100.0 * value:.{digits}f}%"


def _coef(value: float | None, digits: int = 3) -> str:
    return UNDEFINED if value is None else f"{value:.{digits}f}"


def _interval(bounds: list[float] | None, digits: int) -> str:
    return UNDEFINED if bounds is None else f"[{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"


def _boot(block: BlockView, name: str) -> dict | None:
    """The bootstrap entry of one coefficient, or None when the block was not bootstrapped."""
    return (block.get("bootstrap95") or {}).get(name)


def _boot_text(block: BlockView, name: str, digits: int) -> str:
    entry = _boot(block, name)
    if entry is None:
        return NA
    undefined = entry.get("undefined_resamples") or 0
    if entry["interval"] is None:
        return f"{UNDEFINED} (all resamples)" if undefined else UNDEFINED
    text = _interval(entry["interval"], digits)
    return f"{text} ({undefined} undefined)" if undefined else text


def _two_raters(block: BlockView) -> bool:
    return block.get("raters", 0) == 2


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def _table(headers: list[str], rows: list[list[str]], left: int = 1, indent: int = 2) -> list[str]:
    """Columns sized to their content; the first `left` columns left-aligned, the rest right."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))]
        return (" " * indent + "  ".join(parts)).rstrip()

    out = [line(headers), " " * indent + "-" * (sum(widths) + 2 * (len(widths) - 1))]
    out += [line(r) for r in rows]
    return out


def _section(title: str) -> list[str]:
    return ["", title, "-" * len(title)]


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


# -- text report --------------------------------------------------------------------------
def to_text(report: AgreementReport) -> str:
    """A readable terminal report (at most 100 columns for ordinary names)."""
    lines = ["Agreement report", "================"]
    lines += _header(report)
    pooled = report.pooled
    lines += _section("Pooled over all decisions")
    lines += _metrics(pooled)
    lines += _confusion_text(pooled.get("confusion"))
    lines += _pass_rates_text(pooled.get("pass_rates") or {})
    if report.judge is not None:
        lines += _judge_text(pooled.get("judge_vs_experts"), report.judge)
    if "pairwise" in pooled:
        lines += _pairwise_text(pooled, report)
    for key, name in GROUPINGS:
        lines += _groups_text(report.groups(key), name, report)
    lines += [""] + _wrap(_disagreement_line(report.disagreements), indent="")
    return "\n".join(_fit(line, WIDTH) if len(line) > WIDTH else line for line in lines)


def _header(report: AgreementReport) -> list[str]:
    judge = report.judge
    raters = ", ".join(report.raters)
    boot = report.bootstrap
    if boot:
        boot_text = (f"{boot['resamples']} resamples of whole {boot.get('unit', 'item')}s (cluster bootstrap), "
                     f"seed {boot['seed']}; percentile 95% intervals")
    else:
        boot_text = "off (no bootstrap intervals)"
    rows = [
        ("Raters", f"{len(report.raters)}: {raters}"),
        ("Judge", judge if judge is not None else "none (all raters treated alike)"),
        ("Categories", ", ".join(report.categories) or "none"),
        ("Decisions", f"{report.decisions} (criterion x item) over {report.items} "
                      f"item{'' if report.items == 1 else 's'}"),
        ("Bootstrap", boot_text),
    ]
    out = []
    for label, value in rows:
        out += textwrap.wrap(value, WIDTH, initial_indent=f"{label + ':':<12}", subsequent_indent=" " * 12,
                             break_on_hyphens=False)
    return out


def _metrics(block: BlockView) -> list[str]:
    two = _two_raters(block)
    booted = "bootstrap95" in block
    lines = []
    if two:
        lines.append(f"  decisions rated by both raters: {block['n']} of {block['decisions']}; "
                     f"agreeing: {block['agree']}")
    else:
        lines.append(f"  decisions rated by >= 2 raters: {block['n']} of {block['decisions']}; "
                     f"all raters agree (unanimous): {block['agree']}")
    headers = ["metric", "estimate"] + (["Wilson 95%"] if two else []) + (["bootstrap 95%"] if booted else [])
    rows = []

    def row(name: str, estimate: str, boot_key: str | None, digits: int = 3, wilson: str = "") -> None:
        cells = [name, estimate] + ([wilson] if two else [])
        if booted:
            cells.append(_boot_text(block, boot_key, digits) if boot_key else "")
        rows.append(cells)

    if two:
        row("percent agreement", _pct(block["percent"]), "percent", 2, _interval(block["wilson95"], 2))
        row("Cohen's kappa", _coef(block["cohen_kappa"]), "cohen_kappa")
        row("  its standard error (SE)", _coef(block.get("cohen_kappa_se")), None)
        row("  SE under H0 (kappa = 0)", _coef(block.get("cohen_kappa_se0")), None)
    else:
        if "pooled_percent" in block:  # reports written before the pooled headline have none
            row(f"percent agreement ({block['pooled_basis']} pooled: {block['pooled_agree']} of "
                f"{block['pooled_n']})", _pct(block["pooled_percent"]), "pooled_percent", 2)
        row("percent agreement (mean over pairs)", _pct(block["percent"]), "percent", 2)
        row("Cohen's kappa", NA, None)
    row("Gwet's AC1", _coef(block["gwet_ac1"]), "gwet_ac1")
    row("Krippendorff's alpha (nominal)", _coef(block["krippendorff_alpha"]), "krippendorff_alpha")
    lines += _table(headers, rows)
    if any("undefined)" in r[-1] for r in rows if booted):
        lines.append("  (k undefined): resamples where the coefficient had no value; the interval uses the others.")
    if not two:
        lines.append("  Cohen's kappa compares two raters: see the pairwise section.")
    return lines


def _confusion_text(confusion: BlockView | None) -> list[str]:
    if confusion is None:
        return ["", "  Confusion table: n/a (more than two raters and no judge)"]
    labels, counts = confusion["labels"], confusion["counts"]
    lines = ["", f"  Confusion table (rows: {confusion['rows']}; columns: {confusion['columns']}; "
                 "cells count rating pairs)"]
    if not labels:
        return lines + ["    no ratings"]
    row_totals = [sum(r) for r in counts]
    col_totals = [sum(c) for c in zip(*counts, strict=False)]
    total = sum(row_totals)
    cell = max(6, len(str(total)) + 1)
    room = WIDTH - 4 - 16 - 2 * (len(labels) + 1) - cell
    label_width = max(cell, min(12, max(len(lab) for lab in labels)))
    if label_width * len(labels) > room:
        return lines + ["    too many categories for the terminal: see the xlsx 'Confusion' sheet"]
    head = [_fit(f"{confusion['rows']} \\ {confusion['columns']}", 30)] + [_fit(lab, 12) for lab in labels] + ["total"]
    body = [[_fit(lab, 16)] + [str(c) for c in r] + [str(t)]
            for lab, r, t in zip(labels, counts, row_totals, strict=False)]
    body.append(["total"] + [str(c) for c in col_totals] + [str(total)])
    return lines + _table(head, body, indent=4)


def _pass_rates_text(rates: BlockView) -> list[str]:
    if not rates:
        return []
    if all(v is None for v in rates.values()):
        return ["", "  Pass rates: n/a (the scale is not pass/fail)"]
    rows = [[name, _rate(value)] for name, value in rates.items()]
    return [""] + _table(["rater", "pass rate"], rows)


def _judge_text(rates: BlockView | None, judge: str) -> list[str]:
    lines = ["", f"  Judge '{judge}' against the experts (each judge-expert pair of verdicts counts once)"]
    if rates is None:
        return lines + ["    n/a: false-pass and false-fail rates need a pass/fail scale"]
    for kind, wrong, base, verdict, action in (("false-pass", "false_pass", "expert_fail", "fail", "passed"),
                                               ("false-fail", "false_fail", "expert_pass", "pass", "failed")):
        if rates[base]:
            detail = f"{rates[wrong]} of {rates[base]} expert '{verdict}' verdicts were {action} by the judge"
        else:
            detail = f"no expert '{verdict}' verdicts"
        lines.append(f"    {kind} rate: {_rate(rates[kind.replace('-', '_') + '_rate'])} ({detail})")
    return lines


def _pairwise_text(block: BlockView, report: AgreementReport) -> list[str]:
    pairs = block["pairwise"]
    lines = _section("Pairwise agreement")
    rows = [[f"{p['a']} - {p['b']}", str(p["n"]), str(p["agree"]), _pct(p["percent"]), _coef(p["cohen_kappa"]),
             _coef(p["gwet_ac1"])] for p in pairs.values()]
    lines += _table(["pair", "n", "agree", "percent", "kappa", "AC1"], rows)
    raters = report.raters
    short = [_fit(r, 10) for r in raters]
    cell = max(10, *(len(s) for s in short))
    if 14 + (cell + 2) * len(raters) <= WIDTH:
        lookup = {(p["a"], p["b"]): p for p in pairs.values()}
        lookup |= {(p["b"], p["a"]): p for p in pairs.values()}
        rows = []
        for i, a in enumerate(raters):
            cells = [_fit(a, 12)]
            for j, b in enumerate(raters):
                if i == j:
                    cells.append("-")
                else:
                    pair = lookup.get((a, b))
                    cells.append(UNDEFINED if pair is None else _pct(pair["percent"], 1) if i < j
                                 else _coef(pair["cohen_kappa"], 2))
            rows.append(cells)
        lines += ["", "  Matrix: percent agreement above the diagonal, Cohen's kappa below it"]
        lines += _table([""] + short, rows, indent=4)
    je, ee = block.get("judge_expert"), block.get("expert_expert")
    if "judge_expert" in block:
        lines += ["", "  Judge-expert agreement against the expert-expert ceiling (means over pairs)"]
        lines.append("    " + _pair_mean_line("judge-expert ", je))
        lines.append("    " + _pair_mean_line("expert-expert", ee) + "  <- ceiling")
        if je is not None and ee is not None:
            gaps = []
            for key, label, fmt in (("percent", "percent", lambda v: f"{v:+.2f} points"),
                                    ("cohen_kappa", "kappa", lambda v: f"{v:+.3f}"),
                                    ("gwet_ac1", "AC1", lambda v: f"{v:+.3f}")):
                a, b = je.get(key), ee.get(key)
                gaps.append(f"{label} {UNDEFINED if a is None or b is None else fmt(a - b)}")
            lines.append("    judge minus ceiling: " + ", ".join(gaps))
    return lines


def _pair_mean_line(label: str, mean: BlockView | None) -> str:
    if mean is None:
        return f"{label}: {UNDEFINED} (no such pairs)"
    count = mean["pairs"]
    return (f"{label}: {_pct(mean['percent']):>8}  kappa {_coef(mean['cohen_kappa']):>9}  "
            f"AC1 {_coef(mean['gwet_ac1']):>9}  ({count} pair{'s' if count != 1 else ''})")


def _groups_text(groups: BlockView, name: str, report: AgreementReport) -> list[str]:
    title = f"By {name}"
    if not groups:
        return _section(title) + [f"  no {name} column in the ratings"]
    blocks = list(groups.values())
    two = all(_two_raters(b) for b in blocks)
    booted = report.bootstrap is not None
    judge = report.judge
    headers = [name, "n", "percent"]
    if two:
        headers.append("Wilson 95%")
    elif booted:
        headers.append("boot 95%")
    if two:
        headers.append("kappa")
    elif judge is not None:
        headers.append("J-E kappa")
    headers.append("AC1")
    if booted:
        headers.append("AC1 boot 95%")
    headers.append("alpha")
    rows = []
    for group, block in groups.items():
        cells = [group, str(block["n"]), _pct(block["percent"], 1)]
        if two:
            cells.append(_interval(block["wilson95"], 1))
        elif booted:
            entry = _boot(block, "percent")
            cells.append(NA if entry is None else _interval(entry["interval"], 1))
        if two:
            cells.append(_coef(block["cohen_kappa"]))
        elif judge is not None:
            je = block.get("judge_expert")
            cells.append(UNDEFINED if je is None else _coef(je["cohen_kappa"]))
        cells.append(_coef(block["gwet_ac1"]))
        if booted:
            entry = _boot(block, "gwet_ac1")
            cells.append(NA if entry is None else _interval(entry["interval"], 2))
        cells.append(_coef(block["krippendorff_alpha"]))
        rows.append(cells)
    others = sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(headers) if i > 0)
    room = max(12, WIDTH - 2 - others)
    for cells in rows:
        cells[0] = _fit(cells[0], room)
    lines = _section(title) + _table(headers, rows)
    if not two and judge is not None:
        lines.append("  J-E kappa: mean Cohen's kappa over the judge-expert pairs")
    return lines


def _disagreement_line(disagreements: list) -> str:
    count = len(disagreements)
    if count >= MAX_DISAGREEMENTS:
        return (f"Disagreements: at least {count} decisions where the raters' verdicts differ "
                "(the list stops there; listed in the xlsx and JSON).")
    noun = "decision" if count == 1 else "decisions"
    return f"Disagreements: {count} {noun} where the raters' verdicts differ (listed in the xlsx and JSON)."


# -- xlsx workbook -------------------------------------------------------------------------
def write_xlsx(report: AgreementReport, path: Path | str) -> None:
    """The report as a workbook; written to a temporary file beside `path`, then renamed."""
    from openpyxl import Workbook

    book = Workbook()
    _pooled_sheet(book.active, report)
    for key, name in GROUPINGS:
        _group_sheet(book.create_sheet(f"By {name}"), report.groups(key), name)
    _confusion_sheet(book.create_sheet("Confusion"), report.pooled.get("confusion"))
    if "pairwise" in report.pooled:
        _pairwise_sheet(book.create_sheet("Pairwise"), report.pooled)
    _disagreement_sheet(book.create_sheet("Disagreements"), report)
    buffer = io.BytesIO()
    book.save(buffer)
    write_atomic(Path(path), buffer.getvalue())


_PERCENT_FORMAT, _COEF_FORMAT, _RATE_FORMAT = "0.00", "0.000", "0.0%"


def _clean(value):
    """A cell value: None stays None; strings lose characters Excel forbids."""
    if isinstance(value, str):
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        return ILLEGAL_CHARACTERS_RE.sub("", value)
    return value


def _put(sheet, row: int, column: int, value, number_format: str | None = None):
    cell = sheet.cell(row=row, column=column)
    cell.value = _clean(value)
    if isinstance(value, str):
        cell.data_type = "s"  # a name such as "=1+1" is text, never a formula
    elif number_format and isinstance(value, (int, float)):
        cell.number_format = number_format
    return cell


def _append(sheet, values: list, formats: list[str | None] | None = None) -> int:
    row = sheet.max_row + 1 if sheet.max_row > 1 or sheet.cell(1, 1).value is not None else 1
    for column, value in enumerate(values, start=1):
        _put(sheet, row, column, value, formats[column - 1] if formats and column <= len(formats) else None)
    return row


def _value(value, fallback: str = UNDEFINED):
    """A statistic for a cell: the number, or the word for why there is none."""
    return fallback if value is None else value


def _header_row(sheet, headers: list[str]) -> None:
    from openpyxl.styles import Font

    for column, header in enumerate(headers, start=1):
        _put(sheet, 1, column, header).font = Font(bold=True)
    sheet.freeze_panes = "A2"


def _autosize(sheet, minimum: int = 8, maximum: int = 60) -> None:
    from openpyxl.utils import get_column_letter

    widths: dict[int, int] = {}
    for row in sheet.iter_rows():
        for cell in row:
            if cell.value is None:
                continue
            value = cell.value
            text = f"{value:.3f}" if isinstance(value, float) else str(value)
            widths[cell.column] = max(widths.get(cell.column, 0), len(text))
    for column, width in widths.items():
        sheet.column_dimensions[get_column_letter(column)].width = max(minimum, min(maximum, width + 2))


def _boot_bounds(block: BlockView, name: str) -> tuple:
    entry = _boot(block, name)
    if entry is None:
        return NA, NA
    if entry["interval"] is None:
        return UNDEFINED, UNDEFINED
    return tuple(entry["interval"])


def _pooled_sheet(sheet, report: AgreementReport) -> None:
    sheet.title = "Pooled"
    _header_row(sheet, ["Metric", "Value", "95% lower", "95% upper", "Interval", "Note"])
    block: BlockView = report.pooled
    two = _two_raters(block)
    boot = report.bootstrap
    judge = report.judge
    boot_name = "cluster bootstrap over items" if boot else ""

    def meta(name: str, value) -> None:
        _append(sheet, [name, value])

    meta("Raters", ", ".join(report.raters))
    meta("Judge", judge if judge is not None else "none")
    meta("Categories", ", ".join(report.categories))
    meta("Decisions", report.decisions)
    meta("Items", report.items)
    meta("Bootstrap resamples", boot["resamples"] if boot else "off")
    if boot:
        meta("Bootstrap seed", boot["seed"])
    _append(sheet, ["Decisions in the block", block["decisions"]])
    _append(sheet, ["n (decisions rated by both raters)" if two else "n (decisions rated by >= 2 raters)",
                    block["n"]])
    _append(sheet, ["Agreeing decisions" if two else "Unanimous decisions", block["agree"]])

    def metric(name: str, value, bounds: tuple, interval: str, fmt: str, note: str = "") -> None:
        lo, hi = bounds
        _append(sheet, [name, value, lo, hi, interval, note], [None, fmt, fmt, fmt])

    def boot_metric(name: str, key: str, fmt: str) -> None:
        entry = _boot(block, key)
        note = ""
        if entry is not None and entry.get("undefined_resamples"):
            note = f"{entry['undefined_resamples']} of {boot['resamples'] if boot else '?'} resamples undefined"
        metric(name, _value(block[key]), _boot_bounds(block, key), boot_name or NA, fmt, note)

    if two:
        wilson = block["wilson95"]
        metric("Percent agreement", _value(block["percent"]),
               (UNDEFINED, UNDEFINED) if wilson is None else tuple(wilson), "Wilson score", _PERCENT_FORMAT)
        if boot:
            boot_metric("Percent agreement", "percent", _PERCENT_FORMAT)
        boot_metric("Cohen's kappa", "cohen_kappa", _COEF_FORMAT)
        metric("Cohen's kappa SE", _value(block["cohen_kappa_se"]), ("", ""), "", _COEF_FORMAT,
               "large-sample (Fleiss, Cohen & Everitt 1969)")
        metric("Cohen's kappa SE under H0 (kappa = 0)", _value(block["cohen_kappa_se0"]), ("", ""), "", _COEF_FORMAT)
    else:
        if "pooled_percent" in block:
            boot_metric(f"Percent agreement ({block['pooled_basis']} pooled)", "pooled_percent", _PERCENT_FORMAT)
        boot_metric("Percent agreement (mean over rater pairs)", "percent", _PERCENT_FORMAT)
        metric("Cohen's kappa", NA, ("", ""), "", _COEF_FORMAT, "two raters only: see the Pairwise sheet")
    boot_metric("Gwet's AC1", "gwet_ac1", _COEF_FORMAT)
    boot_metric("Krippendorff's alpha (nominal)", "krippendorff_alpha", _COEF_FORMAT)
    for rater, rate in (block.get("pass_rates") or {}).items():
        _append(sheet, [f"Pass rate: {rater}", _value(rate)], [None, _RATE_FORMAT])
    rates = block.get("judge_vs_experts")
    if judge is not None and rates is not None:
        _append(sheet, ["Judge false-pass rate", _value(rates["false_pass_rate"]), "", "", "",
                        f"{rates['false_pass']} of {rates['expert_fail']} expert 'fail' verdicts passed by the judge"],
                [None, _RATE_FORMAT])
        _append(sheet, ["Judge false-fail rate", _value(rates["false_fail_rate"]), "", "", "",
                        f"{rates['false_fail']} of {rates['expert_pass']} expert 'pass' verdicts failed by the judge"],
                [None, _RATE_FORMAT])
    for key, label in (("judge_expert", "judge-expert"), ("expert_expert", "expert-expert (ceiling)")):
        if key not in block:
            continue
        mean = block[key]
        for stat, name, fmt in (("percent", "percent agreement", _PERCENT_FORMAT),
                                ("cohen_kappa", "Cohen's kappa", _COEF_FORMAT),
                                ("gwet_ac1", "Gwet's AC1", _COEF_FORMAT)):
            value = UNDEFINED if mean is None else _value(mean[stat])
            note = "" if mean is None else f"mean over {mean['pairs']} pair{'s' if mean['pairs'] != 1 else ''}"
            _append(sheet, [f"Mean {label} {name}", value, "", "", "", note], [None, fmt])
    _autosize(sheet)


GROUP_COLUMNS = ["n", "agree", "percent", "wilson lo", "wilson hi", "kappa", "kappa se", "kappa lo", "kappa hi",
                 "AC1", "AC1 lo", "AC1 hi", "alpha", "alpha lo", "alpha hi", "false-pass", "false-fail"]


def _group_sheet(sheet, groups: BlockView, name: str) -> None:
    _header_row(sheet, [name] + GROUP_COLUMNS)
    if not groups:
        _append(sheet, [f"no {name} column in the ratings"])
    for group, block in groups.items():
        two = _two_raters(block)
        wilson = block["wilson95"]
        if two:
            wilson_bounds = (UNDEFINED, UNDEFINED) if wilson is None else tuple(wilson)
            kappa, kappa_se = _value(block["cohen_kappa"]), _value(block["cohen_kappa_se"])
            kappa_bounds = _boot_bounds(block, "cohen_kappa")
        else:
            wilson_bounds, kappa, kappa_se, kappa_bounds = (NA, NA), NA, NA, (NA, NA)
        rates = block.get("judge_vs_experts")
        false_pass = NA if rates is None else _value(rates["false_pass_rate"])
        false_fail = NA if rates is None else _value(rates["false_fail_rate"])
        values = [group, block["n"], block["agree"], _value(block["percent"]), *wilson_bounds, kappa, kappa_se,
                  *kappa_bounds, _value(block["gwet_ac1"]), *_boot_bounds(block, "gwet_ac1"),
                  _value(block["krippendorff_alpha"]), *_boot_bounds(block, "krippendorff_alpha"),
                  false_pass, false_fail]
        formats = [None, "0", "0", _PERCENT_FORMAT, _PERCENT_FORMAT, _PERCENT_FORMAT] + [_COEF_FORMAT] * 10 \
            + [_RATE_FORMAT, _RATE_FORMAT]
        _append(sheet, values, formats)
    _autosize(sheet)


def _confusion_sheet(sheet, confusion: BlockView | None) -> None:
    from openpyxl.styles import Font

    if confusion is None:
        _put(sheet, 1, 1, "n/a: more than two raters and no judge").font = Font(bold=True)
        return
    labels, counts = confusion["labels"], confusion["counts"]
    bold = Font(bold=True)
    _put(sheet, 1, 1, f"rows: {confusion['rows']} \\ columns: {confusion['columns']}").font = bold
    for j, label in enumerate(labels):
        _put(sheet, 1, j + 2, label).font = bold
    _put(sheet, 1, len(labels) + 2, "total").font = bold
    for i, (label, row) in enumerate(zip(labels, counts, strict=False)):
        _put(sheet, i + 2, 1, label).font = bold
        for j, count in enumerate(row):
            _put(sheet, i + 2, j + 2, count)
        _put(sheet, i + 2, len(labels) + 2, sum(row))
    total_row = len(labels) + 2
    _put(sheet, total_row, 1, "total").font = bold
    for j, column in enumerate(zip(*counts, strict=False)):
        _put(sheet, total_row, j + 2, sum(column))
    _put(sheet, total_row, len(labels) + 2, sum(sum(r) for r in counts))
    _put(sheet, total_row + 2, 1, "Cells count rating pairs; with several experts each judge-expert pair counts once.")
    sheet.freeze_panes = "B2"
    _autosize(sheet, maximum=40)
    sheet.column_dimensions["A"].width = max(12, min(40, len(str(sheet.cell(1, 1).value)) + 2))


def _pairwise_sheet(sheet, block: BlockView) -> None:
    _header_row(sheet, ["rater A", "rater B", "n", "agree", "percent", "kappa", "AC1"])
    formats = [None, None, "0", "0", _PERCENT_FORMAT, _COEF_FORMAT, _COEF_FORMAT]
    for pair in block["pairwise"].values():
        _append(sheet, [pair["a"], pair["b"], pair["n"], pair["agree"], _value(pair["percent"]),
                        _value(pair["cohen_kappa"]), _value(pair["gwet_ac1"])], formats)
    for key, label in (("judge_expert", "mean judge-expert"), ("expert_expert", "mean expert-expert (ceiling)")):
        if key not in block:
            continue
        mean = block[key]
        if mean is None:
            _append(sheet, [label, "no such pairs", "", "", UNDEFINED, UNDEFINED, UNDEFINED])
        else:
            pairs = f"{mean['pairs']} pair{'s' if mean['pairs'] != 1 else ''}"
            _append(sheet, [label, pairs, "", "", _value(mean["percent"]),
                            _value(mean["cohen_kappa"]), _value(mean["gwet_ac1"])], formats)
    _autosize(sheet)


def _disagreement_sheet(sheet, report: AgreementReport) -> None:
    raters = report.raters
    _header_row(sheet, ["criterion", "item", "target", "dimension", "project"] + raters)
    rows = report.disagreements
    for entry in rows:
        ratings = cast("dict[str, str | None]", entry.get("ratings") or {})
        _append(sheet, [entry["criterion"], entry["item"], entry.get("target"), entry.get("dimension"),
                        entry.get("project")] + [ratings.get(r) for r in raters])
    if len(rows) >= MAX_DISAGREEMENTS:
        _append(sheet, [f"list stops at {MAX_DISAGREEMENTS} disagreements"])
    _autosize(sheet, maximum=40)
