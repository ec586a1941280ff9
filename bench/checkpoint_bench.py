"""Trial runs' checkpoints (issue 12): the checkpoint store on a 200-file, 200 MB workspace, each figure
beside a floor measured in the same run.

Sections (one function each, in SECTIONS; `--only NAME` runs one):

store-size: a workspace of 200 files, 200 MB of random bytes in sizes from a few KB to ~10 MB
   (10 of them copies of others), checkpointed 14 times with 5% of the files (10) changing before
   each checkpoint after the first (64 KB rewritten in place, or 64 KB appended). Prints the
   store's size on disk (objects, manifests and their folders, as `du` counts them) over the
   unique bytes of all 14 states, counted by the bench itself. Goal: <= 1.05.
unchanged-checkpoint: a checkpoint of the unchanged workspace (a fresh CheckpointStore and its
   stat cache, as a resumed run has) against `cp -a` of the workspace; paired rounds, alternating
   which side goes first. Goal: <= 0.2.

runner: the runner's own cost per subtask (copying the released materials and the instruction in,
   creating, starting, waiting for and removing the container, storing the checkpoint and the
   harness's state, writing the run record) on the bundled sample (10 subtasks) with a script
   harness that does nothing (`true`), against `docker run --rm IMAGE true` on the same engine.
   Per run, each subtask's time is taken from its start to its checkpoint (progress events); the
   figure is the median subtask (T08 also runs its generated release's script in a second
   container: its time is printed apart). Needs a Docker engine (DOCKER_HOST) and the test image
   (scripts/test-image.sh builds it). Goal: <= 2.

Checked (exit 1 if wrong): every one of the 14 checkpoints restored (each over the one before,
into one folder) holds exactly the files of its workspace state, each with the same sha256 as the
bench computed when it wrote it; the last is also compared byte for byte with the workspace; the
store's unique bytes are the bench's own count; the unchanged checkpoint is the last one.

Usage: DOCKER_HOST=... python bench/checkpoint_bench.py [--rounds N] [--quick] [--only SECTION]
(--quick: 40 files, 20 MB, for a smoke run). MB = 10^6 bytes.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import Section, check, paired, run_sections, spread  # noqa: E402
from studio.runs.store import CheckpointStore, Manifest  # noqa: E402

GOAL_SIZE_RATIO = 1.05
GOAL_UNCHANGED_RATIO = 0.2
CHECKPOINTS = 14
MB = 1_000_000
CHANGED_SHARE = 0.05
CHANGE_BYTES = 64 << 10
# -- the workspace and its 14 checkpoints, shared by the store sections -----------------------------
@dataclass
class History:
    """A workspace checkpointed CHECKPOINTS times, and what the bench knows of each state on its own."""

    workspace: Path
    store: CheckpointStore
    stat_cache: Path
    states: list[dict[str, str]] = field(default_factory=list)  # per checkpoint: file -> sha256
    sizes: dict[str, int] = field(default_factory=dict)  # every content written: sha256 -> size
    manifests: list[Manifest] = field(default_factory=list)
    snapshot_seconds: list[float] = field(default_factory=list)


_histories: dict[Path, History] = {}


def _size_of_files(files: int, copies: int, total: int, rng: random.Random) -> list[int]:
    """Sizes of the files: the first `copies` come twice (the last files copy them); `total` bytes in all."""
    weights = [rng.lognormvariate(0, 1.3) for _ in range(files - copies)]
    scale = total / (sum(weights) + sum(weights[:copies]))
    sizes = [max(4096, int(w * scale)) for w in weights]
    sizes[-1] += total - sum(sizes) - sum(sizes[:copies])
    return sizes + sizes[:copies]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def history(args: argparse.Namespace, work: Path) -> History:
    """Build the workspace and take the 14 checkpoints once per run of the bench."""
    if work in _histories:
        return _histories[work]
    rng = random.Random(12)
    files, total = (40, 20 * MB) if args.quick else (200, 200 * MB)
    workspace = work / "workspace"
    made = History(workspace, CheckpointStore(work / "runs" / "store"), work / "runs" / "statcache.json")
    state: dict[str, str] = {}
    names = [f"dir{i % 7}/file{i:03d}.bin" for i in range(files)]
    copies = files // 20  # the last 5% are copies of the first ones: the same content stored once
    for number, (name, size) in enumerate(zip(names, _size_of_files(files, copies, total, rng))):
        data = (workspace / names[number - (files - copies)]).read_bytes() if number >= files - copies \
            else rng.randbytes(size)
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        state[name] = _sha(data)
        made.sizes[state[name]] = len(data)
    print(f"workspace: {files} files, {sum(p.stat().st_size for p in workspace.rglob('*') if p.is_file()) / MB:.1f} MB "
          f"({copies} copies of other files); {CHECKPOINTS} checkpoints, {round(files * CHANGED_SHARE)} files "
          "changing before each")
    for number in range(CHECKPOINTS):
        if number:
            for name in rng.sample(names, round(files * CHANGED_SHARE)):
                _change(workspace / name, rng)
                data = (workspace / name).read_bytes()
                state[name] = _sha(data)
                made.sizes[state[name]] = len(data)
        start = time.perf_counter()
        made.manifests.append(made.store.snapshot(workspace, stat_cache=made.stat_cache))
        made.snapshot_seconds.append(time.perf_counter() - start)
        made.states.append(dict(state))
    _histories[work] = made
    return made


def _change(path: Path, rng: random.Random) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        if rng.random() < 0.7:  # rewritten in place: same size, so only the mtime and ctime tell
            handle.seek(rng.randrange(max(1, size - CHANGE_BYTES)))
        else:
            handle.seek(0, os.SEEK_END)
        handle.write(rng.randbytes(CHANGE_BYTES))


def _hashes_of(folder: Path) -> dict[str, str]:
    found = {}
    for top, _folders, names in os.walk(folder):
        for name in names:
            path = Path(top, name)
            with open(path, "rb") as handle:
                found[path.relative_to(folder).as_posix()] = hashlib.file_digest(handle, "sha256").hexdigest()
    return found


# -- 0. the store's size ---------------------------------------------------------------------------
def bench_store_size(args: argparse.Namespace, work: Path) -> None:
    made = history(args, work)
    store = made.store
    unique = sum(made.sizes[sha] for sha in {sha for state in made.states for sha in state.values()})
    disk = store.disk_bytes()
    check(store.unique_bytes() == unique,
          f"the store holds {store.unique_bytes()} unique bytes, the workspace states {unique}")
    print(f"\nstore-size: {CHECKPOINTS} checkpoints of {made.manifests[0].total_bytes() / MB:.1f} MB each")
    print(f"  unique bytes of the 14 states: {unique / MB:.1f} MB; store on disk: {disk / MB:.1f} MB "
          f"({len(list((store.root / 'manifests').iterdir()))} manifests)")
    print(f"  ratio store / unique bytes: {disk / unique:.4f}  (goal <= {GOAL_SIZE_RATIO}: "
          f"{'met' if disk / unique <= GOAL_SIZE_RATIO else 'NOT MET'})")
    print(spread("  first checkpoint (all new)", made.snapshot_seconds[:1], " s"))
    print(spread("  checkpoints 2-14 (5% changed)", made.snapshot_seconds[1:], " s"))
    restored = work / "restored"
    differing = []
    for number, (manifest, state) in enumerate(zip(made.manifests, made.states), start=1):
        store.restore(manifest, restored)  # over the previous checkpoint: only what differs is rewritten
        if _hashes_of(restored) != state:
            differing.append(number)
    check(not differing, f"checkpoints {differing} restored are not the workspace states they were taken of")
    identical = all(filecmp.cmp(restored / name, made.workspace / name, shallow=False) for name in made.states[-1])
    check(identical and _hashes_of(made.workspace) == made.states[-1],
          "the last checkpoint restored differs from the workspace byte for byte")
    print(f"  {CHECKPOINTS - len(differing)} of {CHECKPOINTS} checkpoints restored byte-identical to their states; "
          f"the last byte for byte to the workspace: {identical}")


# -- 1. checkpointing an unchanged workspace -------------------------------------------------------
def bench_unchanged_checkpoint(args: argparse.Namespace, work: Path) -> None:
    made = history(args, work)
    copy = work / "cp-a-copy"

    def checkpoint() -> float:
        store = CheckpointStore(made.store.root)  # what a resumed run starts from: nothing in memory
        start = time.perf_counter()
        manifest = store.snapshot(made.workspace, stat_cache=made.stat_cache)
        elapsed = time.perf_counter() - start
        check(manifest == made.manifests[-1], "the unchanged workspace's checkpoint differs from the last one")
        return elapsed

    def cp_a() -> float:
        start = time.perf_counter()
        subprocess.run(["cp", "-a", str(made.workspace), str(copy)], check=True)
        elapsed = time.perf_counter() - start
        shutil.rmtree(copy)
        return elapsed

    checkpoint(), cp_a()  # warm both: the page cache holds the workspace for both sides alike
    sides, floors = paired(args.rounds, checkpoint, cp_a)
    ratios = [s / f for s, f in zip(sides, floors)]
    print(f"\nunchanged-checkpoint ({args.rounds} paired rounds):")
    print(spread("  checkpoint (stat cache)", sides, " s"))
    print(spread("  floor: cp -a", floors, " s"))
    met = statistics.median(ratios) <= GOAL_UNCHANGED_RATIO
    print(spread("  ratio", ratios) + f"  (goal: median <= {GOAL_UNCHANGED_RATIO}: {'met' if met else 'NOT MET'})")


GOAL_RUNNER_RATIO = 2.0
TEST_IMAGE = "dbstudio/test-busybox:1"


def bench_runner(args: argparse.Namespace, work: Path) -> None:
    from studio.bundled import samples_dir
    from studio.runs.record import RunStatus
    from studio.runs.runner import RunEvent, create_run, execute_run

    subprocess.run(["bash", str(ROOT / "scripts/test-image.sh")], check=True, capture_output=True)
    project = work / "sample"
    shutil.copytree(samples_dir() / "kestrel-refinancing", project)
    harness = work / "nothing.sh"
    harness.write_text("#!/bin/sh\ntrue\n", encoding="utf-8")
    generated_subtasks = {"T08"}

    def one_run() -> tuple[list[float], list[float]]:
        started: dict[str, float] = {}
        plain, generated = [], []

        def progress(event: RunEvent) -> None:
            if event.subtask is None:
                return
            if event.kind == "started":
                started[event.subtask] = time.perf_counter()
            elif event.kind == "checkpoint":
                took = time.perf_counter() - started[event.subtask]
                (generated if event.subtask in generated_subtasks else plain).append(took)

        run_dir = create_run(project, f"script:{harness}", TEST_IMAGE, runs_dir=work / "runs")
        record = execute_run(run_dir, progress)
        check(record.status == RunStatus.COMPLETED, f"the bench's run ended {record.status.value}")
        check(all(sub.checkpoint for sub in record.subtasks), "a subtask of the bench's run has no checkpoint")
        return plain, generated

    def docker_run_true() -> float:
        start = time.perf_counter()
        subprocess.run(["docker", "run", "--rm", TEST_IMAGE, "true"], check=True, capture_output=True)
        return time.perf_counter() - start

    one_run(), docker_run_true()  # warm: the image's layers and the page cache
    rounds = max(3, args.rounds // 2)
    per_subtask, floors, generated_times = [], [], []
    for number in range(rounds):
        floor_first = number % 2 == 1
        if floor_first:
            floors.append(statistics.median(docker_run_true() for _ in range(5)))
        plain, generated = one_run()
        per_subtask.append(statistics.median(plain))
        generated_times += generated
        if not floor_first:
            floors.append(statistics.median(docker_run_true() for _ in range(5)))
    ratios = [s / f for s, f in zip(per_subtask, floors)]
    print(f"\nrunner ({rounds} paired rounds; a run of the sample's 10 subtasks against 5 docker runs):")
    print(spread("  per subtask (median subtask of a run)", per_subtask, " s"))
    print(spread("  T08 with its generated release", generated_times, " s"))
    print(spread("  floor: docker run --rm IMAGE true", floors, " s"))
    met = statistics.median(ratios) <= GOAL_RUNNER_RATIO
    print(spread("  ratio", ratios) + f"  (goal: median <= {GOAL_RUNNER_RATIO}: {'met' if met else 'NOT MET'})")


SECTIONS: dict[str, Section] = {
    "store-size": bench_store_size,
    "unchanged-checkpoint": bench_unchanged_checkpoint,
    "runner": bench_runner,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="40 files, 20 MB")
    return run_sections(parser, SECTIONS, "checkpoint-bench-")

if __name__ == "__main__":
    raise SystemExit(main())
