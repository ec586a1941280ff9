"""Benchmark scores as the documented JSON and as a readable table."""

from __future__ import annotations

from studio.scoring.engine import BenchmarkScores


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def to_json(scores: BenchmarkScores) -> dict:
    projects = {
        project: {
            system: {
                "final": _r(s.final), "process": _r(s.process),
                "checkpoints": {t: _r(v) for t, v in s.checkpoints.items()},
                "gate_triggered": s.gate_triggered,
                "targets": {t: _r(v) for t, v in s.targets.items()},
                "dimensions": {d: _r(v) for d, v in s.dimensions.items()},
                "missing": s.missing,
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
        systems[system] = data
    return {"projects": projects, "systems": systems, "missing": scores.missing}


def _fmt(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if pct else f"{value:.2f}"


def to_text(scores: BenchmarkScores) -> str:
    lines = ["Systems (projects weighted equally)", ""]
    header = f"{'system':24} {'final':>7} {'process':>8} {'gap':>7} {'pass≥90':>8} {'projects':>8} {'missing':>7}"
    lines += [header, "-" * len(header)]
    for system, s in scores.systems.items():
        lines.append(f"{system[:24]:24} {_fmt(s.final_mean):>7} {_fmt(s.process_mean):>8} {_fmt(s.gap):>7} "
                     f"{_fmt(s.pass_rate_90, pct=True):>8} {s.projects:>8} {s.missing:>7}")
    lines += ["", "Projects", ""]
    header = f"{'project':20} {'system':24} {'final':>7} {'process':>8} {'gate':>5} {'missing':>7}"
    lines += [header, "-" * len(header)]
    for project, by_system in scores.projects.items():
        for system, one in by_system.items():
            lines.append(f"{project[:20]:20} {system[:24]:24} {_fmt(one.final):>7} {_fmt(one.process):>8} "
                         f"{'yes' if one.gate_triggered else 'no':>5} {one.missing:>7}")
    lines.append("")
    if scores.missing:
        lines.append(f"{scores.missing} verdict(s) missing: scores that depend on them are shown as —.")
    else:
        lines.append("No verdicts missing.")
    return "\n".join(lines)
