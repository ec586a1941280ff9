"""Reaching a file of an agent's tree: links only inside it, regular files only, within the limits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from studio.untrusted import FILE_LIMIT, TREE_LIMIT, Limits, UntrustedFileError
from studio.untrusted.tree import HardLinks, check_tree, reach, read_bytes, real_folder, walk
from tests.untrusted.hostile import HOST_SECRET, device_node, host_secret, sparse


def _refusal(root: Path, rel: str, **kwargs: object) -> UntrustedFileError:
    with pytest.raises(UntrustedFileError) as refused:
        reach(root, rel, tree="the submission", **kwargs)  # type: ignore[arg-type]
    return refused.value


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "outputs").mkdir(parents=True)
    (root / "outputs" / "memo.md").write_text("memo\n")
    return root


def test_links_inside_the_tree_are_followed_and_every_way_out_is_refused(tmp_path: Path, tree: Path) -> None:
    secret = host_secret(tmp_path)
    project = tmp_path / "project"
    (project / "evaluator").mkdir(parents=True)
    (project / "evaluator" / "expert-notes.md").write_text("EXPERT ONLY\n")
    (tree / "outputs" / "same.md").symlink_to("memo.md")
    (tree / "outputs" / "abs-inside.md").symlink_to(tree / "outputs" / "memo.md")
    (tree / "folder-link").symlink_to("outputs")
    (tree / "absolute").symlink_to(secret)
    (tree / "relative").symlink_to("../host/passwd")
    (tree / "up-and-back").symlink_to("outputs/../../host/passwd")
    (tree / "evaluator").symlink_to(os.path.relpath(project / "evaluator", tree))
    (tree / "outside-folder").symlink_to(secret.parent)
    (tree / "dangling").symlink_to("nowhere.md")
    (tree / "loop-a").symlink_to("loop-b")
    (tree / "loop-b").symlink_to("loop-a")
    (tree / "self").symlink_to("self")

    assert reach(tree, "outputs/same.md").path == tree.resolve() / "outputs" / "memo.md"
    assert reach(tree, "outputs/abs-inside.md").path == tree.resolve() / "outputs" / "memo.md"
    assert reach(tree, "folder-link/memo.md").path == tree.resolve() / "outputs" / "memo.md"
    for rel in ("absolute", "relative", "up-and-back", "evaluator/expert-notes.md", "outside-folder/passwd"):
        refused = _refusal(tree, rel)
        assert refused.reason == "outside", rel
        assert str(refused).startswith(rel) and "outside the submission" in str(refused) or "leads out" in str(refused)
    assert _refusal(tree, "dangling").reason == "dangling"
    assert str(_refusal(tree, "loop-a")) == "loop-a is a loop of symbolic links: not read"
    assert _refusal(tree, "self").reason == "loop"
    assert _refusal(tree, "outputs").reason == "folder"
    assert _refusal(tree, "missing.md").reason == "missing"
    assert _refusal(tree, "../tree/outputs/memo.md").reason == "outside"


def test_devices_fifos_and_sockets_are_not_files(tree: Path) -> None:
    import socket

    device_node(tree / "zero")
    os.mkfifo(tree / "pipe")
    (tree / "to-zero").symlink_to("zero")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tree / "sock"))
    try:
        assert str(_refusal(tree, "zero")) == "zero is a device node, not a regular file"
        assert str(_refusal(tree, "pipe")) == "pipe is a FIFO (named pipe), not a regular file"
        assert str(_refusal(tree, "sock")) == "sock is a socket, not a regular file"
        assert _refusal(tree, "to-zero").reason == "special"
    finally:
        listener.close()
    kinds = {member.path: member.kind for member in walk(tree)}
    assert kinds["zero"] == kinds["pipe"] == kinds["sock"] == "special" and kinds["to-zero"] == "link"


def test_a_hard_link_to_a_file_outside_is_refused_but_one_inside_is_read(tmp_path: Path, tree: Path) -> None:
    secret = host_secret(tmp_path)
    os.link(secret, tree / "outputs" / "copy.txt")
    os.link(tree / "outputs" / "memo.md", tree / "outputs" / "memo-again.md")
    refused = _refusal(tree, "outputs/copy.txt")
    assert refused.reason == "limit" and "2 hard links, one of them outside the submission" in str(refused)
    links = HardLinks(walk(tree))
    assert reach(tree, "outputs/memo-again.md", links=links).info.st_nlink == 2
    with pytest.raises(UntrustedFileError, match="hard links"):
        reach(tree, "outputs/copy.txt", links=links)
    with pytest.raises(UntrustedFileError, match="copy.txt has 2 hard links"):
        check_tree(walk(tree), Limits(), "the workspace")


def test_sizes_are_capped_apparent_and_on_disk(tree: Path) -> None:
    sparse(tree / "huge.bin", FILE_LIMIT + 1)  # 512 MiB + 1 apparent, a few KiB on disk
    refused = _refusal(tree, "huge.bin", limits=Limits())
    assert str(refused) == (
        "huge.bin is 536,870,913 bytes (512.0 MiB), over the limit of 536,870,912 bytes "
        "(512.0 MiB) per file of the submission (studio.untrusted.FILE_LIMIT)"
    )
    # The other way round: 3 bytes long, 1 MiB of blocks kept on disk beyond its end.
    (tree / "small.txt").write_bytes(b"hi\n")
    subprocess.run(["fallocate", "--keep-size", "-l", "1MiB", str(tree / "small.txt")], check=True)
    with pytest.raises(
        UntrustedFileError,
        match=r"small.txt is 1,048,576 bytes \(1.0 MiB\) on disk, over the limit "
        r"of 100,000 bytes",
    ):
        reach(tree, "small.txt", limits=Limits(file_bytes=100_000))
    (tree / "small.txt").unlink()
    (tree / "huge.bin").unlink()
    for number in range(9):
        sparse(tree / f"part-{number}.bin", TREE_LIMIT // 8)
    with pytest.raises(
        UntrustedFileError,
        match=r"add up to 4,831,838,213 bytes \(4.5 GiB\), over the limit of "
        r"4,294,967,296 bytes \(4.0 GiB\) \(studio.untrusted.TREE_LIMIT\)",
    ):
        check_tree(walk(tree), Limits(), "the workspace")


def test_a_file_is_read_whole_only_under_its_limit(tmp_path: Path, tree: Path) -> None:
    assert read_bytes(tree, "outputs/memo.md", limit=100) == b"memo\n"
    with pytest.raises(UntrustedFileError, match="over the limit of 4 bytes"):
        read_bytes(tree, "outputs/memo.md", limit=4)
    (tree / "secret").symlink_to(host_secret(tmp_path))
    with pytest.raises(UntrustedFileError, match="outside"):
        read_bytes(tree, "secret", limit=100)
    assert HOST_SECRET  # the secret exists, and was not read


def test_a_folder_on_the_way_must_be_a_real_folder(tmp_path: Path, tree: Path) -> None:
    (tree / "steps").symlink_to(tmp_path / "host")
    assert real_folder(tree, "outputs") == tree / "outputs"
    assert real_folder(tree, "nothing/here") is None
    with pytest.raises(UntrustedFileError, match=r"steps in the job is a symbolic link \(to .*host\)"):
        real_folder(tree, "steps/T01/artifacts", tree="the job")
    with pytest.raises(UntrustedFileError, match="memo.md in the job is a file, not a folder"):
        real_folder(tree, "outputs/memo.md/x", tree="the job")


def test_names_that_are_not_utf8_are_walked_and_shown_escaped(tree: Path) -> None:
    os.close(os.open(os.fsencode(tree) + b"/bad-\xff.md", os.O_CREAT | os.O_WRONLY, 0o644))
    (name,) = [m.path for m in walk(tree) if m.path.startswith("bad")]
    assert os.fsencode(name) == b"bad-\xff.md"
    assert reach(tree, name).info.st_size == 0
    os.symlink(b"nowhere-\xfe", os.fsencode(tree) + b"/link-\xfe")
    (link,) = [m.path for m in walk(tree) if m.path.startswith("link")]
    assert str(_refusal(tree, link)) == "link-\\xfe is a link to nothing (dangling)"
