"""The checkpoint store on real files: round trips, dedup, the stat cache, diffs, exports, damage."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import tarfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.errors import StudioError
from studio.runs import store_files
from studio.runs.store import CheckpointError, CheckpointStore, Entry, Manifest

Tree = dict[str, tuple]


def tree_of(folder: Path) -> Tree:
    """What a folder holds, read independently of the store: every path with its kind and content."""
    tree: Tree = {}
    for top, folders, names in os.walk(folder):
        relative = os.path.relpath(top, folder)
        prefix = "" if relative == "." else relative + "/"
        for name in list(folders):
            path = os.path.join(top, name)
            if os.path.islink(path):
                folders.remove(name)
                tree[prefix + name] = ("link", os.readlink(path))
            else:
                tree[prefix + name] = ("dir",)
        for name in names:
            path = os.path.join(top, name)
            if os.path.islink(path):
                tree[prefix + name] = ("link", os.readlink(path))
            else:
                with open(path, "rb") as handle:
                    tree[prefix + name] = ("file", handle.read(), bool(os.lstat(path).st_mode & 0o111))
    return tree


def write(path: Path, data: bytes, executable: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o755 if executable else 0o644)
    return path


def sample_tree(root: Path) -> Path:
    write(root / "brief.md", b"# Brief\nRefinance the loan.\n")
    write(root / "materials" / "term-sheet.txt", b"rate: 5.1%\n")
    write(root / "materials" / "model.xlsx", bytes(range(256)) * 40)
    write(root / "bin" / "run.sh", b"#!/bin/sh\necho ok\n", executable=True)
    write(root / "notes" / "r\u00e9sum\u00e9 \u65e5\u672c \U0001f4c8.txt", "caf\u00e9\n".encode())
    (root / "empty" / "nested-empty").mkdir(parents=True)
    (root / "link-to-brief").symlink_to("brief.md")
    (root / "materials" / "link-to-folder").symlink_to("../notes")
    (root / "dangling").symlink_to("/nowhere/at/all")
    # a name that is not UTF-8: Linux allows any bytes but "/" and NUL
    with open(os.fsencode(root) + b"/latin1-\xe9t\xe9.txt", "wb") as handle:
        handle.write(b"latin-1 name\n")
    return root


def object_files(store_root: Path) -> list[Path]:
    return [p for p in (store_root / "objects").glob("*/*") if not p.name.startswith(".")]


def leftovers(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.rglob("*.tmp")]


def settle(cache: Path) -> None:
    """Date the stat cache a second later, as if written a clock tick after the files it knows.

    A file whose mtime is not older than the cache is hashed again by design (the racy-clean rule,
    tested on its own below); on a file system with coarse timestamps a small test's files and its
    cache can share one tick, so the tests of cache hits settle the cache first.
    """
    later = cache.stat().st_mtime_ns + 10**9
    os.utime(cache, ns=(later, later))


@pytest.fixture
def store(tmp_path: Path) -> CheckpointStore:
    return CheckpointStore(tmp_path / "runs" / "store")


def test_snapshot_then_restore_gives_the_same_tree(tmp_path: Path, store: CheckpointStore):
    workspace = sample_tree(tmp_path / "ws")
    manifest = store.snapshot(workspace)
    out = tmp_path / "restored"
    store.restore(manifest, out)
    assert tree_of(out) == tree_of(workspace)
    assert tree_of(out)["bin/run.sh"][2] is True
    assert tree_of(out)["brief.md"][2] is False
    assert leftovers(store.root, out) == []


def test_the_manifest_lists_each_path_once_and_is_named_by_its_hash(tmp_path: Path, store: CheckpointStore):
    workspace = sample_tree(tmp_path / "ws")
    manifest = store.snapshot(workspace)
    entries = manifest.entries
    assert list(entries) == sorted(entries)
    assert entries["bin/run.sh"] == Entry("file", hashlib.sha256(b"#!/bin/sh\necho ok\n").hexdigest(), 18, True, None)
    assert entries["link-to-brief"] == Entry("link", None, 0, False, "brief.md")
    assert entries["materials/link-to-folder"].kind == "link"  # a link to a folder is not followed
    assert entries["empty/nested-empty"] == Entry("dir", None, 0, False, None)
    assert "empty" not in entries and "materials" not in entries  # folders with content are implied
    assert manifest.files() == sorted(p for p, e in entries.items() if e.kind == "file")
    assert manifest.total_bytes() == sum(len(v[1]) for v in tree_of(workspace).values() if v[0] == "file")
    stored = store.root / "manifests" / f"{manifest.id}.json"
    data = stored.read_bytes()
    assert hashlib.sha256(data).hexdigest() == manifest.id
    assert data == json.dumps(json.loads(data), sort_keys=True, separators=(",", ":")).encode()
    assert store.has(manifest.id) and not store.has("0" * 64) and not store.has("not-an-id")
    assert CheckpointStore(store.root).manifest(manifest.id).entries == entries


def test_same_content_is_stored_once(tmp_path: Path, store: CheckpointStore):
    content = os.urandom(50_000)
    write(tmp_path / "ws" / "a.bin", content)
    write(tmp_path / "ws" / "deep" / "copy.bin", content, executable=True)
    first = store.snapshot(tmp_path / "ws")
    assert len(object_files(store.root)) == 1
    assert store.unique_bytes() == 50_000
    assert store.disk_bytes() >= 50_000
    other = CheckpointStore(store.root)  # a second run in the same runs folder
    write(tmp_path / "ws2" / "elsewhere.bin", content)
    other.snapshot(tmp_path / "ws2")
    assert len(object_files(store.root)) == 1
    assert store.snapshot(tmp_path / "ws") == first
    assert len(list((store.root / "manifests").iterdir())) == 2


def test_fourteen_checkpoints_with_five_percent_changes_store_only_the_changes(tmp_path: Path, store: CheckpointStore):
    rng = random.Random(12)
    workspace = tmp_path / "ws"
    names = [f"f{i:02d}.bin" for i in range(40)]
    for name in names:
        write(workspace / name, rng.randbytes(rng.randint(1, 4000)))
    contents = {p.read_bytes() for p in workspace.iterdir()}
    manifests = [store.snapshot(workspace, stat_cache=tmp_path / "statcache.json")]
    for _ in range(13):
        for name in rng.sample(names, 2):  # 5% of 40
            path = workspace / name
            data = bytearray(path.read_bytes())
            data[rng.randrange(len(data))] ^= 0xFF  # same size, new content
            path.write_bytes(bytes(data))
            contents.add(bytes(data))
        manifests.append(store.snapshot(workspace, stat_cache=tmp_path / "statcache.json"))
    assert len(object_files(store.root)) == len(contents) == 40 + 13 * 2
    assert store.unique_bytes() == sum(len(c) for c in contents)
    assert len({m.id for m in manifests}) == 14
    assert [len(store.diff(a, b).changed) for a, b in zip(manifests, manifests[1:])] == [2] * 13


# -- the stat cache --------------------------------------------------------------------------------
@pytest.fixture
def hash_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the store's reads of file contents (every read for hashing goes through hash_descriptor)."""
    calls: list[int] = []
    real = store_files.hash_descriptor

    def counting(descriptor: int) -> str:
        calls.append(descriptor)
        return real(descriptor)

    monkeypatch.setattr(store_files, "hash_descriptor", counting)
    return calls


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, store: CheckpointStore, hash_calls: list[int]):
    workspace = tmp_path / "ws"
    for i in range(5):
        write(workspace / f"file{i}.bin", os.urandom(1000 + i))
    cache = tmp_path / "statcache.json"
    first = store.snapshot(workspace, stat_cache=cache)
    assert len(hash_calls) == 5
    settle(cache)
    hash_calls.clear()
    assert store.snapshot(workspace, stat_cache=cache) == first
    assert hash_calls == []
    assert store.snapshot(workspace) == first  # without the cache every file is read
    assert len(hash_calls) == 5


