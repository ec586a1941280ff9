"""A figure of an agreement analysis: agreement by target and by dimension, as a PNG.

Drawn with matplotlib's object-oriented API on an Agg canvas. No pyplot is involved, so the
figure never changes matplotlib's global backend or figure registry: it is safe inside the Qt
app as well as on a headless server. Undefined coefficients are left out and named in the
caption — never drawn at 0.
"""

from __future__ import annotations

import io
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from studio.agreement.results import AgreementReport, BlockView
from studio.store.atomic import write_atomic

DPI = 150
PANELS = (("by_target", "target"), ("by_dimension", "dimension"))
WIDTH_IN, PANEL_HEIGHT_IN, LINE_IN = 13.0, 5.6, 0.19


@dataclass
class Series:
    label: str
    colour: str
    marker: str
    offset: float
    right: bool  # drawn on the coefficient axis
    values: list[float | None]
    intervals: list[list[float] | None]
    pooled: float | None


@dataclass
class Panel:
    name: str
    groups: list[str]
    sizes: list[int]
    series: list[Series] = field(default_factory=list)


def write_plot(report: AgreementReport, path: Path | str) -> None:
    """plot_png(report) saved as `path`, via a temporary file beside it."""
    write_atomic(Path(path), plot_png(report))


def plot_png(report: AgreementReport) -> bytes:
    """Two panels (by target, by dimension): percent agreement with its 95% interval on a
    0-100 axis, Gwet's AC1 and Cohen's kappa with bootstrap intervals on a second axis, the
    pooled values as dashed lines; the PNG's bytes (the app shows and exports these)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    panels = [_plan(report, report.groups(key), name) for key, name in PANELS]
    caption = _caption(report, panels)
    handles = [Line2D([], [], color=s.colour, marker=s.marker, linestyle="none", label=s.label)
               for s in panels[0].series]
    handles.append(Line2D([], [], color="0.35", linestyle="--", label="pooled value (same colour)"))
    width = sum(len(str(h.get_label())) + 8 for h in handles)
    columns = len(handles) if width <= 190 else (len(handles) + 1) // 2
    legend_rows = -(-len(handles) // columns)
    bottom_in = LINE_IN * (legend_rows + caption.count("\n") + 1) + 0.35

    figure = Figure(figsize=(WIDTH_IN, PANEL_HEIGHT_IN + bottom_in), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    top, bottom = figure.subfigures(2, 1, height_ratios=[PANEL_HEIGHT_IN, bottom_in])  # type: ignore[misc]
    top.suptitle(_title(report), fontsize=12)
    axes = top.subplots(1, 2)
    for ax, panel in zip(axes, panels, strict=False):
        _draw(ax, panel)
    bottom.legend(handles=handles, loc="upper center", ncol=columns, frameon=False, fontsize=9)
    bottom.text(0.5, 0.06, caption, ha="center", va="bottom", fontsize=8.5, color="0.25")

    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]  # the Agg canvas attached above
    for ax, panel in zip(axes, panels, strict=False):
        if panel.groups and _labels_overlap(ax, renderer):
            ax.set_xticklabels([f"{_short(g, 28)} (n={n})" for g, n in zip(panel.groups, panel.sizes, strict=False)],
                               rotation=30, ha="right", rotation_mode="anchor", fontsize=9)

    buffer = io.BytesIO()
    # zlib level 1: a chart is mostly flat colour, so a little larger and several times quicker to write
    figure.savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


# -- what to draw ---------------------------------------------------------------------------
def _multi(report: AgreementReport) -> bool:
    return len(report.raters) > 2


def _boot_interval(block: BlockView, name: str) -> list[float] | None:
    entry = (block.get("bootstrap95") or {}).get(name)
    return entry["interval"] if entry else None


def _headline(block: BlockView) -> float | None:
    """The percent agreement shown: pooled over decision pairs (a report from before it: the pair mean)."""
    return block.get("pooled_percent", block.get("percent"))


def _percent_interval(block: BlockView) -> list[float] | None:
    if block.get("raters") == 2:
        return block.get("wilson95")
    return _boot_interval(block, "pooled_percent" if "pooled_percent" in block else "percent")


def _kappa(block: BlockView) -> float | None:
    """Cohen's kappa of two raters; with more, the mean over judge-expert pairs."""
    if block.get("raters") == 2:
        return block.get("cohen_kappa")
    mean = block.get("judge_expert")
    return None if mean is None else mean.get("cohen_kappa")


