"""Read-only YAML loading of the paper-scale corpus against libyaml's bare node pass.

The floor is `yaml.compose(text, Loader=yaml.CSafeLoader)` of every YAML file of the corpus
made by review_bench.make_corpus: the C parser building its node tree, nothing else. Measured
against it, in alternating pairs:
  - fast read: `fastyaml.load` of every file (read, parse, plain data; the node tree for
    locations is composed again on the first `locate` of a file);
  - fast read + locate: the same, then one `locate` in every file (what a review that reports
    something in every file pays);
  - project load: `load_project` of every project (the fast read plus pydantic validation).
The round-trip ruamel parse + plain() of the same files, which loads used before, is timed once.
Prints min/median/max of the paired ratios. Exits 1 if the fast read's data differ from the
round-trip parser's on any file, or if a project loads with problems or the wrong counts.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.review_bench import make_corpus  # noqa: E402
from studio.store import fastyaml  # noqa: E402
from studio.store.layout import yaml_files  # noqa: E402
from studio.store.loader import load_project  # noqa: E402
from studio.store.yamlfile import YamlDocument, plain  # noqa: E402

PAIRS = 7


def node_pass(files: list[Path]) -> None:
    for path in files:
        yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


def fast_read(files: list[Path]) -> None:
    for path in files:
        fastyaml.load(path)


def fast_read_and_locate(files: list[Path]) -> None:
    for path in files:
        document, _ = fastyaml.load(path)
        document.locate(("criteria", 0, "weight"))


def round_trip(files: list[Path]) -> None:
    for path in files:
        plain(YamlDocument.load(path).data)


def load_all(roots: list[Path]) -> int:
    return sum(len(load_project(root).problems) for root in roots)


def timed(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def summary(name: str, ratios: list[float]) -> str:
    return (f"{name}: ratio to the node pass min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x, "
            f"max {max(ratios):.2f}x over {len(ratios)} pairs")


def check(roots: list[Path], files: list[Path]) -> list[str]:
    wrong = []
    for path in files:
        _, data = fastyaml.load(path)
        if data != plain(YamlDocument.load(path).data):
            wrong.append(f"{path}: fast read differs from the round-trip parser")
    criteria = 0
    for root in roots:
        loaded = load_project(root)
        if loaded.problems:
            wrong.append(f"{root}: {len(loaded.problems)} problems, first: {loaded.problems[0]}")
        criteria += sum(1 for _ in loaded.project.all_criteria())
    if criteria < 4_000:
        wrong.append(f"only {criteria} criteria loaded")
    return wrong


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="yaml-load-bench-"))
    try:
        roots = make_corpus(base)
        files = [path for root in roots for path in yaml_files(root)]
        wrong = check(roots, files)
        size = sum(path.stat().st_size for path in files)
        fast_ratios, located_ratios, load_ratios, floors = [], [], [], []
        for _ in range(PAIRS):
            floor = timed(node_pass, files)
            fast = timed(fast_read, files)
            floor_2 = timed(node_pass, files)
            located = timed(fast_read_and_locate, files)
            floor_3 = timed(node_pass, files)
            load = timed(load_all, roots)
            floors += [floor, floor_2, floor_3]
            fast_ratios.append(fast / floor)
            located_ratios.append(located / floor_2)
            load_ratios.append(load / floor_3)
        t_round_trip = timed(round_trip, files)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    floor_median = statistics.median(floors)
    print(f"corpus: {len(roots)} projects, {len(files)} YAML files, {size / 1e6:.1f} MB")
    print(f"floor, libyaml node pass (yaml.compose, CSafeLoader): median {floor_median * 1000:.0f} ms")
    print(summary("fast read (parse + plain data)", fast_ratios))
    print(summary("fast read + one locate per file (node tree composed again)", located_ratios))
    print(summary("load_project (fast read + pydantic validation)", load_ratios))
    print(f"round-trip parse + plain(), once: {t_round_trip * 1000:.0f} ms "
          f"= {t_round_trip / floor_median:.1f}x the floor")
    for line in wrong:
        print("WRONG:", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
