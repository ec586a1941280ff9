"""Atomic writes: a kill during save never leaves a half-written file; failures leave no trace."""

from __future__ import annotations

import errno
import hashlib
import os
import random
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.representer import RepresenterError

from studio.errors import StudioError
from studio.store import layout
from studio.store.atomic import AtomicWriteError, NotDurableError, temporary_prefix, write_atomic
from studio.store.workspace import TEMPLATES_DIR, sample_project
from studio.store.yamlfile import YamlDocument
from tests.helpers import REPO_ROOT


@contextmanager
def _umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)

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
            _stop(child)
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
    with _umask(0o022):
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
    with pytest.raises(RepresenterError):
        document.save()
    assert path.read_bytes() == before
    assert not [p for p in blank_project.iterdir() if p.name.endswith(".tmp")]


# -- modes, links, long names, abandoned temporaries, flushing the folder -------------------------


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077, 0o002], ids=oct)
def test_new_file_gets_the_mode_the_umask_gives_any_new_file(tmp_path: Path, mask: int) -> None:
    with _umask(mask):
        write_atomic(tmp_path / "written.yaml", b"a: 1\n")
        (tmp_path / "plain.yaml").write_bytes(b"a: 1\n")  # how any program creates a file
    written = stat.S_IMODE((tmp_path / "written.yaml").stat().st_mode)
    assert written == stat.S_IMODE((tmp_path / "plain.yaml").stat().st_mode)
    assert written == 0o666 & ~mask


