"""The `benchmark.yaml` file: the projects (folders relative to the file), the systems (model,
harness, harness version, settings and recorded interface adaptations), the judge whose verdicts the
reported scores use, and per (system, project) pair its outcomes: the one reported, and every other
attempt kept with the reason it was not selected."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints

from studio.model.base import Identifier, StrictModel

BENCHMARK_FILE = "benchmark.yaml"
FORMAT_VERSION = 1

JudgeRater = Annotated[str, StringConstraints(pattern=r"^judge:\S+$", max_length=200)]
ProjectFolder = Annotated[str, StringConstraints(pattern=r"^(?!/)[^\\:*?\"<>|]+$", min_length=1)]


class System(StrictModel):
    """A model-harness system, as the paper's Table 5 names one (e.g. GPT-5.6 / Codex CLI)."""

    id: Identifier = Field(description="the system's id, used by the outcomes and `dbstudio run --system`")
    name: str = Field(min_length=1, description="the name reports show")
    model: str = Field(min_length=1, description="the model the harness runs")
    harness: str = Field(min_length=1, description="a harness preset (claude-code, codex, ...) or script:PATH")
    harness_version: str | None = Field(default=None, description="the harness's CLI version, as it reports it")
    settings: dict[str, Any] = Field(default_factory=dict,
                                     description="reasoning effort, limits, image ...: what the runs were given")
    adaptations: list[str] = Field(default_factory=list,
                                   description="interface adaptations the system needed, recorded for the report "
                                               "(e.g. a PDF guard)")


class Outcome(StrictModel):
    """One attempt of a system on a project: a run id of the project, or a named submission of its
    verdict store."""

    system: Identifier
    project: Identifier = Field(description="the project's id (its project.yaml)")
    submission: str = Field(min_length=1, max_length=200, description="a run id, or a submission of the verdict store")
    selected: bool = Field(default=True, description="false: an attempt kept but not reported")
    reason: str | None = Field(default=None, description="why an attempt is not the one reported")


class Judge(StrictModel):
    """The judge whose verdicts the reported scores use, with its settings pinned."""

    rater: JudgeRater = Field(description="the verdicts' rater, judge:MODEL")
    profile: str | None = Field(default=None, description="the judge profile the verdicts were given with")
    settings: dict[str, Any] = Field(default_factory=dict, description="what else was pinned (endpoint, effort ...)")


class Benchmark(StrictModel):
    """The whole `benchmark.yaml`."""

    format: int = Field(default=FORMAT_VERSION, ge=1, le=FORMAT_VERSION)
    id: Identifier
    title: str = Field(min_length=1)
    projects: list[ProjectFolder] = Field(default_factory=list, description="project folders, relative to this file")
    judge: JudgeRater | Judge | None = Field(default=None,
                                             description="judge:MODEL, or the judge with its settings pinned")
    systems: list[System] = Field(default_factory=list)
    outcomes: list[Outcome] = Field(default_factory=list)

    @property
    def judge_rater(self) -> str | None:
        if self.judge is None:
            return None
        return self.judge if isinstance(self.judge, str) else self.judge.rater

    def system(self, system_id: str) -> System | None:
        return next((s for s in self.systems if s.id == system_id), None)