def _kappa_drawn(report: AgreementReport) -> bool:
    return not _multi(report) or report.judge is not None


def _labels(report: AgreementReport) -> dict[str, str]:
    boot = ", bootstrap 95%" if report.bootstrap else ""
    percent_interval = ", Wilson 95%" if not _multi(report) else boot
    kappa = "Cohen's kappa (mean over judge-expert pairs)" if _multi(report) else "Cohen's kappa" + boot
    pooled = " (decision pairs pooled)" if _multi(report) else ""
    return {"percent": f"percent agreement{pooled}{percent_interval} (left axis)",
            "ac1": f"Gwet's AC1{boot} (right axis)", "kappa": f"{kappa} (right axis)"}


def _plan(report: AgreementReport, groups: BlockView, name: str) -> Panel:
    names = list(groups)
    blocks = [groups[g] for g in names]
    pooled = report.pooled
    labels = _labels(report)
    panel = Panel(name, names, [b["n"] for b in blocks])
    panel.series.append(Series(labels["percent"], "#1f77b4", "o", -0.22, False, [_headline(b) for b in blocks],
                               [_percent_interval(b) for b in blocks], _headline(pooled)))
    panel.series.append(Series(labels["ac1"], "#d62728", "s", 0.0, True, [b.get("gwet_ac1") for b in blocks],
                               [_boot_interval(b, "gwet_ac1") for b in blocks], pooled.get("gwet_ac1")))
    if _kappa_drawn(report):
        intervals = [None if _multi(report) else _boot_interval(b, "cohen_kappa") for b in blocks]
        panel.series.append(Series(labels["kappa"], "#2ca02c", "D", 0.22, True, [_kappa(b) for b in blocks],
                                   intervals, _kappa(pooled)))
    return panel


def _lowest_coefficient(panel: Panel) -> float:
    low = 0.0
    for s in panel.series:
        if not s.right:
            continue
        points = [v for v in s.values if v is not None] + [i[0] for i in s.intervals if i is not None]
        if s.pooled is not None:
            points.append(s.pooled)
        low = min([low, *points])
    return low


def _title(report: AgreementReport) -> str:
    judge = report.judge
    raters = ", ".join(f"{r} (judge)" if r == judge and r != "judge" else r for r in report.raters)
    line = textwrap.shorten(f"Agreement by target and dimension: {raters}", 110, placeholder=" ...")
    pooled = report.pooled
    stats = [f"pooled: agreement {_fmt_pct(_headline(pooled))}", f"AC1 {_fmt(pooled['gwet_ac1'])}"]
    if _kappa_drawn(report):
        stats.append(("mean judge-expert kappa " if _multi(report) else "kappa ") + _fmt(_kappa(pooled)))
    stats.append(f"{report.decisions} decisions on {report.items} item{'' if report.items == 1 else 's'}")
    return line + "\n" + "; ".join(stats)


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _fmt_pct(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.1f}%"


