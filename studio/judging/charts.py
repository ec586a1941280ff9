"""Charts of a project's scores as PNG bytes: the trajectory (each run's checkpoint scores along
the timeline and its final score, as in the paper's trajectory figures) and the profiles of the
final rubric by target and by dimension.

Drawn with matplotlib's object-oriented API on an Agg canvas, like studio/agreement/plot.py: no
pyplot, so no global backend or figure registry is touched, and a chart can be drawn on the app's
worker thread or on a headless server. The CLI (`dbstudio score --trajectory/--profile`), the app's
scores view and its PNG export all use these functions, so what is exported is what is shown.
An unknown score is drawn as its range (a bar from lowest to highest), a rubric without verdicts
not at all; neither is ever drawn at 0.
"""

from __future__ import annotations

import io
import textwrap
from typing import TYPE_CHECKING, Any

from studio.scoring.engine import DIMENSIONS, FINAL_TARGETS, PASS_THRESHOLD

if TYPE_CHECKING:
    from studio.judging.score_sheet import RunScores, ScopeScore, ScoreSheet

DPI = 150
# Colour-blind-safe, distinct in grey print (Okabe-Ito, then tab10 for more runs).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
           "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "h")
LEGEND_NAME = 48  # characters of a run's name in a legend
RUNS_DRAWN = 12
"""Up to this many runs each get a line (and bars) of their own. Beyond it a chart of one line per
run is unreadable (and takes matplotlib seconds per hundred runs): runs are drawn by system, each
system's median with the band from its lowest to its highest score, or, with more systems than
this too, as one median and band over every run. The table beside the chart lists every run."""


def colour(number: int) -> str:
    return COLOURS[number % len(COLOURS)]


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _split(width: float, plot_height: float, legend_rows: int, note: str) -> tuple[Any, Any, Any, str]:
    """A figure of two stacked subfigures: the plot, and below it the legend and a wrapped note,
    sized so that neither overlaps the other nor is cut."""
    wrapped = "\n".join(textwrap.wrap(note, int(width * 15), break_on_hyphens=False)[:4]) if note else ""
    bottom = 0.2 * legend_rows + (0.16 * (wrapped.count("\n") + 1) if wrapped else 0.0) + 0.25
    figure = _figure(width, plot_height + bottom)
    top, low = figure.subfigures(2, 1, height_ratios=[plot_height, bottom])
    return figure, top, low, wrapped


def _footer(low: Any, handles: list, columns: int, note: str) -> None:
    low.legend(handles=handles, loc="upper center", ncol=columns, frameon=False, fontsize=8.5)
    if note:
        low.text(0.5, 0.04, note, ha="center", va="bottom", fontsize=7.5, color="0.3")


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    # zlib level 1: a chart is mostly flat colour, so a little larger and several times quicker to write
    figure.savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def _short(text: str, width: int = LEGEND_NAME) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _subtitle(sheet: ScoreSheet) -> str:
    judge = sheet.judge or (sheet.judges[0] if len(sheet.judges) == 1 else "every judge, where they agree")
    runs = f"{len(sheet.runs)} run{'' if len(sheet.runs) == 1 else 's'}"
    return f"{runs}; verdicts: adjudicated, else agreeing experts, else {judge}"


