"""The paper's benchmark figures from a report (studio/benchmark/report.py), as matplotlib figures
on an Agg canvas (no pyplot, like studio/judging/charts.py), saved as PNG and SVG:

- 5a: each system's mean final score, over its own known projects and over the shared set;
- 5b: each system's mean process score beside its mean final score, the delivery gap written on;
- 5c: every pair's process score against its final score, with the equal-score line;
- 5d: each system's resources per project: agent time (minutes) and tokens (studio/benchmark/resources.py);
- 5e / 5f: the final rubric's profile by dimension and by target, averaged over projects, a group no
  project of the system has marked "n/a" (never drawn at 0);
- 9: the grid of trajectories, projects down and systems across: each pair's checkpoint scores along
  the timeline, then its final score (a star), the 90 line of the pass rate dashed.

A pair whose score is unknown (verdicts missing) is never drawn as a number: it is left out and the
figure's note names how many were."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from studio.judging.charts import DPI, colour
from studio.scoring.engine import DIMENSIONS, FINAL_TARGETS

if TYPE_CHECKING:
    from studio.benchmark.report import BenchmarkReport

FIGURES = ("fig5a", "fig5b", "fig5c", "fig5d", "fig5e", "fig5f", "fig9")


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _axes(figure: Any, title: str, ylabel: str) -> Any:
    ax = figure.add_subplot()
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.set_ylim(0, 110)  # room for a 100 bar's label
    ax.grid(axis="y", color="0.9")
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=8)
    return ax


def _note(figure: Any, text: str) -> None:
    """A note under the figure, in the room the constrained layout keeps for it."""
    if text:
        figure.supxlabel(text, fontsize=7, color="0.35")


def _grouped(ax: Any, labels: list[str], series: list[tuple[str, list[float | None]]]) -> None:
    """Bars per label, one per series; a missing value is marked n/a at the axis, never drawn."""
    width = 0.8 / max(1, len(series))
    for number, (name, values) in enumerate(series):
        for x, value in enumerate(values):
            left = x - 0.4 + width * (number + 0.5)
            if value is None:
                ax.text(left, 1, "n/a", ha="center", va="bottom", fontsize=6.5, color="0.4", rotation=90)
                continue
            ax.bar(left, value, width * 0.92, color=colour(number), gid=f"{name}|{labels[x]}")
            ax.text(left, value + 1, f"{value:.1f}", ha="center", va="bottom", fontsize=6.5)
    ax.set_xticks(range(len(labels)), labels, rotation=20 if len(labels) > 4 else 0, ha="right" if len(labels) > 4
                  else "center")
    from matplotlib.patches import Patch

    handles = [Patch(color=colour(n), label=name) for n, (name, _) in enumerate(series)]
    ax.figure.legend(handles=handles, fontsize=7.5, frameon=False, loc="outside upper center", ncol=len(series))


def figure_5a(report: BenchmarkReport) -> Any:
    own, shared = report.scores.systems, report.shared.systems
    figure = _figure(6.4, 3.6)
    ax = _axes(figure, "Final score by system (mean over projects)", "final score")
    _grouped(ax, report.systems, [
        ("own known projects", [own[s].final_mean if s in own else None for s in report.systems]),
        (f"shared set ({len(report.shared.projects)} projects)",
         [shared[s].final_mean if s in shared else None for s in report.systems])])
    _note(figure, _left_out_note(report))
    return figure


def figure_5b(report: BenchmarkReport) -> Any:
    own = report.scores.systems
    figure = _figure(6.4, 3.6)
    ax = _axes(figure, "Process vs final score (the delivery gap)", "mean score")
    ax.set_ylim(0, 118)  # room for the gap above the bars' labels
    process = [own[s].process_mean if s in own else None for s in report.systems]
    final = [own[s].final_mean if s in own else None for s in report.systems]
    _grouped(ax, report.systems, [("process", process), ("final", final)])
    for x, system in enumerate(report.systems):
        gap = own[system].gap if system in own else None
        if gap is not None:
            top = max(v for v in (process[x], final[x]) if v is not None)
            ax.text(x, top + 7, f"gap {gap:+.1f}", ha="center", fontsize=7.5, color="0.15", weight="bold")
    _note(figure, _left_out_note(report))
    return figure


def figure_5c(report: BenchmarkReport) -> Any:
    figure = _figure(4.8, 4.4)
    ax = figure.add_subplot()
    ax.set_title("Every pair: process against final score", fontsize=10)
    ax.set_xlabel("process score", fontsize=9)
    ax.set_ylabel("final score", fontsize=9)
    ax.set_xlim(0, 102)
    ax.set_ylim(0, 102)
    ax.plot([0, 100], [0, 100], color="0.6", linewidth=0.8, linestyle="--", label="equal scores")
    unknown = 0
    for number, system in enumerate(report.systems):
        xs, ys = [], []
        for project in report.projects:
            scores = report.scores.projects.get(project, {}).get(system)
            if scores is None or scores.final is None or scores.process is None:
                unknown += 1
                continue
            xs.append(scores.process)
            ys.append(scores.final)
        ax.scatter(xs, ys, s=22, color=colour(number), label=system, zorder=3)
    ax.legend(fontsize=7.5, frameon=False, loc="upper left")
    ax.tick_params(labelsize=8)
    _note(figure, f"{unknown} pair(s) with an unknown score left out" if unknown else "")
    return figure


def figure_5d(report: BenchmarkReport) -> Any:
    figure = _figure(7.2, 3.4)
    resources = report.system_resources
    panels = (("agent time per project (minutes)", lambda r: None if r.agent_s_mean is None else r.agent_s_mean / 60),
              ("tokens per project (thousands)", lambda r: None if r.tokens_mean is None else r.tokens_mean / 1000))
    for number, (title, pick) in enumerate(panels, start=1):
        ax = figure.add_subplot(1, 2, number)
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", color="0.9")
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=8)
        values = [pick(resources[s]) for s in report.systems]
        top = max([v for v in values if v is not None] or [1.0])
        for x, (system, value) in enumerate(zip(report.systems, values, strict=True)):
            if value is None:
                ax.text(x, top * 0.02, "n/a", ha="center", va="bottom", fontsize=7, color="0.4")
                continue
            ax.bar(x, value, 0.7, color=colour(x), gid=f"{number}|{system}")
            ax.text(x, value + top * 0.02, f"{value:,.1f}", ha="center", va="bottom", fontsize=6.5)
        ax.set_ylim(0, top * 1.15)
        ax.set_xlim(-0.6, len(report.systems) - 0.4)  # every system's place, drawn or n/a
        ax.set_xticks(range(len(report.systems)), report.systems, rotation=20 if len(report.systems) > 4 else 0)
    unknown = {s: r.unknown_tokens for s, r in resources.items() if r.unknown_tokens}
    if unknown:
        _note(figure, "Tokens unknown (the harness reported no usage) for " + "; ".join(
            f"{s}: {', '.join(p)}" for s, p in unknown.items()))
    return figure


def _profile(report: BenchmarkReport, kind: str) -> Any:
    groups = list(DIMENSIONS if kind == "dimensions" else FINAL_TARGETS)
    own = report.scores.systems
    figure = _figure(6.4, 3.6)
    ax = _axes(figure, f"Final rubric by {kind[:-1]} (before gates, mean over projects)", "score")
    _grouped(ax, groups, [(system, [getattr(own[system], kind).get(g) if system in own else None for g in groups])
                          for system in report.systems])
    return figure


def figure_9(report: BenchmarkReport) -> Any:
    from studio.scoring.engine import PASS_THRESHOLD

    rows, columns = max(1, len(report.projects)), max(1, len(report.systems))
    figure = _figure(min(2.2 * columns + 0.8, 16), min(1.5 * rows + 0.8, 22))
    grid = figure.subplots(rows, columns, squeeze=False, sharey=True)
    for r, project in enumerate(report.projects):
        for c, system in enumerate(report.systems):
            ax = grid[r][c]
            ax.set_ylim(0, 105)
            ax.tick_params(labelsize=6)
            ax.axhline(PASS_THRESHOLD, color="0.75", linewidth=0.6, linestyle="--")
            if r == 0:
                ax.set_title(system, fontsize=8)
            if c == 0:
                ax.set_ylabel(project, fontsize=7)
            scores = report.scores.projects.get(project, {}).get(system)
            points = [] if scores is None else [(x, v) for x, v in enumerate(scores.checkpoints.values())
                                                if v is not None]
            if scores is None or (not points and scores.final is None):
                ax.text(0.5, 0.5, "no verdicts", transform=ax.transAxes, ha="center", fontsize=7, color="0.5")
                ax.set_xticks([])
                continue
            names = list(scores.checkpoints)
            if points:
                ax.plot([x for x, _ in points], [v for _, v in points], color=colour(c), linewidth=1, marker="o",
                        markersize=2.5, gid=f"{project}|{system}")
            if scores.final is not None:
                ax.plot([len(names)], [scores.final], color=colour(c), marker="*", markersize=7, linestyle="none",
                        gid=f"{project}|{system}|final")
            else:
                ax.text(len(names), 3, "unknown", ha="center", fontsize=5.5, color="0.4", rotation=90)
            ax.set_xticks(range(len(names) + 1), [*names, "final"], rotation=90, fontsize=5)
    figure.suptitle("Trajectories: checkpoint scores along the timeline, then the final score (★)", fontsize=9)
    return figure


def figure_5e(report: BenchmarkReport) -> Any:
    return _profile(report, "dimensions")


def figure_5f(report: BenchmarkReport) -> Any:
    return _profile(report, "targets")


def _left_out_note(report: BenchmarkReport) -> str:
    left = {p: s for p, s in report.shared.left_out.items()}
    if not left:
        return ""
    return "Shared set leaves out " + "; ".join(f"{p} ({', '.join(s)} unknown)" for p, s in left.items())


def rendered(figure: Any, form: str) -> bytes:
    """The figure as `form` ("png" or "svg") bytes."""
    buffer = io.BytesIO()
    options: dict[str, Any] = {"pil_kwargs": {"compress_level": 1}} if form == "png" else {"metadata": {"Date": None}}
    figure.savefig(buffer, format=form, dpi=DPI, **options)
    return buffer.getvalue()


_MAKERS = {"fig5a": figure_5a, "fig5b": figure_5b, "fig5c": figure_5c, "fig5d": figure_5d, "fig5e": figure_5e,
           "fig5f": figure_5f, "fig9": figure_9}


def one_figure(report: BenchmarkReport, name: str) -> Any:
    """The figure `name` (one of FIGURES) alone, as all_figures draws it."""
    return _MAKERS[name](report)


def all_figures(report: BenchmarkReport) -> dict[str, Any]:
    """Name -> figure, in FIGURES order."""
    return {name: one_figure(report, name) for name in FIGURES}
