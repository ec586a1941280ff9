"""The shell scripts of an exported Harbor task: a step's `workdir/setup.sh`, which writes its
generated releases from the agent's own files before the agent starts, and the `tests/test.sh`
every step shares, which records the workspace and writes a placeholder reward.

Harbor keeps only the exit code of a setup.sh that fails (not what it printed), so each release
exits with a code of its own, which the import reads back to name the release (setup_failure)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path, PurePosixPath

from studio.runs.harbor_format import SETUP_DIR, WORKSPACE, WORKSPACE_HASHES
from studio.runs.plan import GeneratedFile
from studio.runs.scripts import script_command

# setup.sh's exit code when the I-th release (0-based) of the step fails: RELEASE_FAILED + I when its
# script fails, RELEASE_NO_FILE + I when it writes no file; 1 for a release past RELEASE_CODES.
RELEASE_FAILED = 10
RELEASE_NO_FILE = 60
RELEASE_CODES = 50
SETUP_EXIT = re.compile(r"setup\.sh exited with code (\d+)")

SETUP_HEAD = """\
#!/bin/bash
# Written by `dbstudio export harbor`: the generated releases before {subtask}.
# Harbor copies this step's workdir/ into the agent's working directory and runs this file there
# before the agent starts. Each project script reads the agent's own files and writes its
# material where a local run puts it; the scripts and this file are then removed, so the agent
# never sees them. A script that fails stops the trial at this step, with an exit code that names
# the release (Harbor keeps only the code): {failed}+N when the N-th release's script fails (N from
# 0), {no_file}+N when it writes no file.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp -d)"
cleanup() {{ rm -rf "$here/{setup_dir}" "$out" "$here/setup.sh"; }}
trap cleanup EXIT
cd "$here"
"""

SETUP_RELEASE = """\
# {material}: {script} reads {reads}
{command} || {{ echo "dbstudio: the generated release {material} ({script}) failed before {subtask}" >&2; exit {failed}; }}
if [ ! -f "$out/{name}" ]; then
  echo "dbstudio: {script} wrote no {name} for {material}: it must write the file named by its last argument" >&2
  exit {no_file}
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
    parts = [SETUP_HEAD.format(subtask=subtask, setup_dir=SETUP_DIR, failed=RELEASE_FAILED, no_file=RELEASE_NO_FILE)]
    for index, release in enumerate(generated):
        name = PurePosixPath(release.dest).name
        command = script_command(project_dir / release.script, setup_dir_path(release.script))
        command += list(release.reads)
        line = shlex.join(command) + f' "$out/{name}"'
        parts.append(SETUP_RELEASE.format(
            material=release.material, script=release.script, reads=", ".join(release.reads) or "nothing",
            command=line, subtask=subtask, name=name, folder=shlex.quote(str(PurePosixPath(release.dest).parent)),
            dest=shlex.quote(release.dest),
            failed=RELEASE_FAILED + index if index < RELEASE_CODES else 1,
            no_file=RELEASE_NO_FILE + index if index < RELEASE_CODES else 1,
        ))
    return "".join(parts)


def setup_failure(generated: tuple[GeneratedFile, ...], harbor_message: str) -> str | None:
    """Which generated release made the step's setup.sh fail, from the exit code in Harbor's error
    message (None: the message is not of a failed setup.sh)."""
    found = SETUP_EXIT.search(harbor_message)
    if found is None or not generated:
        return None
    code = int(found.group(1))

    def named(release: GeneratedFile) -> str:
        return f"{release.material} ({release.script}, from {', '.join(release.reads) or 'nothing'})"

    for base, what in ((RELEASE_FAILED, "failed"), (RELEASE_NO_FILE, "wrote no file (it must write the file named by "
                                                                     "its last argument)")):
        index = code - base
        if 0 <= index < min(len(generated), RELEASE_CODES):
            return f"its generated release {named(generated[index])} {what} in the container, before the agent started"
    return ("one of its generated releases " + ", ".join(named(release) for release in generated)
            + f" failed in the container, before the agent started (setup.sh exit code {code})")