def test_an_unchanged_big_file_costs_no_reads(tmp_path: Path, store: CheckpointStore):
    """Measured by the kernel's count of bytes this process read, independently of the store's code."""
    workspace = tmp_path / "ws"
    write(workspace / "big.bin", os.urandom(8 << 20))
    cache = tmp_path / "statcache.json"
    store.snapshot(workspace, stat_cache=cache)
    settle(cache)

    def bytes_read() -> int:
        fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
        return int(fields["rchar"])

    before = bytes_read()
    store.snapshot(workspace, stat_cache=cache)
    assert bytes_read() - before < 1 << 20
    before = bytes_read()
    store.snapshot(workspace)
    assert bytes_read() - before >= 8 << 20


def test_a_same_size_change_is_seen_through_mtime_and_through_ctime(
    tmp_path: Path, store: CheckpointStore, hash_calls: list[int]
):
    workspace = tmp_path / "ws"
    path = write(workspace / "data.txt", b"aaaa")
    write(workspace / "other.txt", b"unchanged")
    cache = tmp_path / "statcache.json"
    store.snapshot(workspace, stat_cache=cache)
    settle(cache)
    path.write_bytes(b"bbbb")
    os.utime(path, ns=(1, path.stat().st_mtime_ns + 1000))  # the mtime surely moves
    hash_calls.clear()
    second = store.snapshot(workspace, stat_cache=cache)
    assert second.entries["data.txt"].sha256 == hashlib.sha256(b"bbbb").hexdigest()
    assert len(hash_calls) == 1  # only the changed file
    # rewritten with its old mtime put back (cp -p, rsync -t): the ctime still moves
    old = path.stat()
    time.sleep(0.05)  # past the file system's timestamp tick, so the rewrite's ctime differs
    path.write_bytes(b"cccc")
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    assert now.st_ctime_ns != old.st_ctime_ns
    third = store.snapshot(workspace, stat_cache=cache)
    assert third.entries["data.txt"].sha256 == hashlib.sha256(b"cccc").hexdigest()


