"""Generated releases: a project script writes a material from the agent's own files, just
before the subtask it is released to, in a container of the run's image with the network off.
The workspace is mounted read-only: the script reads the agent's files and cannot change them."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path, PurePosixPath

from studio.runs.engine import ContainerSpec, DockerEngine, Mount
from studio.runs.errors import RunError
from studio.runs.ownership import ContainerUser, hand_over
from studio.runs.plan import GeneratedFile
from studio.runs.record import RunRecord
from studio.runs.scripts import script_command
from studio.untrusted import Limits, UntrustedFileError
from studio.untrusted.tree import open_reached, reach
from studio.untrusted.writing import write_file

GENERATOR_TIME_LIMIT_S = 600.0
WORKSPACE = "/workspace"
OUT = "/studio/out"
SCRIPTS = "/studio/generator"


class GeneratedReleaseError(RunError):
    """A generated release's script failed or wrote nothing."""


def run_generator(
    engine: DockerEngine,
    record: RunRecord,
    run_dir: Path,
    subtask: str,
    generated: GeneratedFile,
    user: ContainerUser,
    repairs: list[str] | None = None,
) -> str:
    """Run the script, copy what it wrote to its place in the workspace (never through a link the agent
    planted there: what was replaced is added to `repairs`); return its sha256."""
    script = run_dir / "inputs" / generated.script
    out_dir = run_dir / "generated" / subtask / generated.material
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    hand_over(out_dir, user)  # the script writes there as the container user
    out_name = PurePosixPath(generated.dest).name
    mounted_script = f"{SCRIPTS}/{script.name}"
    command = script_command(script, mounted_script)
    command += [f"{WORKSPACE}/{path}" for path in generated.reads] + [f"{OUT}/{out_name}"]
    spec = ContainerSpec(
        image=record.image,
        command=command,
        workdir=WORKSPACE,
        env={"STUDIO_SUBTASK": subtask},
        mounts=[
            Mount(run_dir / "workspace", WORKSPACE, True),
            Mount(script, mounted_script, True),
            Mount(out_dir, OUT, False),
        ],
        cpus=record.settings.cpus,
        memory=record.settings.memory,
        network=False,
        timeout_s=GENERATOR_TIME_LIMIT_S,
        labels={
            "dbstudio.run": record.run_id,
            "dbstudio.subtask": subtask,
            "dbstudio.role": "generator",
            "dbstudio.material": generated.material,
        },
        user=user.spec(),
        read_only_root=not record.settings.writable_root,
        pids_limit=record.settings.pids_limit,
    )
    log = run_dir / "logs" / f"{subtask}.generate.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    result = engine.run(spec, log=log)
    where = f"the generated release {generated.material} ({generated.script}) before {subtask}"
    if result.timed_out:
        raise GeneratedReleaseError(
            f"{where} ran out of its {GENERATOR_TIME_LIMIT_S:.0f} s: see {log}; fix the script and start a new run"
        )
    if result.exit_code != 0:
        raise GeneratedReleaseError(
            f"{where} failed with exit code {result.exit_code}: {_tail(log)} "
            f"(whole output in {log}); fix the script and start a new run"
        )
    try:
        reached = reach(out_dir, out_name, tree="the script's output folder", limits=Limits())
    except UntrustedFileError as refused:
        raise GeneratedReleaseError(
            f"{where} exited 0 but wrote no usable {out_name} ({refused}): it must write "
            "the file named by its last argument"
        ) from None
    descriptor = open_reached(reached, out_name)
    with open(descriptor, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    try:
        made = write_file(run_dir / "workspace", generated.dest, reached.path)
    except UntrustedFileError as refused:
        raise GeneratedReleaseError(f"{where}: cannot put it in the workspace: {refused}") from None
    if repairs is not None:
        repairs += made
    return digest


def _tail(log: Path, lines: int = 5) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no output"
    return " | ".join(text[-lines:]) or "no output"