# -- trajectory -----------------------------------------------------------------------------
def trajectory_png(sheet: ScoreSheet) -> bytes:
    """One line per run through its checkpoint scores in timeline order, and its final score
    apart on the right; 0-100 scale with the pass threshold (90) marked."""
    from matplotlib.lines import Line2D

    if len(sheet.runs) > RUNS_DRAWN:
        return _trajectory_bands(sheet)
    scopes = sheet.scopes
    final_x = len(scopes) + 0.6 if scopes else 0.0
    width = min(16.0, max(9.0, 2.4 + 0.62 * (len(scopes) + 2)))
    not_judged: list[str] = []
    handles = []
    plans = []
    for number, run in enumerate(sheet.runs):
        tint, marker = colour(number), MARKERS[number % len(MARKERS)]
        missing = [score.scope for score in run.checkpoints if not score.judged]
        if run.final is not None and not run.final.judged:
            missing.append("final")
        if missing:
            not_judged.append(f"{_short(run.system, 40)}: {', '.join(missing)}")
        label = f"{_short(run.system)}  (final {run.final.text() if run.final else 'n/a'}, " \
                f"process {run.process_text()})"
        handles.append(Line2D([], [], color=tint, marker=marker, linewidth=1.8, label=label))
        plans.append((run, tint, marker))
    handles.append(Line2D([], [], color="0.4", linewidth=5, alpha=0.3,
                          label="range of a score that missing verdicts leave open"))
    note = ("Not judged (no verdict yet, not drawn): " + "; ".join(not_judged) + ".") if not_judged else ""
    columns = 1 if max(len(str(h.get_label())) for h in handles) * 2 > width * 11 else 2
    figure, top, low, note = _split(width, 5.6, -(-len(handles) // columns), note)
    ax = top.subplots()
    top.suptitle(f"Score trajectory: {sheet.title}", fontsize=12)
    ax.set_title(_subtitle(sheet), fontsize=9, color="0.3")
    for run, tint, marker in plans:
        xs = list(range(len(scopes)))
        ys = [score.score if score.score is not None else float("nan") for score in run.checkpoints]
        ax.plot(xs, ys, color=tint, marker=marker, markersize=6, linewidth=1.8, markeredgecolor="white",
                markeredgewidth=0.6, zorder=3)
        for x, score in zip(xs, run.checkpoints, strict=True):
            _range_bar(ax, x, score, tint)
        if run.final is not None:
            if run.final.score is not None:
                ax.plot([final_x], [run.final.score], color=tint, marker="*", markersize=15, markeredgecolor="white",
                        markeredgewidth=0.6, linestyle="none", zorder=4)
            _range_bar(ax, final_x, run.final, tint)
    _trajectory_axes(ax, sheet, final_x)
    _footer(low, handles, columns, note)
    return _png(figure)


def _trajectory_axes(ax: Any, sheet: ScoreSheet, final_x: float) -> None:
    scopes = sheet.scopes
    ax.axhline(PASS_THRESHOLD, color="0.55", linestyle=":", linewidth=1)
    ax.text(-0.45, PASS_THRESHOLD + 1.2, f"pass threshold {PASS_THRESHOLD:.0f}", fontsize=8, color="0.4")
    ticks = list(range(len(scopes))) + ([final_x] if sheet.has_final else [])
    labels = list(scopes) + (["Final"] if sheet.has_final else [])
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=9, rotation=0 if len(scopes) <= 14 else 45)
    if sheet.has_final and scopes:
        ax.axvline(len(scopes) - 0.2, color="0.75", linewidth=1, linestyle="--")
    ax.set_xlim(-0.6, (final_x if sheet.has_final else len(scopes) - 1) + 0.6)
    ax.set_ylim(-3, 104)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("score (0–100)")
    ax.set_xlabel("checkpoint, in timeline order" + ("; final delivery on the right (★)" if sheet.has_final else ""))
    ax.grid(axis="y", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# -- many runs: by system, as a median and its band -------------------------------------------
def band_groups(sheet: ScoreSheet) -> list[tuple[str, list[RunScores]]]:
    """The runs as the charts draw them beyond RUNS_DRAWN: by system (in the sheet's order), or
    all together when there are more systems than that too."""
    by_system: dict[str, list[RunScores]] = {}
    for run in sheet.runs:
        by_system.setdefault(run.system, []).append(run)
    if len(by_system) > RUNS_DRAWN:
        return [(f"all runs ({len(by_system)} systems)", list(sheet.runs))]
    return list(by_system.items())


def _spread(values: list[float]) -> tuple[float, float, float] | None:
    """(median, lowest, highest) of the known scores, or None without any."""
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return median, ordered[0], ordered[-1]


def _band_note(sheet: ScoreSheet, what: str, band: str) -> str:
    return (f"{len(sheet.runs)} runs, more than {RUNS_DRAWN}: each {what} is the median of its runs' known scores "
            f"(a score that missing verdicts leave open is left out), with a {band} from the lowest to the highest. "
            "The table lists every run.")


def _trajectory_bands(sheet: ScoreSheet) -> bytes:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    scopes = sheet.scopes
    final_x = len(scopes) + 0.6 if scopes else 0.0
    width = min(16.0, max(9.0, 2.4 + 0.62 * (len(scopes) + 2)))
    groups = band_groups(sheet)
    handles: list[Any] = []
    series = []
    for number, (name, runs) in enumerate(groups):
        tint, marker = colour(number), MARKERS[number % len(MARKERS)]
        points = [_spread([score for run in runs if (score := run.checkpoints[x].score) is not None])
                  for x in range(len(scopes))]
        final = _spread([run.final.score for run in runs if run.final is not None and run.final.score is not None])
        final_text = f"final median {final[0]:.1f}" if final else "final n/a"
        handles.append(Line2D([], [], color=tint, marker=marker, linewidth=1.8,
                              label=f"{_short(name)}  ({len(runs)} runs; {final_text})"))
        series.append((points, final, tint, marker))
    handles.append(Patch(color="0.4", alpha=0.18, label="band: the lowest to the highest known score"))
    columns = 1 if max(len(str(h.get_label())) for h in handles) * 2 > width * 11 else 2
    figure, top, low, note = _split(width, 5.6, -(-len(handles) // columns), _band_note(sheet, "line", "band"))
    ax = top.subplots()
    top.suptitle(f"Score trajectory: {sheet.title}", fontsize=12)
    ax.set_title(_subtitle(sheet), fontsize=9, color="0.3")
    for points, final, tint, marker in series:
        xs = [x for x, point in enumerate(points) if point is not None]
        known = [point for point in points if point is not None]
        if known:
            ax.fill_between(xs, [p[1] for p in known], [p[2] for p in known], color=tint, alpha=0.18, linewidth=0,
                            zorder=2)
            ax.plot(xs, [p[0] for p in known], color=tint, marker=marker, markersize=6, linewidth=1.8,
                    markeredgecolor="white", markeredgewidth=0.6, zorder=3)
        if final is not None:
            ax.vlines(final_x, final[1], final[2], color=tint, linewidth=5, alpha=0.3, zorder=2)
            ax.plot([final_x], [final[0]], color=tint, marker="*", markersize=15, markeredgecolor="white",
                    markeredgewidth=0.6, linestyle="none", zorder=4)
    _trajectory_axes(ax, sheet, final_x)
    _footer(low, handles, columns, note)
    return _png(figure)


def _profile_bands(sheet: ScoreSheet) -> bytes:
    from matplotlib.patches import Patch

    groups = band_groups(sheet)
    handles = [Patch(color=colour(n), label=f"{_short(name)}  ({len(runs)} runs)")
               for n, (name, runs) in enumerate(groups)]
    columns = min(3, max(1, len(handles)))
    note = _subtitle(sheet) + ". " + _band_note(sheet, "bar", "line")
    figure, top, low, note = _split(13.0, 5.4, -(-len(handles) // columns), note)
    top.suptitle(f"Final-delivery profiles: {sheet.title}", fontsize=12)
    axes = top.subplots(1, 2, gridspec_kw={"width_ratios": [len(FINAL_TARGETS) + 1, len(DIMENSIONS) + 1]})
    panels = (("target", list(FINAL_TARGETS), sheet.available_targets, lambda run: run.targets),
              ("dimension", list(DIMENSIONS), sheet.available_dimensions, lambda run: run.dimensions))
    count = max(1, len(groups))
    width = 0.8 / count
    for ax, (name, names, available, of) in zip(axes, panels, strict=True):
        for number, (_, runs) in enumerate(groups):
            drawn = []
            for g, group in enumerate(names):
                spread = _spread([value for run in runs if (value := of(run).get(group)) is not None])
                if spread is not None:
                    drawn.append((g + (number - (count - 1) / 2) * width, spread))
            if drawn:
                ax.bar([x for x, _ in drawn], [m for _, (m, _, _) in drawn], width=width * 0.92,
                       color=colour(number), zorder=3,
                       yerr=[[m - lo for _, (m, lo, _) in drawn], [hi - m for _, (m, _, hi) in drawn]],
                       error_kw={"elinewidth": 1, "capsize": 2, "ecolor": "0.3"})
        _bar_axes(ax, name, names, available)
    _footer(low, handles, columns, note)
    return _png(figure)


def _range_bar(ax: Any, x: float, score: ScopeScore, tint: str) -> None:
    """An unknown score as the bar of its range; nothing for a known score or a rubric not judged."""
    if score.score is not None or not score.judged or score.low is None or score.high is None:
        return
    ax.vlines(x, score.low, score.high, color=tint, linewidth=5, alpha=0.3, zorder=2)
    ax.plot([x, x], [score.low, score.high], linestyle="none", marker="_", markersize=9, color=tint, zorder=2)


# -- profiles -------------------------------------------------------------------------------
def profile_png(sheet: ScoreSheet) -> bytes:
    """Grouped bars: per run, the final rubric's score by target and by dimension (each group's
    signed credit over its positive weight, ×100, before gates). A group without a score gets no
    bar: one the project's final rubric gives no positive weight is marked unavailable under its
    name; one where a missing verdict leaves the score open is named in the note."""
    from matplotlib.patches import Patch

    if len(sheet.runs) > RUNS_DRAWN:
        return _profile_bands(sheet)
    runs = sheet.runs
    unknown: list[str] = []
    panels_data = (("target", FINAL_TARGETS, sheet.available_targets, [run.targets for run in runs]),
                   ("dimension", DIMENSIONS, sheet.available_dimensions, [run.dimensions for run in runs]))
    for name, groups, available, values in panels_data:
        for run, by_group in zip(runs, values, strict=True):
            open_ = [g for g in groups if g in available and by_group.get(g) is None]
            if open_ and run.final is not None and run.final.judged:
                unknown.append(f"{_short(run.system, 40)} {name} {', '.join(open_)}")
    notes = [_subtitle(sheet) + "."]
    not_judged = [_short(run.system, 40) for run in runs if run.final is None or not run.final.judged]
    if not_judged:
        notes.append("No final verdicts yet (no bars): " + "; ".join(not_judged) + ".")
    if unknown:
        notes.append("No bar where a missing verdict leaves the group's score open: " + "; ".join(unknown) + ".")
    handles = [Patch(color=colour(n), label=_short(run.system)) for n, run in enumerate(runs)]
    columns = min(3, max(1, len(handles)))
    figure, top, low, note = _split(13.0, 5.4, -(-len(handles) // columns), " ".join(notes))
    top.suptitle(f"Final-delivery profiles: {sheet.title}", fontsize=12)
    axes = top.subplots(1, 2, gridspec_kw={"width_ratios": [len(FINAL_TARGETS) + 1, len(DIMENSIONS) + 1]})
    for ax, (name, groups, available, values) in zip(axes, panels_data, strict=True):
        _bars(ax, name, list(groups), available, values, runs)
    _footer(low, handles, columns, note)
    return _png(figure)


def _bars(ax: Any, name: str, groups: list[str], available: list[str], values: list[dict[str, float | None]],
          runs: list[RunScores]) -> None:
    count = max(1, len(runs))
    width = 0.8 / count
    for number, by_group in enumerate(values):
        xs = [g + (number - (count - 1) / 2) * width for g in range(len(groups))]
        drawn = [(x, by_group.get(group)) for x, group in zip(xs, groups, strict=True)
                 if by_group.get(group) is not None]
        if drawn:
            bars = ax.bar([x for x, _ in drawn], [h for _, h in drawn], width=width * 0.92, color=colour(number),
                          zorder=3)
            if count * len(groups) <= 24:
                ax.bar_label(bars, labels=[f"{h:.0f}" for _, h in drawn], fontsize=7, padding=1.5, color="0.25")
    _bar_axes(ax, name, groups, available)


def _bar_axes(ax: Any, name: str, groups: list[str], available: list[str]) -> None:
    ax.set_title(f"By {name}", fontsize=11)
    ax.set_xticks(range(len(groups)))
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticklabels([g if g in available else f"{g}\n(unavailable)" for g in groups], fontsize=9)
    ax.set_ylim(0, 108)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("score (0–100)")
    ax.grid(axis="y", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
