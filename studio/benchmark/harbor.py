"""`dbstudio benchmark export|import harbor`: a whole benchmark as ONE Harbor job (every project a
task, every system an agent with its model), and that job's trials back into each project's runs
and benchmark.yaml's outcomes.

Harbor's trial names its agent and model, not our system; the export writes which agent and model
is which system into OUT/systems.yaml (Harbor never reads it), and the import maps each trial back
through it. Two systems Harbor would run alike (same agent, same model) cannot be told apart there,
so the export refuses them. The per-project work is `export harbor`'s and `import harbor`'s own.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from studio.benchmark.loader import LoadedBenchmark
from studio.benchmark.model import System
from studio.errors import StudioError
from studio.runs.harbor_export import HarborSettings, export_harbor, publish_staged, stop_on_agent_failure
from studio.runs.harbor_format import JOB_CONFIG, task_name
from studio.runs.harbor_import import HarborImport, TrialOutcome, import_harbor
from studio.runs.harbor_job import TrialResult, job_id, read_trials
from studio.runs.record import RunSystem

SYSTEMS_FILE = "systems.yaml"  # in OUT, beside job.yaml: Harbor agent + model -> benchmark system
# Our harness presets (studio/runs/harness.py) and the Harbor agent that runs the same CLI; each
# of these supports Harbor's resume_trajectory, which the steps need (one session across them).
HARBOR_AGENTS = {"claude-code": "claude-code", "codex": "codex", "gemini": "gemini-cli", "qwen": "qwen-coder",
                 "kimi": "kimi-cli"}
AGENT_SETTING = "harbor_agent"  # a system's own Harbor agent: a name, or an import path module:Class
MODEL_SETTING = "harbor_model"  # the model as Harbor's agent wants it, when not the system's `model`


class BenchmarkHarborError(StudioError):
    """The benchmark cannot be exported as a Harbor job, or a job cannot be read back into it."""


@dataclass(frozen=True)
class HarborAgent:
    """What a system is in Harbor's job config: a named agent or an import path, and a model."""

    system: str
    name: str | None
    import_path: str | None
    model: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.name or self.import_path or "", self.model)

    def job_entry(self, resume_trajectory: bool = True) -> dict[str, object]:
        """`resume_trajectory`: one continuous agent session across the steps, as in a local run (an
        agent without resume support needs it off)."""
        entry: dict[str, object] = {"name": self.name} if self.name else {"import_path": self.import_path}
        entry["model_name"] = self.model
        entry["resume_trajectory"] = resume_trajectory
        return entry


def harbor_agent(system: System) -> HarborAgent:
    """The system's Harbor agent; BenchmarkHarborError naming the system and the fix when it has none."""
    own = system.settings.get(AGENT_SETTING)
    model = system.settings.get(MODEL_SETTING) or system.model
    if own is not None:
        if not isinstance(own, str) or not own.strip():
            raise BenchmarkHarborError(f"system {system.id}: settings {AGENT_SETTING} must be a Harbor agent name "
                                       "(e.g. claude-code) or an import path module.path:Class")
        own = own.strip()
        return HarborAgent(system.id, None if ":" in own else own, own if ":" in own else None, str(model))
    name = HARBOR_AGENTS.get(system.harness)
    if name is None:
        raise BenchmarkHarborError(
            f"system {system.id}: its harness {system.harness} has no Harbor agent (Harbor runs "
            f"{', '.join(sorted(HARBOR_AGENTS))} as {', '.join(HARBOR_AGENTS[h] for h in sorted(HARBOR_AGENTS))}): "
            f"give it `{AGENT_SETTING}: NAME` (a Harbor agent) or `{AGENT_SETTING}: module.path:Class` (your own "
            "agent class) in its settings in benchmark.yaml")
    return HarborAgent(system.id, name, None, str(model))


