"""The verdict store's fingerprint, the look the window's verdict watcher compares: every `*.yaml`
entry under verdicts/ at any depth with its size and modification time, ordered as paths are."""

from __future__ import annotations

import os
from pathlib import Path

from studio.store.disk_state import verdict_fingerprint, verdict_folders


def by_rglob(root: Path) -> tuple[tuple[str, int, int], ...]:
    """The fingerprint by its definition: pathlib's rglob, sorted paths, each entry's stat."""
    store = root / "verdicts"
    found = []
    for path in sorted(store.rglob("*.yaml")):
        try:
            status = path.stat()
        except OSError:
            continue
        found.append((path.relative_to(store).as_posix(), status.st_size, status.st_mtime_ns))
    return tuple(found)


def test_the_fingerprint_lists_what_rglob_finds_in_path_order(tmp_path: Path) -> None:
    store = tmp_path / "verdicts"
    for name in ("x.yaml", "a/.hidden.yaml", "a/b.yaml/c/d.yaml", "a-b/z.yaml", "a.b/y.yaml", "a/Q.yaml",
                 "a/q.YAML", "a/notes.txt"):
        (store / name).parent.mkdir(parents=True, exist_ok=True)
        (store / name).write_text(name, encoding="utf-8")
    os.symlink(tmp_path / "nowhere", store / "a" / "broken.yaml")  # no size to give: left out
    os.symlink(store / "a-b", store / "a" / "linked")  # a symlinked folder is not walked into
    looked = verdict_fingerprint(tmp_path)
    assert looked == by_rglob(tmp_path)
    # part by part: a/... before a-b/... and a.b/..., though "-" and "." sort before "/" as characters
    assert [name for name, _, _ in looked] == ["a/.hidden.yaml", "a/Q.yaml", "a/b.yaml", "a/b.yaml/c/d.yaml",
                                               "a-b/z.yaml", "a.b/y.yaml", "x.yaml"]
    (store / "a-b" / "z.yaml").write_text("rewritten, longer", encoding="utf-8")
    assert verdict_fingerprint(tmp_path) != looked
    assert verdict_fingerprint(tmp_path / "no-such-project") == ()


def test_the_watched_folders_are_the_project_the_store_and_each_submission(tmp_path: Path) -> None:
    store = tmp_path / "verdicts"
    for name in ("run-2", "run-1", ".hidden"):
        (store / name).mkdir(parents=True)
    (store / "notes.txt").write_text("not a folder", encoding="utf-8")
    assert verdict_folders(tmp_path) == sorted(
        [str(tmp_path), str(store), str(store / ".hidden"), str(store / "run-1"), str(store / "run-2")])
    assert verdict_folders(tmp_path / "nothing-here") == []
    (tmp_path / "empty").mkdir()
    assert verdict_folders(tmp_path / "empty") == [str(tmp_path / "empty")]