def test_a_file_as_new_as_the_cache_is_hashed_again(tmp_path: Path, store: CheckpointStore, hash_calls: list[int]):
    """Racily clean: an mtime not older than the cache could hide a write in the same clock tick."""
    workspace = tmp_path / "ws"
    path = write(workspace / "fresh.txt", b"fresh")
    write(workspace / "old.txt", b"old")
    future = path.stat().st_mtime_ns + 3600 * 10**9
    os.utime(path, ns=(future, future))
    cache = tmp_path / "statcache.json"
    store.snapshot(workspace, stat_cache=cache)
    hash_calls.clear()
    store.snapshot(workspace, stat_cache=cache)
    assert len(hash_calls) == 1


def test_a_damaged_cache_or_a_missing_object_only_costs_a_rehash(
    tmp_path: Path, store: CheckpointStore, hash_calls: list[int]
):
    workspace = tmp_path / "ws"
    write(workspace / "a.txt", b"alpha")
    write(workspace / "b.txt", b"beta")
    cache = tmp_path / "statcache.json"
    first = store.snapshot(workspace, stat_cache=cache)
    cache.write_bytes(b'{"format": 1, "files": {"a.txt": [1, 2')
    hash_calls.clear()
    assert store.snapshot(workspace, stat_cache=cache) == first
    assert len(hash_calls) == 2
    settle(cache)
    fresh_store = CheckpointStore(tmp_path / "another-store")
    hash_calls.clear()
    manifest = fresh_store.snapshot(workspace, stat_cache=cache)  # the cache knows the hashes, not these objects
    assert manifest == first and len(hash_calls) == 2
    assert fresh_store.read_bytes(manifest, "a.txt") == b"alpha"


def test_a_restore_teaches_the_cache_so_the_next_snapshot_reads_nothing(
    tmp_path: Path, store: CheckpointStore, hash_calls: list[int]
):
    manifest = store.snapshot(sample_tree(tmp_path / "ws"))
    cache = tmp_path / "statcache.json"
    store.restore(manifest, tmp_path / "out", stat_cache=cache)
    settle(cache)
    hash_calls.clear()
    assert store.snapshot(tmp_path / "out", stat_cache=cache) == manifest
    assert hash_calls == []