def benchmark_agents(loaded: LoadedBenchmark) -> list[HarborAgent]:
    """Every system's Harbor agent, two systems never alike; every system that has none is named."""
    benchmark = loaded.benchmark
    assert benchmark is not None
    agents, refused = [], []
    for system in benchmark.systems:
        try:
            agents.append(harbor_agent(system))
        except BenchmarkHarborError as exc:
            refused.append(str(exc))
    if refused:
        raise BenchmarkHarborError("; ".join(refused))
    first: dict[tuple[str, str], str] = {}
    for agent in agents:
        other = first.setdefault(agent.key, agent.system)
        if other != agent.system:
            raise BenchmarkHarborError(
                f"systems {other} and {agent.system} are both Harbor agent {agent.key[0]} with model {agent.key[1]}: "
                "a Harbor trial could not be told apart; give one of them another model or "
                f"`{MODEL_SETTING}` in its settings, or export them in separate benchmarks")
    return agents


@dataclass(frozen=True)
class BenchmarkHarborExport:
    out: Path
    job_config: Path
    systems_file: Path
    tasks: dict[str, Path]  # project id -> its task folder
    agents: list[HarborAgent]
    files: int


JOB_COMMENT = """\
# Harbor job for the benchmark {benchmark}: {projects} tasks (one per project) x {agents} agents (one per
# system), written by `dbstudio benchmark export harbor`. Its paths are absolute, so it runs from any folder
# (export again after moving this one):
#   harbor run -c {job}            (add -n 8 for 8 trials at a time)
# Each agent's API key comes from your environment (e.g. ANTHROPIC_API_KEY for claude-code). Then:
#   dbstudio benchmark import harbor {bench} jobs/<job name>
"""