def _caption(report: AgreementReport, panels: list[Panel]) -> str:
    parts = []
    boot = report.bootstrap
    if boot:
        parts.append(f"Bootstrap intervals: {boot['resamples']} resamples of whole items, seed {boot['seed']}.")
    else:
        parts.append("No bootstrap: AC1 and kappa are drawn without intervals.")
    if _multi(report) and _kappa_drawn(report):
        parts.append("Kappa with more than two raters: the mean of the judge-expert pairs, without interval.")
    if not _kappa_drawn(report):
        parts.append("Cohen's kappa is not drawn: it compares two raters, and there is no judge.")
    omitted = []
    for panel in panels:
        for s in panel.series:
            missing = [g for g, v in zip(panel.groups, s.values, strict=False) if v is None]
            if missing:
                metric = s.label.split(" (")[0].split(",")[0]
                omitted.append(f"{metric} for {panel.name} {', '.join(missing)}")
    if omitted:
        parts.append("Not drawn, undefined: " + "; ".join(omitted) + ".")
    if any(_lowest_coefficient(p) < 0 for p in panels):
        parts.append("Dotted line: coefficient 0 (below it, agreement is worse than chance).")
    text = " ".join(parts)
    return "\n".join(textwrap.wrap(text, 190, break_on_hyphens=False)[:6])


# -- drawing --------------------------------------------------------------------------------
def _draw(ax, panel: Panel) -> None:
    ax.set_title(f"By {panel.name}", fontsize=11)
    percent_colour = panel.series[0].colour
    ax.set_ylabel("percent agreement (%)", color=percent_colour)
    ax.tick_params(axis="y", colors=percent_colour)
    ax.grid(axis="y", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    right = ax.twinx()
    right.set_ylabel("coefficient (AC1, kappa)")
    if not panel.groups:
        ax.set_xticks([])
        _align(ax, right, 0.0)
        ax.text(0.5, 0.5, f"no {panel.name} column in the ratings", transform=ax.transAxes, ha="center",
                va="center", color="0.4")
        return
    for s in panel.series:
        axis = right if s.right else ax
        for x, (value, interval) in enumerate(zip(s.values, s.intervals, strict=False)):
            if value is None:
                continue  # undefined: named in the caption, not drawn
            if interval is not None:
                axis.vlines(x + s.offset, interval[0], interval[1], color=s.colour, linewidth=1.6)
                axis.plot([x + s.offset] * 2, interval, linestyle="none", marker="_", markersize=8, color=s.colour)
            axis.plot(x + s.offset, value, linestyle="none", marker=s.marker, markersize=7, color=s.colour,
                      markeredgecolor="white", markeredgewidth=0.6, zorder=3)
        if s.pooled is not None:
            axis.axhline(s.pooled, color=s.colour, linestyle="--", linewidth=1, alpha=0.7)
    _align(ax, right, _lowest_coefficient(panel))
    ax.set_xticks(range(len(panel.groups)))
    ax.set_xticklabels([f"{_short(g, 40)}\n(n={n})" for g, n in zip(panel.groups, panel.sizes, strict=False)],
                       fontsize=9)
    ax.set_xlim(-0.6, len(panel.groups) - 0.4)


def _align(left, right, lowest: float) -> None:
    """Percent (left) and coefficients (right) on one scale: 100% level with 1.0, 0% with 0.
    A negative coefficient extends both axes below 0; the percent ticks stay 0-100."""
    low = 0.0 if lowest >= 0 else max(-1.05, math.floor((lowest - 0.05) * 10) / 10)
    top = 1.04
    left.set_ylim(100 * low, 100 * top)
    left.set_yticks(range(0, 101, 20))
    right.set_ylim(low, top)
    right.set_yticks([k / 5 for k in range(math.ceil(round(low * 5, 6)), 6)])
    if low < 0:
        right.axhline(0, color="0.55", linewidth=0.8, linestyle=":")


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _labels_overlap(ax, renderer) -> bool:
    """Whether neighbouring x tick labels touch (then they are shortened and turned)."""
    boxes = [label.get_window_extent(renderer) for label in ax.get_xticklabels() if label.get_text()]
    return any(a.x1 + 6 > b.x0 for a, b in zip(boxes, boxes[1:], strict=False))
