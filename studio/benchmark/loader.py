"""Read a `benchmark.yaml` and check it against its projects, every problem located
(file:line:column) with the fix, never raised: `load_benchmark(path).findings`.

The checks beyond the schema: each project folder is a project, given once, with an id of its own;
system ids are unique; every outcome names a known system and project, once; a pair with several
outcomes reports exactly one (the others `selected: false`, each with its reason)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from studio.benchmark.model import BENCHMARK_FILE, Benchmark, Outcome
from studio.errors import StudioError
from studio.store import fastyaml, layout
from studio.store.schema_messages import clean_loc, describe
from studio.store.yamlfile import YamlSyntaxError
from studio.validation.findings import Finding, Severity


class NotABenchmarkError(StudioError):
    """The path is neither a benchmark.yaml nor a folder holding one."""


@dataclass
class BenchmarkProject:
    folder: Path  # resolved
    written: str  # as benchmark.yaml gives it
    project_id: str | None  # None when its project.yaml gives none


@dataclass
class LoadedBenchmark:
    path: Path  # the benchmark.yaml
    benchmark: Benchmark | None
    projects: dict[str, BenchmarkProject] = field(default_factory=dict)  # project id -> its folder
    findings: list[Finding] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]

    def reported(self) -> dict[tuple[str, str], Outcome]:
        """(system, project) -> the outcome reported for the pair."""
        if self.benchmark is None:
            return {}
        return {(o.system, o.project): o for o in self.benchmark.outcomes if o.selected}

    def attempts(self, system: str, project: str) -> list[Outcome]:
        if self.benchmark is None:
            return []
        return [o for o in self.benchmark.outcomes if (o.system, o.project) == (system, project)]


def benchmark_file(path: Path | str) -> Path:
    """`path` itself when it is a file, else the benchmark.yaml inside it; NotABenchmarkError saying
    what to give otherwise."""
    path = Path(path)
    if path.is_dir():
        path = path / BENCHMARK_FILE
    if not path.is_file():
        raise NotABenchmarkError(f"{path}: no such file (give a {BENCHMARK_FILE}, or the folder holding one; "
                                 "`dbstudio benchmark new FOLDER` creates one)")
    return path


def load_benchmark(path: Path | str) -> LoadedBenchmark:
    """The benchmark at `path` (a file or its folder) with every problem found; raises only
    NotABenchmarkError when there is no file at all."""
    path = benchmark_file(path).resolve()
    loaded = LoadedBenchmark(path, None)
    name = path.name
    try:
        document, data = fastyaml.load(path)
    except YamlSyntaxError as exc:
        loaded.findings.append(Finding(name, exc.line or 1, exc.column or 1, exc.message, exc.code))
        return loaded
    except (OSError, UnicodeDecodeError) as exc:
        loaded.findings.append(Finding(name, 1, 1, f"cannot read the file ({exc}): check its permissions",
                                       "unreadable"))
        return loaded

    def problem(loc: tuple[str | int, ...], message: str, code: str = "benchmark",
                severity: Severity = Severity.ERROR) -> None:
        line, column = document.locate(loc)
        loaded.findings.append(Finding(name, line, column, message, code, severity))

    if not isinstance(data, dict):
        problem((), "the file must hold a mapping: id, title, projects, systems, outcomes "
                    "(docs/benchmark.md shows one)", "schema")
        return loaded
    try:
        benchmark = Benchmark.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            message, _ = describe(error, data)
            problem(clean_loc(error["loc"]), message, "schema")
        return loaded
    loaded.benchmark = benchmark
    _check_projects(loaded, problem)
    _check_systems(benchmark, problem)
    _check_outcomes(loaded, problem)
    loaded.findings.sort(key=lambda f: (f.line, f.column))
    return loaded


def _check_projects(loaded: LoadedBenchmark, problem) -> None:
    assert loaded.benchmark is not None
    seen: dict[Path, int] = {}
    for index, written in enumerate(loaded.benchmark.projects):
        folder = (loaded.root / written).resolve()
        where = ("projects", index)
        if folder in seen:
            problem(where, f"project {written} is listed twice (also item {seen[folder] + 1}): list each project once")
            continue
        seen[folder] = index
        why = layout.not_a_project(folder)
        if why is not None:
            problem(where, f"project {written}: {why}")
            continue
        project_id = _project_id(folder)
        if project_id is None:
            problem(where, f"project {written}: its {layout.PROJECT_FILE} gives no id: `dbstudio validate {folder}` "
                           "says what to fix")
            continue
        if project_id in loaded.projects:
            other = loaded.projects[project_id].written
            problem(where, f"projects {other} and {written} are both project '{project_id}': give each project an id "
                           f"of its own (the id in its {layout.PROJECT_FILE})")
            continue
        loaded.projects[project_id] = BenchmarkProject(folder, written, project_id)


def _project_id(folder: Path) -> str | None:
    try:
        _, data = fastyaml.load(folder / layout.PROJECT_FILE)
    except (YamlSyntaxError, OSError, UnicodeDecodeError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


def _check_systems(benchmark: Benchmark, problem) -> None:
    first: dict[str, int] = {}
    for index, system in enumerate(benchmark.systems):
        if system.id in first:
            problem(("systems", index, "id"), f"system id '{system.id}' is used twice (also systems item "
                                              f"{first[system.id] + 1}): give each system an id of its own")
        else:
            first[system.id] = index


def _check_outcomes(loaded: LoadedBenchmark, problem) -> None:
    benchmark = loaded.benchmark
    assert benchmark is not None
    systems = {s.id for s in benchmark.systems}
    pairs: dict[tuple[str, str], list[int]] = defaultdict(list)
    seen: dict[tuple[str, str, str], int] = {}
    for index, outcome in enumerate(benchmark.outcomes):
        if outcome.system not in systems:
            problem(("outcomes", index, "system"), f"no system '{outcome.system}' (systems: "
                                                   f"{', '.join(sorted(systems)) or 'none yet'}): add it under systems "
                                                   "or correct the id")
        if outcome.project not in loaded.projects:
            problem(("outcomes", index, "project"), f"no project '{outcome.project}' among the projects (ids: "
                                                    f"{', '.join(sorted(loaded.projects)) or 'none'}): give the id in "
                                                    f"the project's {layout.PROJECT_FILE}")
        key = (outcome.system, outcome.project, outcome.submission)
        if key in seen:
            problem(("outcomes", index), f"{outcome.system} on {outcome.project}: submission {outcome.submission} is "
                                         f"listed twice (also outcomes item {seen[key] + 1}): list each attempt once")
            continue
        seen[key] = index
        pairs[(outcome.system, outcome.project)].append(index)
        if not outcome.selected and not (outcome.reason or "").strip():
            problem(("outcomes", index, "selected"), f"{outcome.system} on {outcome.project}: attempt "
                                                     f"{outcome.submission} is not selected but gives no reason: say "
                                                     "why (reason: ...), so the report can name it")
        if outcome.selected and outcome.reason:
            problem(("outcomes", index, "reason"), f"{outcome.system} on {outcome.project}: the reported attempt "
                                                   f"{outcome.submission} has a reason; a reason goes with "
                                                   "`selected: false`", severity=Severity.WARNING)
    for (system, project), indexes in pairs.items():
        chosen = [i for i in indexes if benchmark.outcomes[i].selected]
        if len(chosen) > 1:
            problem(("outcomes", chosen[1]), f"{system} on {project} has {len(chosen)} reported outcomes ("
                                             + ", ".join(benchmark.outcomes[i].submission for i in chosen)
                                             + "): report one, mark the others `selected: false` with a reason")
        elif not chosen:
            problem(("outcomes", indexes[0]), f"{system} on {project}: every attempt is `selected: false`: mark the "
                                              "one to report `selected: true` (or remove its line)")
