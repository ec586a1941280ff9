"""Benchmark scores as the documented JSON and as a readable table."""

from __future__ import annotations

from collections.abc import Mapping

from studio.scoring.engine import BenchmarkScores

# project -> system -> [(scope, criterion)] with no row in the table (see studio.scoring.against)
Absent = Mapping[str, Mapping[str, list[tuple[str, str]]]]
# Absent criteria named per system in the text report before "and N more".
LISTED_ABSENT = 8


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _range(bounds: tuple[float, float] | None) -> list[float | None] | None:
    return None if bounds is None else [_r(bounds[0]), _r(bounds[1])]


def to_json(scores: BenchmarkScores, absent: Absent | None = None) -> dict:
    projects = {
        project: {
            system: {
                "final": _r(s.final), "process": _r(s.process),
                "final_range": _range(s.final_range), "process_range": _range(s.process_range),
                "range_exact": s.range_exact,
                "checkpoints": {t: _r(v) for t, v in s.checkpoints.items()},
                "gate_triggered": s.gate_triggered,
                "targets": {t: _r(v) for t, v in s.targets.items()},
                "dimensions": {d: _r(v) for d, v in s.dimensions.items()},
                "missing": s.missing,
                **({"absent": [f"{scope}/{criterion}" for scope, criterion in absent[project][system]]}
                   if absent is not None and system in absent.get(project, {}) else {}),
            }
            for system, s in by_system.items()
        }
        for project, by_system in scores.projects.items()
    }
    systems = {}
    for system, summary in scores.systems.items():
        data = summary._asdict()
        for key in ("final_mean", "process_mean", "gap", "pass_rate_90"):
            data[key] = _r(data[key], 6 if key == "pass_rate_90" else 4)
        data["targets"] = {k: _r(v) for k, v in data["targets"].items()}
        data["dimensions"] = {k: _r(v) for k, v in data["dimensions"].items()}
        data["final_left_out"] = list(summary.final_left_out)
        data["process_left_out"] = list(summary.process_left_out)
        systems[system] = data
    return {"projects": projects, "systems": systems, "missing": scores.missing}


def _fmt(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if pct else f"{value:.2f}"


def _score(value: float | None, bounds: tuple[float, float] | None) -> str:
    """A known score with two decimals; an unknown one as its range, `38.9–41.2`."""
    if value is not None or bounds is None:
        return _fmt(value)
    return f"{bounds[0]:.1f}–{bounds[1]:.1f}"


def to_text(scores: BenchmarkScores, absent: Absent | None = None) -> str:
    lines = ["Systems (projects weighted equally; means over the projects whose score is known)", ""]
    header = f"{'system':24} {'final':>7} {'process':>8} {'gap':>7} {'pass≥90':>8} {'projects':>8} {'missing':>7}"
    lines += [header, "-" * len(header)]
    left_out: list[str] = []
    for system, s in scores.systems.items():
        lines.append(f"{system[:24]:24} {_fmt(s.final_mean):>7} {_fmt(s.process_mean):>8} {_fmt(s.gap):>7} "
                     f"{_fmt(s.pass_rate_90, pct=True):>8} {s.projects:>8} {s.missing:>7}")
        if s.final_left_out:
            left_out.append(f"  {system}: the final mean leaves out {', '.join(s.final_left_out)} (no known score)")
        if s.process_left_out:
            left_out.append(f"  {system}: the process mean and pass rate leave out {', '.join(s.process_left_out)} "
                            "(no known score)")
    if left_out:
        lines += ["", "Left out of the means:", *left_out]
    lines += ["", "Projects (an unknown score shows the range its missing verdicts allow)", ""]
    header = f"{'project':20} {'system':24} {'final':>11} {'process':>11} {'gate':>5} {'missing':>7}"
    lines += [header, "-" * len(header)]
    inexact = False
    for project, by_system in scores.projects.items():
        for system, one in by_system.items():
            inexact = inexact or not one.range_exact
            lines.append(f"{project[:20]:20} {system[:24]:24} {_score(one.final, one.final_range):>11} "
                         f"{_score(one.process, one.process_range):>11} "
                         f"{'yes' if one.gate_triggered else 'no':>5} {one.missing:>7}")
    lines.append("")
    if scores.missing:
        lines.append(f"{scores.missing} verdict(s) missing: a score they could change is shown as its range "
                     "(lowest–highest over every way to fill them in).")
    else:
        lines.append("No verdicts missing.")
    if inexact:
        lines.append("Some ranges are outer bounds (too many missing verdicts tied by `requires` to try every "
                     "combination): the score lies inside, but an end may not be reachable.")
    lines += _absent_lines(absent)
    return "\n".join(lines)


def _absent_lines(absent: Absent | None) -> list[str]:
    found = [(project, system, items) for project, by_system in (absent or {}).items()
             for system, items in by_system.items() if items]
    if not found:
        return []
    lines = ["", "Criteria of the project with no row in the table (counted as missing verdicts):"]
    for project, system, items in found:
        named = ", ".join(f"{scope}/{criterion}" for scope, criterion in items[:LISTED_ABSENT])
        more = f" and {len(items) - LISTED_ABSENT} more" if len(items) > LISTED_ABSENT else ""
        lines.append(f"  {project} {system}: {named}{more}")
    return lines
