"""Atomic writes: a kill during save never leaves a half-written file; failures leave no trace."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from studio.store.atomic import write_atomic
from studio.store.yamlfile import YamlDocument
from tests.helpers import REPO_ROOT

WRITER = """\
import sys
from pathlib import Path
from studio.store.atomic import write_atomic

target = Path(sys.argv[1])
documents = [Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes()]
print("started", flush=True)
count = 0
while True:
    write_atomic(target, documents[count % 2])
    count += 1
"""


def _big_document(tag: str, items: int = 1000) -> bytes:
    """A valid YAML rubric of roughly 2 MB whose every item differs between tags."""
    lines = [f"# {tag}: a large document written over and over\n", "criteria:\n"]
    for i in range(items):
        lines.append(f"  - id: {tag}-C{i:04d}\n")
        lines.append(f"    text: {tag} requirement {i} " + f"{tag} lorem ipsum {i} " * 90 + "\n")
        lines.append(f"    weight: {i % 10 + 1}\n")
    return "".join(lines).encode("utf-8")


_parsed: dict[str, object] = {}


def _parses(data: bytes) -> bool:
    digest = hashlib.sha256(data).hexdigest()
    if digest not in _parsed:
        _parsed[digest] = YAML(typ="safe").load(data.decode("utf-8"))
    return isinstance(_parsed[digest], dict) and bool(_parsed[digest])


def _stray_files(folder: Path, target: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p != target]


def test_kill_during_save_never_leaves_a_half_written_file(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    target = folder / "rubric.yaml"
    initial = b"# initial version\ncriteria: []\n"
    doc_a, doc_b = _big_document("alpha"), _big_document("beta", items=1100)
    assert doc_a != doc_b and len(doc_a) > 2_000_000 and len(doc_b) > 2_000_000
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "a.yaml").write_bytes(doc_a)
    (sources / "b.yaml").write_bytes(doc_b)
    target.write_bytes(initial)
    os.chmod(target, 0o640)

    rng = random.Random(20240521)
    seen: list[str] = []
    strays_seen = 0
    for _ in range(15):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), str(sources / "a.yaml"), str(sources / "b.yaml")],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == b"started\n", child.stderr.read() if child.stderr else b""
            time.sleep(rng.uniform(0.0, 0.3))
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait(timeout=30)
            child.stdout.close()
            child.stderr.close()
        assert child.returncode == -signal.SIGKILL

        data = target.read_bytes()
        if data == initial:
            seen.append("initial")
        elif data == doc_a:
            seen.append("a")
        elif data == doc_b:
            seen.append("b")
        else:
            pytest.fail(f"half-written file after a kill: {len(data)} bytes, starting {data[:60]!r}")
        assert _parses(data)
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        # At worst a kill leaves a hidden temporary file beside the target, never another name.
        for stray in _stray_files(folder, target):
            assert stray.name.startswith(".rubric.yaml.") and stray.name.endswith(".tmp"), stray
            strays_seen += 1
            stray.unlink()

    # The writer really was writing when it died: complete new versions were observed.
    assert {"a", "b"} & set(seen), seen
    print(f"versions after kills: {seen}; stray temp files: {strays_seen}")


def test_write_atomic_replaces_content_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "stages.yaml"
    target.write_bytes(b"old\n")
    os.chmod(target, 0o600)
    write_atomic(target, b"stages: []\n")
    assert target.read_bytes() == b"stages: []\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    os.chmod(target, 0o755)
    write_atomic(target, b"stages: [1]\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert _stray_files(tmp_path, target) == []


def test_write_atomic_new_file_is_readable_and_parents_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "new.yaml"
    write_atomic(target, b"x: 1\n")
    assert target.read_bytes() == b"x: 1\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert os.listdir(target.parent) == ["new.yaml"]


def test_yaml_document_save_keeps_permissions(blank_project: Path) -> None:
    path = blank_project / "materials.yaml"
    os.chmod(path, 0o664)
    document = YamlDocument.load(path)
    document.data["materials"][0]["title"] = "Renamed"
    document.save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    assert "title: Renamed" in path.read_text(encoding="utf-8")


def test_failing_write_inside_leaves_old_content_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "project.yaml"
    target.write_bytes(b"id: keep-me\n")
    # Not bytes: the write to the temporary file raises after it was created.
    with pytest.raises(TypeError):
        write_atomic(target, "id: text-not-bytes\n")  # type: ignore[arg-type]
    assert target.read_bytes() == b"id: keep-me\n"
    assert os.listdir(tmp_path) == ["project.yaml"]


def test_failing_rename_leaves_target_and_no_temp_file(tmp_path: Path) -> None:
    # The target is a non-empty folder: the data is written, then the final rename fails.
    target = tmp_path / "rubric.yaml"
    target.mkdir()
    (target / "inside.txt").write_text("untouched", encoding="utf-8")
    with pytest.raises(OSError):
        write_atomic(target, b"criteria: []\n")
    assert (target / "inside.txt").read_text(encoding="utf-8") == "untouched"
    assert sorted(os.listdir(tmp_path)) == ["rubric.yaml"]


def test_parent_that_is_a_file_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "final"
    blocker.write_bytes(b"i am a file\n")
    sibling = tmp_path / "stages.yaml"
    sibling.write_bytes(b"stages: []\n")
    with pytest.raises(OSError):
        write_atomic(blocker / "rubric.yaml", b"criteria: []\n")
    assert blocker.read_bytes() == b"i am a file\n"
    assert sibling.read_bytes() == b"stages: []\n"
    assert sorted(os.listdir(tmp_path)) == ["final", "stages.yaml"]


def test_failing_save_of_a_document_keeps_the_file(blank_project: Path) -> None:
    path = blank_project / "stages.yaml"
    before = path.read_bytes()
    document = YamlDocument.load(path)
    document.data["stages"][0]["title"] = object()  # cannot be represented as YAML
    with pytest.raises(Exception):
        document.save()
    assert path.read_bytes() == before
    assert not [p for p in blank_project.iterdir() if p.name.endswith(".tmp")]