def test_existing_file_keeps_its_mode_whatever_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "script.py"
    target.write_bytes(b"print(1)\n")
    os.chmod(target, 0o750)
    with _umask(0o077):
        write_atomic(target, b"print(2)\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.read_bytes() == b"print(2)\n"


def test_writing_through_a_symlink_changes_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "brief.md"
    real.write_bytes(b"# old\n")
    os.chmod(real, 0o640)
    project = tmp_path / "project"
    project.mkdir()
    link = project / "brief.md"
    link.symlink_to(Path("..") / "shared" / "brief.md")
    write_atomic(link, b"# new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "shared", "brief.md")
    assert real.read_bytes() == b"# new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(project)) == ["brief.md"]
    assert sorted(os.listdir(shared)) == ["brief.md"]


def test_writing_through_a_chain_of_links_and_a_dangling_link(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_bytes(b"a: 1\n")
    (tmp_path / "middle.yaml").symlink_to("real.yaml")
    (tmp_path / "outer.yaml").symlink_to("middle.yaml")
    write_atomic(tmp_path / "outer.yaml", b"a: 2\n")
    assert real.read_bytes() == b"a: 2\n"
    assert (tmp_path / "outer.yaml").is_symlink() and (tmp_path / "middle.yaml").is_symlink()

    (tmp_path / "dangling.yaml").symlink_to("created.yaml")
    write_atomic(tmp_path / "dangling.yaml", b"b: 1\n")
    assert (tmp_path / "dangling.yaml").is_symlink()
    assert (tmp_path / "created.yaml").read_bytes() == b"b: 1\n"


def test_a_symlink_loop_is_refused_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    with pytest.raises(AtomicWriteError, match="loops back on itself") as caught:
        write_atomic(tmp_path / "a.yaml", b"x\n")
    assert isinstance(caught.value, StudioError)
    assert sorted(os.listdir(tmp_path)) == ["a.yaml", "b.yaml"]
    assert os.readlink(tmp_path / "a.yaml") == "b.yaml"


@pytest.mark.parametrize("length", [200, 201, 245, 250, 255])
def test_long_file_names_get_a_short_temporary_name(tmp_path: Path, length: int) -> None:
    target = tmp_path / ("r" * (length - 5) + ".yaml")
    assert len(target.name) == length
    write_atomic(target, b"first\n")
    write_atomic(target, b"second\n")
    assert target.read_bytes() == b"second\n"
    assert os.listdir(tmp_path) == [target.name]
    assert len(temporary_prefix(target.name)) + 12 <= 255


STALLED_WRITER = """\
import sys
import time
from pathlib import Path

from studio.store import atomic


def stall(*args, **kwargs):
    print("stalled", flush=True)  # the temporary is written and flushed; the rename never comes
    time.sleep(600)


atomic.os.replace = stall
atomic.write_atomic(Path(sys.argv[1]), b"never renamed\\n")
"""


def _temporaries(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def _start_stalled_writer(target: Path) -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-c", STALLED_WRITER, str(target)], cwd=REPO_ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line == b"stalled\n", child.stderr.read() if child.stderr else line
    return child


def _stop(child: subprocess.Popen[bytes]) -> None:
    child.kill()
    child.wait(timeout=30)
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


@pytest.mark.parametrize("name", ["rubric.yaml", "n" * 250])
def test_a_killed_save_leaves_a_temporary_that_the_next_write_removes(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    target.write_bytes(b"saved\n")
    child = _start_stalled_writer(target)
    try:
        [stray] = _temporaries(tmp_path)
        assert stray.startswith(temporary_prefix(name))
        # While its writer lives, its temporary is in use: another write leaves it alone.
        write_atomic(target, b"from a second writer\n")
        assert _temporaries(tmp_path) == [stray]
    finally:
        _stop(child)
    assert _temporaries(tmp_path) == [stray]  # the killed save's leftover
    assert target.read_bytes() == b"from a second writer\n"
    write_atomic(target, b"after the kill\n")
    assert _temporaries(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == [name]
    assert target.read_bytes() == b"after the kill\n"


def test_cleaning_removes_only_temporaries_of_the_file_being_written(tmp_path: Path) -> None:
    target = tmp_path / "rubric.yaml"
    target.write_bytes(b"a\n")
    leftovers = {
        ".rubric.yaml.k3j_9x0q.tmp": True,  # left by a killed save (earlier versions used mkstemp names)
        ".rubric.yaml.0a1b2c3d.tmp": True,
        ".rubric.yaml.bak.0a1b2c3d.tmp": False,  # a temporary of `rubric.yaml.bak`
        ".rubric.yaml.notes.tmp": False,  # not a temporary name of ours
        ".stages.yaml.0a1b2c3d.tmp": False,
        "rubric.yaml.0a1b2c3d.tmp": False,
    }
    for stray in leftovers:
        (tmp_path / stray).write_bytes(b"partial")
    write_atomic(target, b"b\n")
    remaining = set(os.listdir(tmp_path))
    assert remaining == {"rubric.yaml"} | {name for name, removed in leftovers.items() if not removed}


IGNORE_FILES = {
    "new projects": lambda: layout.GITIGNORE,
    "blank template": lambda: (TEMPLATES_DIR / "blank" / ".gitignore").read_text(encoding="utf-8"),
    "sample project": lambda: (sample_project() / ".gitignore").read_text(encoding="utf-8"),
}


@pytest.mark.parametrize("source", list(IGNORE_FILES))
def test_temporary_names_are_ignored_by_the_project_gitignore(tmp_path: Path, source: str) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text(IGNORE_FILES[source](), encoding="utf-8")
    (repo / "subtasks" / "T01").mkdir(parents=True)
    names = ["rubric.yaml", "x" * 250 + ".md", ".hidden.yaml"]
    strays = [f"subtasks/T01/{temporary_prefix(name)}0a1b2c3d.tmp" for name in names]
    for stray in strays:
        (repo / stray).write_bytes(b"partial")
    (repo / "subtasks" / "T01" / "rubric.yaml").write_bytes(b"criteria: []\n")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout
    assert sorted(status.splitlines()) == ["?? .gitignore", "?? subtasks/T01/rubric.yaml"]
    ignored = subprocess.run(["git", "check-ignore", *strays], cwd=repo, capture_output=True, text=True).stdout
    assert ignored.splitlines() == strays


def test_a_failed_flush_of_the_folder_raises_and_says_the_data_may_not_be_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "project.yaml"
    target.write_bytes(b"id: old\n")
    real_fsync = os.fsync
    flushed_files: list[int] = []

    def fsync_failing_on_folders(descriptor: int) -> None:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            raise OSError(errno.EIO, "Input/output error")
        flushed_files.append(descriptor)
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync_failing_on_folders)
    with pytest.raises(NotDurableError, match="may not be on disk") as caught:
        write_atomic(target, b"id: new\n")
    assert isinstance(caught.value, StudioError)
    assert str(target) in str(caught.value) and "Input/output error" in str(caught.value)
    assert flushed_files  # the file itself was flushed before the rename
    assert target.read_bytes() == b"id: new\n"
    assert os.listdir(tmp_path) == ["project.yaml"]


RACING_WRITER = """\
import sys
from pathlib import Path

from studio.store.atomic import write_atomic

target, tag = Path(sys.argv[1]), sys.argv[2]
print("ready", flush=True)
sys.stdin.readline()
for count in range(400):
    write_atomic(target, f"{tag} {count}\\n".encode())
"""


def test_writers_racing_on_one_file_never_take_each_others_temporaries(tmp_path: Path) -> None:
    # Each write first clears abandoned temporaries of the file: it must never mistake the other
    # writer's live temporary for one, or that writer's rename would fail.
    target = tmp_path / "rubric.yaml"
    target.write_bytes(b"start\n")
    children = [subprocess.Popen([sys.executable, "-c", RACING_WRITER, str(target), tag], cwd=REPO_ROOT,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for tag in ("first", "second")]
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write(b"go\n")
        child.stdin.close()
    codes = [child.wait(timeout=300) for child in children]
    errors = [child.stderr.read().decode() if child.stderr else "" for child in children]
    for child in children:
        _stop(child)
    assert codes == [0, 0], errors
    assert target.read_bytes() in (b"first 399\n", b"second 399\n")
    assert os.listdir(tmp_path) == ["rubric.yaml"]