def export_benchmark_harbor(loaded: LoadedBenchmark, out: Path,
                            settings: HarborSettings | None = None) -> BenchmarkHarborExport:
    """Every project's task under `out/<project id>/`, `out/job.yaml` running each under every
    system's agent, and `out/systems.yaml`; `out` must be new or empty and outside every project.
    Written beside `out` first, so a refusal leaves nothing half-made."""
    settings = settings or HarborSettings()
    benchmark = loaded.benchmark
    if benchmark is None or loaded.errors:
        first = loaded.errors[0] if loaded.errors else None
        where = f": {loaded.root / first.file}:{first.line}:{first.column}: {first.message}" if first else ""
        raise BenchmarkHarborError(f"{loaded.path} has {len(loaded.errors)} problem(s){where}; fix them first "
                                   "(`dbstudio benchmark validate`)")
    if not loaded.projects or not benchmark.systems:
        raise BenchmarkHarborError(f"{loaded.path} has {len(loaded.projects)} project(s) and "
                                   f"{len(benchmark.systems)} system(s): a job needs at least one of each")
    agents = benchmark_agents(loaded)
    out = Path(out).resolve()
    for project_id, project in loaded.projects.items():
        if out == project.folder or project.folder in out.parents:
            raise BenchmarkHarborError(f"{out} is inside the project folder {project.folder} ({project_id}): give a "
                                       f"folder outside every project, e.g. {loaded.root.parent / (benchmark.id + '-harbor')}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BenchmarkHarborError(f"{out} already exists and is not an empty folder: give a new folder for the export")
    staging = out.parent / f".{out.name}.export-{secrets.token_hex(3)}"
    try:
        staging.mkdir(parents=True)
        for project_id, project in loaded.projects.items():
            # export_harbor's own checks and leak refusal, one project at a time; its one-agent job is dropped
            single = export_harbor(project.folder, staging / ".single" / project_id, settings)
            os.replace(single.task_dir, staging / project_id)
        shutil.rmtree(staging / ".single")
        _write_job(staging / JOB_CONFIG, out, loaded, agents, settings)
        _write_systems(staging / SYSTEMS_FILE, loaded, agents)
        files = publish_staged(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BenchmarkHarborExport(out, out / JOB_CONFIG, out / SYSTEMS_FILE,
                                 {project_id: out / project_id for project_id in loaded.projects}, agents, files)


def _write_job(path: Path, out: Path, loaded: LoadedBenchmark, agents: list[HarborAgent],
               settings: HarborSettings) -> None:
    """The job file at `path`, naming the folders as they will be at `out`: Harbor reads a job's paths
    from the folder it runs in, so they are absolute (the job runs from any folder)."""
    assert loaded.benchmark is not None
    projects = list(loaded.projects)
    config = {
        "jobs_dir": str(out / "jobs"),
        "n_attempts": settings.attempts,
        "override_error_policy": stop_on_agent_failure(),  # a failed step stops the trial, as in a project's job
        "environment": {"type": settings.environment, "delete": True},
        "agents": [agent.job_entry(settings.resume_trajectory) for agent in agents],
        "tasks": [{"path": str(out / project_id)} for project_id in projects],
    }
    text = JOB_COMMENT.format(benchmark=loaded.benchmark.id, projects=len(projects), agents=len(agents), job=JOB_CONFIG,
                              bench=loaded.path)
    path.write_text(text + yaml.safe_dump(config, sort_keys=False), encoding="utf-8", newline="\n")


def _write_systems(path: Path, loaded: LoadedBenchmark, agents: list[HarborAgent]) -> None:
    assert loaded.benchmark is not None
    record = {
        "benchmark": loaded.benchmark.id,
        "benchmark_file": str(loaded.path),
        "systems": [{"system": a.system, "agent": a.name, "import_path": a.import_path, "model": a.model}
                    for a in agents],
        "tasks": {project_id: task_name(project_id) for project_id in loaded.projects},
    }
    text = ("# Which Harbor agent and model is which system of the benchmark, written by `dbstudio benchmark export "
            "harbor`\n# for `dbstudio benchmark import harbor`; Harbor does not read it.\n")
    path.write_text(text + yaml.safe_dump(record, sort_keys=False), encoding="utf-8", newline="\n")


@dataclass
class BenchmarkHarborImport:
    job_id: str
    job_dir: Path
    projects: dict[str, HarborImport] = field(default_factory=dict)  # project id -> its import
    other: list[TrialOutcome] = field(default_factory=list)  # trials not finished, or of no task of the benchmark
    outcomes: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # added: system, project, run, reason
    removed: list[tuple[str, str, str]] = field(default_factory=list)  # system, project, run of a replaced trial

    @property
    def trials(self) -> list[tuple[str | None, TrialOutcome]]:
        """Every trial of the job, with its project (None: no project of the benchmark)."""
        listed: list[tuple[str | None, TrialOutcome]] = []
        for project_id, report in self.projects.items():
            listed += [(project_id, t) for t in report.trials if t.action not in ("other task", "not finished")]
        return listed + [(None, t) for t in self.other]

    @property
    def problems(self) -> list[TrialOutcome]:
        """The trials left out that the job's owner must look at (not those still running)."""
        return [t for _, t in self.trials if t.action in ("unknown system", "other task", "duplicate")]


def _agent_map(loaded: LoadedBenchmark, job_dir: Path) -> tuple[dict[tuple[str, str], str], str]:
    """(Harbor agent, model) -> system id, and where the map came from: the export's systems.yaml
    beside the job's jobs folder, else benchmark.yaml's systems as the export would write them."""
    record = job_dir.parent.parent / SYSTEMS_FILE
    if record.is_file():
        try:
            data = yaml.safe_load(record.read_text(encoding="utf-8"))
            return {(str(e.get("agent") or e.get("import_path") or ""), str(e["model"])): str(e["system"])
                    for e in data["systems"]}, str(record)
        except (OSError, UnicodeDecodeError, yaml.YAMLError, KeyError, TypeError, AttributeError) as exc:
            raise BenchmarkHarborError(f"{record}: not the systems list `benchmark export harbor` writes ({exc}): "
                                       "export the benchmark again, or remove the file to map trials by "
                                       "benchmark.yaml's systems") from None
    assert loaded.benchmark is not None
    found: dict[tuple[str, str], str] = {}
    for system in loaded.benchmark.systems:
        try:
            agent = harbor_agent(system)
        except BenchmarkHarborError:
            continue  # no Harbor agent: no trial can be this system's
        found.setdefault(agent.key, system.id)
    return found, f"the systems of {loaded.path}"


def trial_agent(result: TrialResult) -> tuple[str, str]:
    """The (agent, model) the trial's config gave Harbor, as the job config names them."""
    agent: dict[str, Any] = result.config.get("agent") or {}
    name = agent.get("name") or agent.get("import_path") or result.agent_info.name
    model = agent.get("model_name")
    if not model and result.agent_info.model_info is not None:
        info = result.agent_info.model_info
        model = f"{info.provider}/{info.name}" if info.provider else info.name
    return str(name), str(model or "")


def import_benchmark_harbor(loaded: LoadedBenchmark, job_dir: Path) -> BenchmarkHarborImport:
    """Each finished trial into its project's runs with its system, and into benchmark.yaml's
    outcomes (reported when its pair has no reported outcome yet); nothing twice."""
    from studio.benchmark.running import add_outcome, remove_outcome
    from studio.runs.record import list_runs
    from studio.store import layout

    benchmark = loaded.benchmark
    assert benchmark is not None and not loaded.errors
    job_dir = Path(job_dir).resolve()
    trials = read_trials(job_dir)
    report = BenchmarkHarborImport(job_id(job_dir, trials), job_dir)
    agents, source = _agent_map(loaded, job_dir)

    def system_of(result: TrialResult) -> RunSystem | str:
        agent, model = trial_agent(result)
        system = benchmark.system(agents.get((agent, model), ""))
        if system is None:
            known = ", ".join(f"{s} = {a} with {m}" for (a, m), s in agents.items()) or "none"
            return (f"it ran Harbor agent {agent} with model {model or '(none)'}, which is no system of the benchmark "
                    f"(by {source}: {known}): add the system to benchmark.yaml, or export the benchmark again")
        return RunSystem(id=system.id, model=system.model, harness_version=system.harness_version)

    tasks = {task_name(project_id): project_id for project_id in loaded.projects}
    for trial in trials:
        if trial.result is None:
            report.other.append(TrialOutcome(trial.name, "not finished", message=(
                "it has no result.json yet: import the job again when the trial is over")))
        elif trial.result.task_name not in tasks:
            report.other.append(TrialOutcome(trial.name, "other task", message=(
                f"it ran {trial.result.task_name}, the task of no project of the benchmark "
                f"({', '.join(sorted(tasks))})")))
    reported = set(loaded.reported())
    listed = {(o.project, o.submission) for o in benchmark.outcomes}
    for project_id, project in loaded.projects.items():
        done = import_harbor(job_dir, project.folder, system_of=system_of)
        report.projects[project_id] = done
        # A run an earlier import made of a trial Harbor cancelled (and reruns) is gone: its outcome
        # goes too, and when it was the pair's reported one the rerun takes its place.
        gone = {o.run_id for o in done.trials if o.action == "replaced" and o.run_id is not None}
        for attempt in benchmark.outcomes:
            if attempt.project == project_id and attempt.submission in gone:
                remove_outcome(loaded.path, project_id, attempt.submission)
                listed.discard((project_id, attempt.submission))
                if attempt.selected:
                    reported.discard((attempt.system, project_id))
                report.removed.append((attempt.system, project_id, attempt.submission))
        ran = {record.run_id: record.system.id for _, record in list_runs(project.folder / layout.RUNS_DIR)
               if record.system is not None}
        # Of several attempts of one pair in the job, the first that finished every step is the one
        # reported (then the first by trial name): a trial Harbor stopped part-way is kept, not reported.
        for outcome in sorted(done.trials, key=lambda o: (o.total == 0 or o.done < o.total, o.trial)):
            if outcome.action not in ("imported", "already imported") or outcome.run_id is None:
                continue
            if (project_id, outcome.run_id) in listed:
                continue  # its outcome is in benchmark.yaml already
            system = ran.get(outcome.run_id)
            if system is None:
                continue  # imported before without a system (`import harbor`): not the benchmark's to place
            reason = None
            if (system, project_id) in reported:
                reason = f"imported from Harbor job {report.job_id} (trial {outcome.trial}); pair already reported"
            add_outcome(loaded.path, system, project_id, outcome.run_id, reason)
            reported.add((system, project_id))
            listed.add((project_id, outcome.run_id))
            report.outcomes.append((system, project_id, outcome.run_id, reason))
    return report
