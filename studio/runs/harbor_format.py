"""What the Harbor export writes and the Harbor import reads back: names and paths both sides
agree on. Harbor's own layout (task.toml, steps/<name>/, a job's trial folders) is described
in docs/scale-out.md; these are only the choices dbstudio makes inside it."""

from __future__ import annotations

TASK_ORG = "dbstudio"  # Harbor task names are "org/name": dbstudio/<project id>
WORKSPACE = "/workspace"  # the agent's working directory in the container, as in a local run
# Harbor collects the workspace after each step into steps/<step>/artifacts/<this folder>.
WORKSPACE_ARTIFACT = "workspace"
# test.sh writes the content hash of every workspace file here (in the step's verifier folder),
# so the import can check Harbor's copy of the workspace against what the step left.
WORKSPACE_HASHES = "workspace.sha256"
SETUP_DIR = ".dbstudio-setup"  # project scripts for a step's generated releases; setup.sh removes it
METADATA_KEY = "dbstudio"  # the [metadata.dbstudio] table of task.toml
JOB_CONFIG = "job.yaml"
DEFAULT_IMAGE = "python:3.12-slim"  # bash and python3: what setup.sh and the project's scripts need
DEFAULT_AGENT = "claude-code"
ENVIRONMENTS = ("docker", "daytona", "modal", "e2b", "runloop", "gke")
PAPER_CPUS = 2
PAPER_MEMORY_MB = 8 * 1024
VERIFIER_TIMEOUT_S = 600.0
TIMEOUT_EXCEPTION = "AgentTimeoutError"  # a step that ran out of time: kept, and the trial goes on
# Harbor records a trial it cancelled (Ctrl-C, a stopped job) with this exception; `harbor job
# resume` deletes such a trial's folder and runs the trial again under a new name.
CANCELLED_EXCEPTION = "CancelledError"
# The agent failures Harbor still grades (its error_policy.py, should_grade=True) other than a
# timeout: the job config marks them not gradable, so that the placeholder verifier gives no
# result and Harbor stops the trial at that step, as a local run stops (docs/scale-out.md).
AGENT_FAILURES = (
    "NonZeroAgentExitCodeError",
    "ContextWindowExceededError",
    "ContextLengthExceededError",
    "OutputTokenExceededError",
    "OutputLengthExceededError",
    "AgentSafetyRefusalError",
    "ContentPolicyViolationError",
)


def task_name(project_id: str) -> str:
    return f"{TASK_ORG}/{project_id}"
