"""Writing a release into an agent's workspace never writes through a link it planted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studio.untrusted import UntrustedFileError
from studio.untrusted.writing import write_file
from tests.untrusted.hostile import HOST_SECRET, host_secret


@pytest.fixture
def release(tmp_path: Path) -> Path:
    source = tmp_path / "inputs" / "release.pdf"
    source.parent.mkdir()
    source.write_bytes(b"%PDF-1.7 released material\n")
    return source


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


def test_a_plain_release_is_written_with_no_repair(workspace: Path, release: Path) -> None:
    assert write_file(workspace, "materials/sub/release.pdf", release) == []
    written = workspace / "materials" / "sub" / "release.pdf"
    assert written.read_bytes() == release.read_bytes() and oct(written.stat().st_mode & 0o7777) == "0o644"
    (workspace / "materials" / "sub" / "release.pdf").write_text("the agent's edit")
    assert write_file(workspace, "materials/sub/release.pdf", release) == []  # released again: replaced
    assert written.read_bytes() == release.read_bytes()


def test_a_link_where_the_materials_folder_belongs_is_replaced_not_followed(
    tmp_path: Path, workspace: Path, release: Path
) -> None:
    host = tmp_path / "host-folder"
    host.mkdir()
    (workspace / "materials").symlink_to(host)
    repairs = write_file(workspace, "materials/release.pdf", release)
    assert repairs == [f"materials in the workspace was a symbolic link to {host}: replaced by a folder"]
    assert list(host.iterdir()) == []
    assert (workspace / "materials").is_dir() and not (workspace / "materials").is_symlink()
    assert (workspace / "materials" / "release.pdf").read_bytes() == release.read_bytes()


def test_a_link_where_the_file_belongs_is_replaced_and_its_target_untouched(
    tmp_path: Path, workspace: Path, release: Path
) -> None:
    secret = host_secret(tmp_path)
    project = tmp_path / "project" / "evaluator"
    project.mkdir(parents=True)
    (project / "expert-notes.md").write_text("EXPERT NOTES\n")
    (workspace / "materials").mkdir()
    (workspace / "materials" / "a.pdf").symlink_to(secret)
    (workspace / "materials" / "b.pdf").symlink_to(
        os.path.relpath(project / "expert-notes.md", workspace / "materials")
    )
    (workspace / "materials" / "c.pdf").symlink_to("c.pdf")  # a loop
    (workspace / "materials" / "d.pdf").symlink_to("../../nowhere/d.pdf")  # dangling, out of the tree
    os.link(secret, workspace / "materials" / "e.pdf")  # a hard link: rewriting it in place would change the host file
    os.mkfifo(workspace / "materials" / "f.pdf")
    (workspace / "materials" / "g.pdf").mkdir()
    (workspace / "materials" / "g.pdf" / "inner").symlink_to(secret)
    repairs = []
    for name in "abcdefg":
        repairs += write_file(workspace, f"materials/{name}.pdf", release)
    assert secret.read_text() == HOST_SECRET and (project / "expert-notes.md").read_text() == "EXPERT NOTES\n"
    for name in "abcdefg":
        path = workspace / "materials" / f"{name}.pdf"
        assert not path.is_symlink() and path.read_bytes() == release.read_bytes(), name
    assert repairs == [
        f"materials/a.pdf in the workspace was a symbolic link to {secret}: replaced by the released file",
        "materials/b.pdf in the workspace was a symbolic link to ../../project/evaluator/expert-notes.md: "
        "replaced by the released file",
        "materials/c.pdf in the workspace was a symbolic link to c.pdf: replaced by the released file",
        "materials/d.pdf in the workspace was a symbolic link to ../../nowhere/d.pdf: replaced by the released file",
        "materials/f.pdf in the workspace was a FIFO (named pipe): replaced by the released file",
        "materials/g.pdf in the workspace was a folder: replaced by the released file",
    ]
    assert os.stat(secret).st_nlink == 1  # the hard link was replaced, not written into


def test_a_file_where_a_folder_belongs_and_a_bad_path_are_handled(workspace: Path, release: Path) -> None:
    (workspace / "materials").write_text("the agent's file")
    assert write_file(workspace, "materials/x.pdf", release) == [
        "materials in the workspace was a file: replaced by a folder"
    ]
    for bad in ("../escape.pdf", "/etc/passwd", ""):
        with pytest.raises(UntrustedFileError, match="is not a relative path inside the workspace"):
            write_file(workspace, bad, release)


def test_the_workspace_itself_must_not_be_a_link(tmp_path: Path, release: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "workspace").symlink_to(tmp_path / "real")
    with pytest.raises(UntrustedFileError, match="must be a real folder, not a link"):
        write_file(tmp_path / "workspace", "materials/x.pdf", release)
    assert list((tmp_path / "real").iterdir()) == []
