"""An offline Harbor agent for the real `harbor run` tests: no model, no network.

Harbor imports it in its own environment (tests/runs/harbor_env.py) by the import path
`harbor_agent.offline:OfflineAgent`, with tests/runs on PYTHONPATH. In each step it writes every
deliverable the step's instruction names (`outputs/...`), adding a line that says which step
wrote it, and a listing of the workspace as it found it, so a test sees what had been released
by then. It resumes across steps (capabilities.resume): its session, the steps it has done, is a
file in the agent's log folder, which Harbor keeps between resumed steps.

It also notes the container's memory and CPU limits (cgroup v2 or v1) beside each listing.

What it is told comes from the agent's kwargs in the job config (`fail_step`, `sleep_step`), else
from the environment of the `harbor` process, so a resumed job can be told otherwise than its
first run:
    DBSTUDIO_AGENT_FAIL_STEP=N    fail the N-th step (1-based) after writing its files, as an
                                  installed agent whose command exits non-zero does
    DBSTUDIO_AGENT_SLEEP_STEP=N   in the N-th step, after writing, sleep in the container for
                                  DBSTUDIO_AGENT_SLEEP_S seconds (600 unless set): past the timeout;
                                  it first writes sleeping-NN in its log folder on the host
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.agents.capabilities import AgentCapabilities
from harbor.agents.installed.base import NonZeroAgentExitCodeError
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

NAME = "dbstudio-offline"
DELIVERABLE = re.compile(r"\boutputs/[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]")
SEEN = ".offline-agent"  # the workspace folder where each step's listing goes
LIMITS = (
    'echo "memory=$(cat /sys/fs/cgroup/memory.max 2>/dev/null'
    ' || cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null)"; '
    'echo "cpu=$(cat /sys/fs/cgroup/cpu.max 2>/dev/null'
    ' || echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)")"'
)


class OfflineAgent(BaseAgent):
    capabilities = AgentCapabilities(resume=True)

    def __init__(self, *args: Any, fail_step: int | None = None, sleep_step: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fail_step = str(fail_step) if fail_step is not None else os.environ.get("DBSTUDIO_AGENT_FAIL_STEP")
        self.sleep_step = str(sleep_step) if sleep_step is not None else os.environ.get("DBSTUDIO_AGENT_SLEEP_STEP")

    @staticmethod
    def name() -> str:
        return NAME

    def version(self) -> str:
        return "1.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        pass

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        await self._step(instruction, environment, context, resumed=False)

    async def resume(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        await self._step(instruction, environment, context, resumed=True)

    async def _step(self, instruction: str, environment: BaseEnvironment, context: AgentContext,
                    *, resumed: bool) -> None:
        logs = str(self.environment_logs_dir)
        session = f"{logs}/session.json"
        done: list[str] = []
        if resumed:
            found = await environment.exec(f"cat {shlex.quote(session)} 2>/dev/null || echo '[]'")
            done = json.loads((found.stdout or "[]").strip() or "[]")
        number = len(done) + 1
        title = next((line.lstrip("# ").strip() for line in instruction.splitlines() if line.strip()), "")
        step = f"step {number}: {title}"
        deliverables = sorted(set(DELIVERABLE.findall(instruction)))
        lines = [
            "set -e",
            f"mkdir -p {SEEN} {shlex.quote(logs)}",
            # what the agent found, before it wrote anything of this step
            f"find . -type f ! -path './{SEEN}/*' | sort > {SEEN}/seen-{number:02d}.txt",
            f"{{ {LIMITS}; }} > {SEEN}/limits-{number:02d}.txt",
        ]
        for path in deliverables:
            lines.append(f"mkdir -p {shlex.quote(os.path.dirname(path))}")
            lines.append(f"printf '%s\\n' {shlex.quote(f'{path}, written in {step}')} >> {shlex.quote(path)}")
        lines.append(f"printf '%s\\n' {shlex.quote(step)} > {shlex.quote(f'{logs}/step-{number:02d}.txt')}")
        lines.append(f"printf '%s\\n' {shlex.quote(json.dumps([*done, title]))} > {shlex.quote(session)}")
        wrote = await environment.exec("\n".join(lines))
        if wrote.return_code != 0:
            raise RuntimeError(f"offline agent: writing {step} exited {wrote.return_code}: {wrote.stderr}")
        context.n_input_tokens, context.n_output_tokens, context.n_cache_tokens = 10 * number, number, 0
        context.cost_usd = 0.0
        if self.fail_step == str(number):
            # as an installed agent fails when its command line exits non-zero
            raise NonZeroAgentExitCodeError(f"offline agent: told to fail {step} (exit code 1)")
        if self.sleep_step == str(number):
            # Harbor copies the agent's log folder out only after the step: this file, written by
            # the agent's own (host) process, tells a test at once that the agent is asleep.
            (self.logs_dir / f"sleeping-{number:02d}").write_text(step + "\n", encoding="utf-8")
            await environment.exec(f"sleep {int(os.environ.get('DBSTUDIO_AGENT_SLEEP_S', '600'))}")
