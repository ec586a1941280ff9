"""The shell scripts of an exported Harbor task: a step's `workdir/setup.sh`, which writes its
generated releases from the agent's own files before the agent starts, and the `tests/test.sh`
every step shares, which records the workspace and writes a placeholder reward."""

from __future__ import annotations

import shlex
from pathlib import Path, PurePosixPath

from studio.runs.harbor_format import SETUP_DIR, WORKSPACE, WORKSPACE_HASHES
from studio.runs.plan import GeneratedFile
from studio.runs.scripts import script_command

SETUP_HEAD = """\
#!/bin/bash
# Written by `dbstudio export harbor`: the generated releases before {subtask}.
# Harbor copies this step's workdir/ into the agent's working directory and runs this file there
# before the agent starts. Each project script reads the agent's own files and writes its
# material where a local run puts it; the scripts and this file are then removed, so the agent
# never sees them. A script that fails stops the trial at this step.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp -d)"
cleanup() {{ rm -rf "$here/{setup_dir}" "$out" "$here/setup.sh"; }}
trap cleanup EXIT
cd "$here"
"""

SETUP_RELEASE = """\
# {material}: {script} reads {reads}
{command} || {{ echo "dbstudio: the generated release {material} ({script}) failed before {subtask}" >&2; exit 1; }}
if [ ! -f "$out/{name}" ]; then
  echo "dbstudio: {script} wrote no {name} for {material}: it must write the file named by its last argument" >&2
  exit 1
fi
mkdir -p {folder}
cp "$out/{name}" {dest}
"""

TEST_SCRIPT = f"""\
#!/bin/sh
# Written by `dbstudio export harbor`. There is no automatic check here: DeliverBench Studio
# scores a trial by judging its checkpoints after `dbstudio import harbor`. The reward below is
# a placeholder (reward 0, placeholder 1) and means nothing about the agent's work.
# Harbor collects the workspace ({WORKSPACE}) as this step's artifact (task.toml `artifacts`);
# this script records the content hash of each of its files, so the import can check that copy.
mkdir -p /logs/verifier
printf '{{"reward": 0, "placeholder": 1}}\\n' > /logs/verifier/reward.json
echo "placeholder reward: scores come from judging in DeliverBench Studio after the import"
cd {WORKSPACE} || exit 0
find . -type f -exec sha256sum {{}} + > /logs/verifier/{WORKSPACE_HASHES} 2>/dev/null
exit 0
"""


def setup_dir_path(script: str) -> str:
    """Where a project script is put in the step's workdir (relative to the workspace)."""
    return (PurePosixPath(SETUP_DIR) / script).as_posix()


def setup_script(subtask: str, generated: tuple[GeneratedFile, ...], project_dir: Path) -> str:
    """setup.sh for the generated releases before `subtask`, each script run as a local run runs it:
    its arguments are the agent files it reads, then the file it must write."""
    parts = [SETUP_HEAD.format(subtask=subtask, setup_dir=SETUP_DIR)]
    for release in generated:
        name = PurePosixPath(release.dest).name
        command = script_command(project_dir / release.script, setup_dir_path(release.script))
        command += list(release.reads)
        line = shlex.join(command) + f' "$out/{name}"'
        parts.append(SETUP_RELEASE.format(
            material=release.material, script=release.script, reads=", ".join(release.reads) or "nothing",
            command=line, subtask=subtask, name=name, folder=shlex.quote(str(PurePosixPath(release.dest).parent)),
            dest=shlex.quote(release.dest),
        ))
    return "".join(parts)