# -- restore into a folder that already holds things -----------------------------------------------
def test_restore_makes_a_dirty_folder_exactly_the_checkpoint_and_leaves_right_files_alone(
    tmp_path: Path, store: CheckpointStore
):
    workspace = sample_tree(tmp_path / "ws")
    manifest = store.snapshot(workspace)
    out = tmp_path / "out"
    store.restore(manifest, out)
    kept = out / "materials" / "model.xlsx"
    kept_before = kept.stat()
    chmodded = out / "bin" / "run.sh"
    chmodded.chmod(0o644)
    chmodded_inode = chmodded.stat().st_ino
    write(out / "extra.txt", b"the agent's leftover")
    write(out / "junk" / "deep" / "x.bin", b"x")
    (out / "junk" / "deep").chmod(0o555)  # an agent's read-only folder still goes
    (out / "materials" / "term-sheet.txt").write_bytes(b"rate: 9.9%\n")  # same size, other content
    (out / "brief.md").unlink()
    (out / "brief.md").mkdir()  # a folder where a file belongs
    write(out / "brief.md" / "inside.txt", b"x")
    (out / "empty" / "nested-empty").rmdir()
    (out / "empty" / "nested-empty").write_bytes(b"a file where an empty folder belongs")
    (out / "link-to-brief").unlink()
    (out / "link-to-brief").symlink_to("elsewhere")
    os.mkfifo(out / "a-pipe")
    store.restore(manifest, out)
    assert tree_of(out) == tree_of(workspace)
    assert kept.stat().st_ino == kept_before.st_ino and kept.stat().st_mtime_ns == kept_before.st_mtime_ns
    assert chmodded.stat().st_ino == chmodded_inode and chmodded.stat().st_mode & 0o111
    assert leftovers(out) == []


def test_restore_never_writes_through_a_link_standing_where_a_folder_belongs(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "data" / "result.csv", b"a,b\n")
    manifest = store.snapshot(workspace)
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "data").symlink_to(outside)
    store.restore(manifest, out)
    assert list(outside.iterdir()) == []
    assert tree_of(out) == tree_of(workspace)


names = st.text(alphabet=st.sampled_from("ab\u00e9\u65e5 .-_"), min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..")
)
contents = st.sampled_from([b"", b"one", b"two\n", b"\0binary\xff", b"x" * 3000])
nodes = st.recursive(
    st.one_of(
        st.tuples(st.just("file"), contents, st.booleans()),
        st.tuples(st.just("link"), st.sampled_from(["a", "../b", "/abs/path", "\u00e9"])),
    ),
    lambda children: st.dictionaries(names, children, max_size=4),
    max_leaves=12,
)
trees = st.dictionaries(names, nodes, max_size=5)


