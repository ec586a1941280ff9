"""A preset harness end to end: a stand-in `claude` command in an image built FROM the local test
image (no registry), run through three subtasks. The session flag appears from the second subtask
on, token counts reach the record, and the API key reaches the container but no file on the host."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import docker
import pytest

from studio.runs.record import RunStatus
from studio.runs.runner import create_run, execute_run, store_of
from tests.runs.projects import three_subtask_project

KEY = "sk-test-7f3a9c-never-on-disk"

# Stands in for Claude Code: keeps its arguments, says whether it got a key (never the key), and
# ends with the JSON result line `claude -p --output-format json` prints.
FAKE_CLAUDE = """#!/bin/sh
mkdir -p outputs
for word in "$@"; do echo "$word"; done > "outputs/args-$STUDIO_SUBTASK.txt"
[ -n "$ANTHROPIC_API_KEY" ] && echo "key present" >> "outputs/args-$STUDIO_SUBTASK.txt"
echo '{"type":"result","result":"done","usage":{"input_tokens":1200,"output_tokens":340,"cache_read_input_tokens":50}}'
"""


@pytest.fixture(scope="module")
def claude_image(test_image: str, docker_engine) -> str:
    tag = "dbstudio/test-fake-claude:1"
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, text, mode in (("Dockerfile", f"FROM {test_image}\nCOPY claude /usr/local/bin/claude\n", 0o644),
                                 ("claude", FAKE_CLAUDE, 0o755)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    client = docker.DockerClient(base_url=docker_engine.url())
    client.images.build(fileobj=context, custom_context=True, tag=tag, rm=True)
    return tag


def test_a_preset_continues_its_session_and_keeps_its_key_off_the_disk(tmp_path: Path, claude_image, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    project = three_subtask_project(tmp_path / "proj")
    run_dir = create_run(project, "claude-code", claude_image, runs_dir=tmp_path / "runs")
    record = execute_run(run_dir)
    assert record.status == RunStatus.COMPLETED
    store = store_of(run_dir)
    last = store.manifest(record.subtasks[-1].checkpoint or "")
    args = {sid: store.read_bytes(last, f"outputs/args-{sid}.txt").decode().splitlines() for sid in ("T01", "T02")}
    assert args["T01"][0] == "-p"
    assert "--continue" not in args["T01"] and args["T02"][0] == "--continue"
    instruction = (project / "subtasks/T02/instruction.md").read_text(encoding="utf-8").rstrip("\n")
    assert "\n".join(args["T02"]).find(instruction) >= 0  # the prompt is the instruction's text
    assert args["T01"][-1] == args["T02"][-1] == "key present"
    assert record.subtasks[0].tokens == {"input": 1200, "output": 340, "cache_read": 50, "cache_creation": 0}
    assert KEY not in json.dumps(record.model_dump(mode="json"))
    leaked = [path for folder in (run_dir.parent, project) for path in folder.rglob("*")
              if path.is_file() and KEY.encode() in path.read_bytes()]
    assert leaked == []
