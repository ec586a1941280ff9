"""Run by the Harbor virtual environment of tests/runs/harbor_env.py, never by the test suite's own
Python: it reads exported tasks and job configs with Harbor's own models, and writes job folders
with them, and prints what it found as JSON.

    harbor_probe.py task TASK_DIR       the task as Harbor's Task model loads it
    harbor_probe.py job JOB_CONFIG      the job config as Harbor's JobConfig model reads it
    harbor_probe.py make-job SPEC.json  a job folder laid out and serialised by Harbor's own models
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from harbor.models.agent.context import AgentContext
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult, JobStats
from harbor.models.task.id import LocalTaskId
from harbor.models.task.task import Task
from harbor.models.trial.config import AgentConfig, TaskConfig, TrialConfig
from harbor.models.trial.error_policy import policy_for
from harbor.models.trial.paths import TrialPaths
from harbor.models.trial.result import AgentInfo, ExceptionInfo, ModelInfo, StepResult, TimingInfo, TrialResult
from harbor.models.verifier.result import VerifierResult


def task(folder: str) -> dict[str, Any]:
    loaded = Task(folder)
    steps = []
    for step in loaded.config.steps or []:
        workdir = loaded.paths.step_workdir_dir(step.name)
        files = sorted(p.relative_to(workdir).as_posix() for p in workdir.rglob("*") if p.is_file())
        test = loaded.paths.discovered_step_test_path_for(step.name, loaded.config.environment.os)
        steps.append({"name": step.name, "agent_timeout_sec": step.agent.timeout_sec,
                      "instruction": loaded.step_instruction(step.name), "workdir": files,
                      "setup": loaded.paths.step_setup_path(step.name).is_file(),
                      "test": str(test.relative_to(loaded.task_dir)) if test else None})
    environment = loaded.config.environment
    return {"harbor": importlib.metadata.version("harbor"), "name": loaded.name, "valid": Task.is_valid_dir(folder),
            "has_steps": loaded.has_steps, "steps": steps, "cpus": environment.cpus,
            "memory_mb": environment.memory_mb, "workdir": environment.workdir,
            "artifacts": [a if isinstance(a, str) else a.model_dump() for a in loaded.config.artifacts],
            "metadata": loaded.config.metadata}


def job(path: str) -> dict[str, Any]:
    config = JobConfig.model_validate(yaml.safe_load(Path(path).read_text()))
    return {"agents": [{"name": a.name, "model_name": a.model_name, "resume_trajectory": a.resume_trajectory}
                       for a in config.agents],
            "import_paths": [a.import_path for a in config.agents],
            "environment": config.environment.type.value if config.environment.type else None,
            "tasks": [str(t.path) for t in config.tasks], "n_attempts": config.n_attempts,
            "jobs_dir": str(config.jobs_dir),
            # whether Harbor grades a step that failed so (a step failed and not graded ends the trial)
            "graded": {kind: policy_for(kind, config.override_error_policy.get(kind)).should_grade
                       for kind in ("NonZeroAgentExitCodeError", "AgentTimeoutError")}}


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _exception(spec: dict[str, Any] | None) -> ExceptionInfo | None:
    if spec is None:
        return None
    return ExceptionInfo(exception_type=spec["type"], exception_message=spec["message"],
                         exception_traceback="Traceback (most recent call last): ...",
                         occurred_at=datetime.fromisoformat(spec["at"]))


def make_job(spec_path: str) -> dict[str, Any]:
    spec = json.loads(Path(spec_path).read_text())
    job_dir = Path(spec["jobs_dir"]) / spec["job_name"]
    job_dir.mkdir(parents=True)
    job_id = UUID(spec["job_id"])
    # A trial may name its own agent, model and task (a job of several agents and tasks); the
    # job's config then lists each of them once.
    agents, tasks = {}, {}
    for trial in spec["trials"]:
        name, model_name = trial.get("agent", spec["agent"]), trial.get("model", spec["model"])
        agents.setdefault((name, model_name), AgentConfig(name=name, model_name=model_name, resume_trajectory=True))
        path = trial.get("task_path", spec["task_path"])
        tasks.setdefault(path, TaskConfig(path=Path(path)))
    config = JobConfig(job_name=spec["job_name"], jobs_dir=Path(spec["jobs_dir"]), agents=list(agents.values()),
                       tasks=list(tasks.values()))
    (job_dir / "config.json").write_text(config.model_dump_json(indent=4))
    results, layout = [], {}
    for trial in spec["trials"]:
        agent = agents[(trial.get("agent", spec["agent"]), trial.get("model", spec["model"]))]
        task_config = tasks[trial.get("task_path", spec["task_path"])]
        provider, _, model = agent.model_name.partition("/")
        paths = TrialPaths(job_dir / trial["name"])
        paths.trial_dir.mkdir()
        trial_config = TrialConfig(task=task_config, trial_name=trial["name"], trials_dir=job_dir, agent=agent,
                                   job_id=job_id)
        paths.config_path.write_text(trial_config.model_dump_json(indent=4))
        paths.log_path.write_text(f"trial {trial['name']} log\n")
        steps, where = [], {}
        for step in trial["steps"]:
            tokens = step.get("tokens")
            context = AgentContext(n_input_tokens=tokens[0], n_cache_tokens=tokens[1], n_output_tokens=tokens[2],
                                   cost_usd=step.get("cost")) if tokens else None
            steps.append(StepResult(
                step_name=step["name"], agent_result=context, exception_info=_exception(step.get("exception")),
                verifier_result=VerifierResult(rewards={"reward": 0, "placeholder": 1}) if step.get("verified") else None,
                agent_execution=TimingInfo(started_at=_when(step["started_at"]), finished_at=_when(step["finished_at"])),
            ))
            for part in ("agent", "verifier", "artifacts"):
                folder = getattr(paths, f"step_{part}_dir")(step["name"])
                folder.mkdir(parents=True)
            where[step["name"]] = {part: str(getattr(paths, f"step_{part}_dir")(step["name"]))
                                   for part in ("agent", "verifier", "artifacts")}
        if not trial.get("finished", True):
            layout[trial["name"]] = {"dir": str(paths.trial_dir), "steps": where}
            continue  # a trial still running has no result.json
        result = TrialResult(
            task_name=trial.get("task_name", spec["task_name"]), trial_name=trial["name"],
            trial_uri=paths.trial_dir.as_uri(), task_id=LocalTaskId(path=task_config.path), task_checksum="0" * 64,
            config=trial_config, agent_info=AgentInfo(name=agent.name, version=spec["agent_version"],
                                 model_info=ModelInfo(name=model, provider=provider)),
            exception_info=_exception(trial.get("exception")), started_at=_when(trial["started_at"]),
            finished_at=_when(trial["finished_at"]), step_results=steps,
        )
        paths.result_path.write_text(result.model_dump_json(indent=4))
        results.append(result)
        layout[trial["name"]] = {"dir": str(paths.trial_dir), "steps": where}
    job_result = JobResult(id=job_id, started_at=_when(spec["started_at"]), finished_at=_when(spec["finished_at"]),
                           n_total_trials=len(spec["trials"]), stats=JobStats.from_trial_results(results),
                           trial_results=results)
    (job_dir / "result.json").write_text(job_result.model_dump_json(indent=4))
    return {"job_dir": str(job_dir), "trials": layout}


if __name__ == "__main__":
    command, argument = sys.argv[1], sys.argv[2]
    handlers = {"task": task, "job": job, "make-job": make_job}
    print(json.dumps(handlers[command](argument), default=str))