def build(folder: Path, tree: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, node in tree.items():
        path = folder / name
        if isinstance(node, dict):
            build(path, node)
        elif node[0] == "file":
            write(path, node[1], node[2])
        else:
            path.symlink_to(node[1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(original=trees, dirt=trees)
def test_any_tree_restored_into_any_dirty_folder_comes_back_exactly(
    tmp_path_factory: pytest.TempPathFactory, original: dict, dirt: dict
):
    base = tmp_path_factory.mktemp("tree")
    build(base / "ws", original)
    store = CheckpointStore(base / "store")
    manifest = store.snapshot(base / "ws")
    build(base / "dirty", dirt)
    store.restore(manifest, base / "dirty")
    assert tree_of(base / "dirty") == tree_of(base / "ws")
    assert store.snapshot(base / "dirty") == manifest


# -- comparing checkpoints -------------------------------------------------------------------------
def test_diff_lists_added_removed_and_changed_paths(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "keep.txt", b"same")
    write(workspace / "edit.txt", b"v1\n")
    write(workspace / "gone.txt", b"bye")
    write(workspace / "run.sh", b"echo\n")
    (workspace / "link").symlink_to("keep.txt")
    before = store.snapshot(workspace)
    (workspace / "gone.txt").unlink()
    write(workspace / "edit.txt", b"v2\n")
    write(workspace / "new" / "file.txt", b"hello")
    (workspace / "run.sh").chmod(0o755)
    (workspace / "link").unlink()
    (workspace / "link").symlink_to("edit.txt")
    after = store.snapshot(workspace)
    diff = store.diff(before, after)
    assert diff.added == ["new/file.txt"]
    assert diff.removed == ["gone.txt"]
    assert diff.changed == ["edit.txt", "link", "run.sh"]
    assert not diff.is_empty()
    assert store.diff(after, before).added == ["gone.txt"]
    assert store.diff(before, before).is_empty()


def test_text_diff_of_text_files_and_none_for_binary(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "memo.md", "# Memo\nline 1\nline 2\nr\u00e9sum\u00e9\n".encode())
    write(workspace / "data.bin", b"\x00\x01\x02")
    write(workspace / "latin1.txt", b"caf\xe9\n")
    (workspace / "link").symlink_to("memo.md")
    before = store.snapshot(workspace)
    write(workspace / "memo.md", "# Memo\nline 1\nline two\nr\u00e9sum\u00e9\n".encode())
    write(workspace / "data.bin", b"\x00\x01\x03")
    write(workspace / "added.txt", b"new\n")
    (workspace / "link").unlink()
    (workspace / "link").symlink_to("added.txt")
    after = store.snapshot(workspace)
    assert store.text_diff(before, after, "memo.md", context=1) == (
        "--- a/memo.md\n+++ b/memo.md\n@@ -2,3 +2,3 @@\n line 1\n-line 2\n+line two\n r\u00e9sum\u00e9\n"
    )
    assert store.text_diff(before, after, "added.txt") == "--- a/added.txt\n+++ b/added.txt\n@@ -0,0 +1 @@\n+new\n"
    assert store.text_diff(before, after, "link") == (
        "--- a/link\n+++ b/link\n@@ -1 +1 @@\n--> memo.md\n+-> added.txt\n"
    )
    assert store.text_diff(before, after, "data.bin") is None
    assert store.text_diff(before, before, "latin1.txt") is None  # not UTF-8
    assert store.text_diff(before, before, "memo.md") == ""
    with pytest.raises(CheckpointError, match="nowhere.txt is in neither checkpoint"):
        store.text_diff(before, after, "nowhere.txt")


def test_read_bytes_gives_a_files_content_and_refuses_the_rest(tmp_path: Path, store: CheckpointStore):
    manifest = store.snapshot(sample_tree(tmp_path / "ws"))
    assert store.read_bytes(manifest, "materials/term-sheet.txt") == b"rate: 5.1%\n"
    with pytest.raises(CheckpointError, match="link-to-brief .*is a symbolic link to brief.md"):
        store.read_bytes(manifest, "link-to-brief")
    with pytest.raises(CheckpointError, match="missing.txt is not in checkpoint"):
        store.read_bytes(manifest, "missing.txt")
    entry = manifest.entries["brief.md"]
    assert entry.sha256 is not None
    store.object_path(entry.sha256).chmod(0o644)
    store.object_path(entry.sha256).write_bytes(b"truncated")
    with pytest.raises(CheckpointError, match="brief.md .*is damaged"):
        store.read_bytes(manifest, "brief.md")


# -- exports ---------------------------------------------------------------------------------------
def test_export_folder_writes_the_checkpoint_and_refuses_a_folder_with_content(tmp_path: Path, store: CheckpointStore):
    workspace = sample_tree(tmp_path / "ws")
    manifest = store.snapshot(workspace)
    store.export_folder(manifest, tmp_path / "exports" / "new")
    assert tree_of(tmp_path / "exports" / "new") == tree_of(workspace)
    (tmp_path / "empty-dir").mkdir()
    store.export_folder(manifest, tmp_path / "empty-dir")
    assert tree_of(tmp_path / "empty-dir") == tree_of(workspace)
    full = tmp_path / "full"
    write(full / "mine.txt", b"do not touch")
    with pytest.raises(CheckpointError, match=f"Cannot export to {full}: it exists and is not an empty folder"):
        store.export_folder(manifest, full)
    assert tree_of(full) == {"mine.txt": ("file", b"do not touch", False)}
    assert leftovers(tmp_path) == []


def test_export_tar_holds_every_path_with_its_content_and_mode(tmp_path: Path, store: CheckpointStore):
    workspace = sample_tree(tmp_path / "ws")
    manifest = store.snapshot(workspace)
    out = tmp_path / "exports" / "checkpoint.tar.gz"
    store.export_tar(manifest, out)
    assert leftovers(tmp_path / "exports") == []
    seen: dict[str, tuple] = {}
    with tarfile.open(out, "r:gz") as archive:
        for member in archive.getmembers():
            if member.isfile():
                handle = archive.extractfile(member)
                assert handle is not None
                seen[member.name] = ("file", hashlib.sha256(handle.read()).hexdigest(), bool(member.mode & 0o111))
            elif member.issym():
                seen[member.name] = ("link", member.linkname)
            elif member.isdir():
                seen[member.name] = ("dir",)
    expected = {
        path: ("file", e.sha256, e.executable)
        if e.kind == "file"
        else ("link", e.target)
        if e.kind == "link"
        else ("dir",)
        for path, e in manifest.entries.items()
    }
    assert {k: v for k, v in seen.items() if v[0] != "dir" or k in expected} == expected
    assert {"materials", "notes", "bin", "empty"} <= set(seen)  # parent folders are listed too
    unpacked = tmp_path / "unpacked"
    with tarfile.open(out, "r:gz") as archive:
        archive.extractall(unpacked, filter="tar")
    assert tree_of(unpacked) == tree_of(workspace)


def test_a_failed_export_leaves_nothing(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "a.txt", b"alpha")
    write(workspace / "b.txt", b"beta")
    manifest = store.snapshot(workspace)
    sha = manifest.entries["b.txt"].sha256
    assert sha is not None
    store.object_path(sha).unlink()  # the store lost an object
    with pytest.raises(CheckpointError, match=sha[2:]):
        store.export_tar(manifest, tmp_path / "out" / "c.tar.gz")
    with pytest.raises(CheckpointError, match=sha[2:]):
        store.export_folder(manifest, tmp_path / "out" / "folder")
    assert list((tmp_path / "out").iterdir()) == []


# -- damage and failures ---------------------------------------------------------------------------
def test_a_missing_or_damaged_manifest_is_a_checkpoint_error_naming_it(tmp_path: Path, store: CheckpointStore):
    write(tmp_path / "ws" / "a.txt", b"alpha")
    manifest = store.snapshot(tmp_path / "ws")
    path = store.root / "manifests" / f"{manifest.id}.json"
    fresh = CheckpointStore(store.root)
    path.write_bytes(path.read_bytes().replace(b"alpha", b"alphb").replace(b'"size":5', b'"size":6'))
    with pytest.raises(CheckpointError, match=f"The manifest {path} is damaged"):
        fresh.manifest(manifest.id)
    path.unlink()
    with pytest.raises(CheckpointError, match=f"Checkpoint {manifest.id} is not in the store .*{path.name} is missing"):
        fresh.manifest(manifest.id)
    with pytest.raises(CheckpointError, match="'../etc' is not a checkpoint id"):
        fresh.manifest("../etc")


@pytest.mark.parametrize(
    "document",
    [
        b"not json at all",
        b'{"format":1,"entries":{"../escape":{"kind":"file","sha256":"'
        + b"a" * 64
        + b'","size":1,"executable":false}}}',
        b'{"format":1,"entries":{"a":{"kind":"link","target":"x"},"a/b":{"kind":"dir"}}}',
        b'{"format":1,"entries":{"a":{"kind":"file","sha256":"short","size":1,"executable":false}}}',
        b'{"format":2,"entries":{}}',
    ],
)
def test_a_manifest_that_matches_its_name_but_is_not_a_manifest_is_refused(tmp_path: Path, document: bytes):
    store = CheckpointStore(tmp_path / "store")
    manifest_id = hashlib.sha256(document).hexdigest()
    path = store.root / "manifests" / f"{manifest_id}.json"
    write(path, document)
    with pytest.raises(CheckpointError, match=f"The manifest {path} is not a checkpoint manifest"):
        store.manifest(manifest_id)


def test_a_file_vanishing_during_the_walk_is_named(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "stays.txt", b"x")
    doomed = write(workspace / "vanishes.txt", b"y")

    def remove_while_walking(path: str) -> bool:
        if path == "vanishes.txt":
            doomed.unlink()
        return False

    with pytest.raises(CheckpointError, match="vanishes.txt"):
        store.snapshot(workspace, exclude=remove_while_walking)
    assert not (store.root / "manifests").exists() or list((store.root / "manifests").iterdir()) == []


def test_checkpointing_a_missing_folder_is_refused(tmp_path: Path, store: CheckpointStore):
    with pytest.raises(CheckpointError, match="is not a folder"):
        store.snapshot(tmp_path / "nowhere")
    assert issubclass(CheckpointError, StudioError)


def test_a_file_that_keeps_changing_is_refused_and_a_changed_copy_is_redone(
    tmp_path: Path, store: CheckpointStore, monkeypatch: pytest.MonkeyPatch
):
    workspace = tmp_path / "ws"
    path = write(workspace / "log.txt", b"line\n")
    real_hash = store_files.hash_descriptor

    def hash_then_append(descriptor: int) -> str:
        digest = real_hash(descriptor)
        with open(path, "ab") as handle:  # a writer still at work
            handle.write(b"more\n")
        return digest

    monkeypatch.setattr(store_files, "hash_descriptor", hash_then_append)
    with pytest.raises(CheckpointError, match="log.txt kept changing while it was checkpointed"):
        store.snapshot(workspace)
    monkeypatch.setattr(store_files, "hash_descriptor", real_hash)
    real_copy = store_files.copy_descriptor
    writes = [b"changed during the copy\n"]

    def copy_then_write(source: int, target: int) -> None:
        real_copy(source, target)
        if writes:
            with open(path, "ab") as handle:
                handle.write(writes.pop())

    monkeypatch.setattr(store_files, "copy_descriptor", copy_then_write)
    manifest = store.snapshot(workspace)
    stored = object_files(store.root)
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in stored] == [p.parent.name + p.name for p in stored]
    assert store.read_bytes(manifest, "log.txt") == path.read_bytes()
    assert leftovers(store.root) == []


def test_a_failed_copy_leaves_no_object_no_temporary_and_no_manifest(
    tmp_path: Path, store: CheckpointStore, monkeypatch: pytest.MonkeyPatch
):
    write(tmp_path / "ws" / "a.bin", os.urandom(10_000))

    def disk_full(source: int, target: int) -> None:
        os.write(target, b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_files, "copy_descriptor", disk_full)
    with pytest.raises(CheckpointError, match="No space left on device"):
        store.snapshot(tmp_path / "ws")
    assert object_files(store.root) == []
    assert leftovers(store.root) == []
    assert not (store.root / "manifests").exists()


def test_excluded_paths_stay_out_and_a_folder_left_empty_by_them_is_kept(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    write(workspace / "work" / "result.txt", b"r")
    write(workspace / ".cache" / "big.bin", b"c" * 100)
    write(workspace / "scratch" / "tmp.o", b"o")
    seen: list[str] = []

    def exclude(path: str) -> bool:
        seen.append(path)
        return path == ".cache" or path.endswith(".o")

    manifest = store.snapshot(workspace, exclude=exclude)
    assert dict(manifest.entries) == {
        "scratch": Entry("dir", None, 0, False, None),
        "work/result.txt": manifest.entries["work/result.txt"],
    }
    assert ".cache/big.bin" not in seen and "work/result.txt" in seen


def test_manifests_build_the_same_id_however_the_entries_are_ordered():
    entries = {"b": Entry("dir", None, 0, False, None), "a": Entry("link", None, 0, False, "b")}
    forward = Manifest.build(entries)
    backward = Manifest.build(dict(reversed(list(entries.items()))))
    assert forward.id == backward.id and list(forward.entries) == ["a", "b"]
    assert forward == backward and hash(forward) == hash(backward)
    assert forward.id == hashlib.sha256(forward.canonical_json()).hexdigest()


def test_a_manifest_can_be_made_of_files_already_stored(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    (folder / "outputs").mkdir(parents=True)
    (folder / "outputs/report.md").write_bytes(b"final words\n")
    store = CheckpointStore(tmp_path / "store")
    checkpoint = store.snapshot(folder)
    package = store.put_manifest({"final/report.md": checkpoint.entries["outputs/report.md"]})
    assert store.manifest(package.id).files() == ["final/report.md"]
    assert store.read_bytes(package, "final/report.md") == b"final words\n"
    missing = Entry("file", "0" * 64, 3, False, None)
    with pytest.raises(CheckpointError, match="not in the store"):
        store.put_manifest({"x.md": missing})
    with pytest.raises(CheckpointError, match="not a relative path"):
        store.put_manifest({"../x.md": checkpoint.entries["outputs/report.md"]})


# -- agent-controlled workspaces (studio.untrusted) ---------------------------------------------
def test_a_sparse_file_over_the_file_limit_is_refused_before_anything_is_stored(tmp_path: Path, store: CheckpointStore):
    from tests.untrusted.hostile import sparse

    workspace = sample_tree(tmp_path / "ws")
    sparse(workspace / "outputs-1g.bin", 1 << 30)  # 1 GiB apparent, a few KiB on disk
    with pytest.raises(CheckpointError) as refused:
        store.snapshot(workspace)
    assert (
        "outputs-1g.bin is 1,073,741,824 bytes (1.0 GiB), over the limit of 536,870,912 bytes (512.0 MiB) "
        "per file of the workspace (studio.untrusted.FILE_LIMIT)" in str(refused.value)
    )
    assert not store.root.exists() or store.disk_bytes() < 64 << 10  # nothing was copied in
    (workspace / "outputs-1g.bin").unlink()
    sparse(workspace / "ten.bin", 10 << 30)
    with pytest.raises(CheckpointError, match="ten.bin is 10,737,418,240 bytes"):
        store.snapshot(workspace)
    assert store.disk_bytes() < 64 << 10


def test_a_hard_link_to_a_file_outside_the_workspace_is_refused(tmp_path: Path, store: CheckpointStore):
    from tests.untrusted.hostile import host_secret

    workspace = sample_tree(tmp_path / "ws")
    os.link(workspace / "brief.md", workspace / "brief-again.md")  # both names inside: fine
    assert store.snapshot(workspace).entries["brief-again.md"].kind == "file"
    os.link(host_secret(tmp_path), workspace / "passwd")
    with pytest.raises(CheckpointError, match="passwd has 2 hard links, one of them outside the workspace"):
        store.snapshot(workspace)


def test_text_diff_shows_names_and_link_targets_escaped(tmp_path: Path, store: CheckpointStore):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    name = "evil\x1b[2J\nname.txt"
    (workspace / name).write_text("one\n")
    (workspace / "link").symlink_to("\x1b]0;pwned\x07")
    before = store.snapshot(workspace)
    (workspace / name).write_text("two\n")
    (workspace / "link").unlink()
    (workspace / "link").symlink_to("plain")
    after = store.snapshot(workspace)
    text = store.text_diff(before, after, name)
    assert text is not None and text.startswith("--- a/evil\\x1b[2J\\nname.txt\n+++ b/evil\\x1b[2J\\nname.txt\n")
    assert "\x1b" not in (store.text_diff(before, after, "link") or "")
