"""`dbstudio benchmark new`: a benchmark folder holding a `benchmark.yaml`, under git like a project
(a repository of its own unless the folder lies inside one). What can be checked is checked before
anything is written; a failure removes what this call created."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from studio.benchmark.loader import load_benchmark
from studio.benchmark.model import BENCHMARK_FILE, Benchmark
from studio.errors import StudioError
from studio.store import layout


class BenchmarkCreateError(StudioError):
    """The benchmark cannot be created as asked."""


def benchmark_yaml(benchmark: Benchmark) -> str:
    """The file's text: the keys in the order people read them, empty lists written out."""
    import io

    from ruamel.yaml import YAML

    data = benchmark.model_dump(mode="json", exclude_defaults=False)
    data.pop("format", None)
    ordered = {"format": benchmark.format, **{k: data[k] for k in ("id", "title", "projects", "judge", "systems",
                                                                     "outcomes")}}
    if ordered["judge"] is None:
        del ordered["judge"]
    out = io.StringIO()
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.dump(ordered, out)
    return out.getvalue()


def create_benchmark(folder: Path, benchmark_id: str, title: str, projects: Sequence[str] = ()) -> Path:
    """Write FOLDER/benchmark.yaml listing `projects` (paths, made relative to FOLDER) and commit it;
    the file's path."""
    from studio.store.history import HistoryError, ProjectRepository
    from studio.store.workspace import enclosing_repository_folder, first_missing

    folder = Path(folder)
    path = folder / BENCHMARK_FILE
    if folder.exists() and not folder.is_dir():
        raise BenchmarkCreateError(f"{folder} is a file: choose a folder for the benchmark")
    if path.exists():
        raise BenchmarkCreateError(f"{path} already exists: edit it, or choose a new folder")
    relative = []
    for given in projects:
        project = Path(given)
        if (why := layout.not_a_project(project)) is not None:
            raise BenchmarkCreateError(f"--project {given}: {why}")
        relative.append(Path(os.path.relpath(project.resolve(), folder.resolve())).as_posix())
    try:
        benchmark = Benchmark(id=benchmark_id, title=title, projects=relative)
    except ValueError as exc:
        raise BenchmarkCreateError(f"--id {benchmark_id!r}: not an id: use letters, digits, '.', '-' and '_', "
                                   f"starting with a letter or digit ({type(exc).__name__})") from None
    enclosing = enclosing_repository_folder(folder)
    created = first_missing(folder)
    made_repository = False
    try:
        if enclosing is not None:
            ProjectRepository(enclosing).require_committable()
        folder.mkdir(parents=True, exist_ok=True)
        if enclosing is None:
            made_repository = not (folder / ".git").exists()
            ProjectRepository.init(folder).require_committable(new_repository=True)
        from studio.store.atomic import write_atomic

        write_atomic(path, benchmark_yaml(benchmark).encode("utf-8"))
        loaded = load_benchmark(path)
        if loaded.errors:
            raise BenchmarkCreateError("; ".join(f.render() for f in loaded.errors))
        ProjectRepository(folder).commit(f"Create benchmark {benchmark_id}", [BENCHMARK_FILE])
    except BaseException as exc:
        # only what this call made: the folder holds the projects already, often
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
            if made_repository:
                shutil.rmtree(folder / ".git", ignore_errors=True)
        if isinstance(exc, HistoryError):
            raise BenchmarkCreateError(f"{folder}: the benchmark was not created: {exc}") from exc
        if isinstance(exc, OSError) and not isinstance(exc, StudioError):
            raise BenchmarkCreateError(f"{folder}: the benchmark was not created: {exc.strerror or exc}") from exc
        raise
    return path



