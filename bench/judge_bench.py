"""Judging (issue 14): the LLM judge against a local chat-completions server, each figure beside a floor
measured in the same run.

Sections (one function each, in SECTIONS; `--only NAME` runs one):

judge: 1,000 criteria of one rubric judged through `judge_submission` (batches of 8, 4 at once, the
   verdicts written to the verdict store) against a loopback server that answers every request after
   a fixed 200 ms. Printed as a ratio to the ideal for 8 x 4 batching, 1,000 / 32 x 0.2 s = 6.25 s
   (goal: median <= 1.2), and as a ratio to a floor measured in the same run: the same 125 requests
   (prompts of the same size) sent 4 at a time by a bare httpx client that parses nothing and writes
   nothing. Paired rounds, alternating which side goes first.

Checked (exit 1 if wrong): every criterion stored once with the verdict the server gave it, 125
requests of at most 8 criteria, never more than 4 at once.

Usage: python bench/judge_bench.py [--rounds N] [--only SECTION]
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.judging.chat_server import ChatServer, Reply, Request, completion, verdicts_json  # noqa: E402

LATENCY_S = 0.2
CRITERIA = 1000
BATCH, PARALLEL = 8, 4
IDEAL_S = CRITERIA / (BATCH * PARALLEL) * LATENCY_S
GOAL_JUDGE_RATIO = 1.2
MODEL = "bench-judge"
SCOPE = "T01"
wrong: list[str] = []


def check(ok: bool, problem: str) -> None:
    if not ok and problem not in wrong:
        wrong.append(problem)


def spread(label: str, values: list[float], unit: str = "") -> str:
    return (f"{label}: min {min(values):.3f}{unit}  median {statistics.median(values):.3f}{unit}  "
            f"max {max(values):.3f}{unit}")


def paired(rounds: int, side: Callable[[], float], floor: Callable[[], float]) -> tuple[list[float], list[float]]:
    """Run both sides each round, alternating which goes first."""
    sides, floors = [], []
    for number in range(rounds):
        if number % 2:
            floors.append(floor())
            sides.append(side())
        else:
            sides.append(side())
            floors.append(floor())
    return sides, floors


# -- judge ------------------------------------------------------------------------------------------
def _verdict_of(cid: str) -> str:
    return "fail" if int(cid.rsplit("C", 1)[1]) % 3 == 0 else "pass"


def _answer(request: Request) -> Reply:
    return Reply(body=completion(verdicts_json(request.ids, _verdict_of)))


def _project(work: Path) -> Path:
    root = work / "project"
    shutil.copytree(ROOT / "resources" / "templates" / "blank", root)
    lines = ["criteria:"]
    for n in range(1, CRITERIA + 1):
        lines += [f"  - id: T01-C{n:04d}", f"    text: The report states point {n} of the brief with its source.",
                  "    covers:", "      - T01:outputs/report.md", "    target: checkpoint",
                  "    dimension: completeness", f"    weight: {-2 if n % 7 == 0 else 3}"]
    (root / "subtasks" / "T01" / "rubric.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _submission(work: Path) -> Path:
    folder = work / "submission"
    (folder / "outputs").mkdir(parents=True)
    paragraphs = [f"Point {n}: the figure is {n * 37 % 1000},{n * 91 % 1000:03d} per the source notes." for n in
                  range(1, 200)]
    (folder / "outputs" / "report.md").write_text("# Report\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return folder


def bench_judge(args: argparse.Namespace, work: Path) -> None:
    from studio.judging.judge import JudgeSettings, judge_submission
    from studio.judging.prompt import messages
    from studio.judging.scope import scope_context
    from studio.judging.submission import submission_of_folder
    from studio.judging.verdict_store import VerdictStore
    from studio.store.loader import load_project

    project = _project(work)
    loaded = load_project(project)
    check(not loaded.problems, f"the bench project does not load: {loaded.problems[:1]}")
    submission = submission_of_folder(_submission(work), SCOPE)
    requests = math.ceil(CRITERIA / BATCH)
    print(f"judge: {CRITERIA} criteria, batches of {BATCH}, {PARALLEL} at once, {LATENCY_S * 1000:.0f} ms per "
          f"request ({requests} requests); ideal {IDEAL_S:.2f} s")
    with ChatServer(_answer, latency_s=LATENCY_S) as server:
        settings = JudgeSettings(base_url=server.url, model=MODEL, batch=BATCH, parallel=PARALLEL, timeout_s=30)
        # the floor's requests: as long as the judge's, with 8 criteria each
        context = scope_context(loaded, SCOPE)
        from studio.judging.evidence import extract_evidence
        from studio.judging.prompt import AskedCriterion

        evidence = extract_evidence(submission.folder).render()
        floor_bodies = []
        for number in range(requests):
            ids = [f"T01-C{n:04d}" for n in range(number * BATCH + 1, min(CRITERIA, (number + 1) * BATCH) + 1)]
            asked = [AskedCriterion(cid, "The report states a point of the brief with its source.", 3) for cid in ids]
            floor_bodies.append({"model": MODEL, "messages": messages(context, asked, evidence), "temperature": 0})

        def judged() -> float:
            store_dir = work / f"store-{time.monotonic_ns()}"
            shutil.copytree(project, store_dir)
            fresh = load_project(store_dir)
            server.requests.clear()
            server.max_concurrent = 0
            start = time.perf_counter()
            summary = judge_submission(fresh, submission, settings, VerdictStore(store_dir))
            took = time.perf_counter() - start
            verdicts = VerdictStore(store_dir).read(submission.id, settings.rater)
            check(summary.judged == CRITERIA and summary.missing == 0, f"judge: {summary}")
            check(len(verdicts) == CRITERIA and all(v.verdict == _verdict_of(v.criterion) for v in verdicts),
                  "judge: the stored verdicts are not the server's")
            check(len(server.requests) == requests and max(len(r.ids) for r in server.requests) <= BATCH,
                  f"judge: {len(server.requests)} requests, not {requests} of at most {BATCH} criteria")
            check(server.max_concurrent <= PARALLEL, f"judge: {server.max_concurrent} requests at once")
            shutil.rmtree(store_dir)
            return took

        def bare() -> float:
            start = time.perf_counter()
            with httpx.Client(timeout=30, limits=httpx.Limits(max_connections=PARALLEL)) as client:
                def send(body: dict) -> int:
                    return client.post(f"{server.url}/chat/completions", json=body).status_code

                with ThreadPoolExecutor(PARALLEL) as pool:
                    codes = list(pool.map(send, floor_bodies))
            check(codes == [200] * requests, "floor: a bare request failed")
            return time.perf_counter() - start

        sides, floors = paired(args.rounds, judged, bare)
    print(spread("  judge", sides, " s"))
    print(spread("  floor (bare httpx, same requests)", floors, " s"))
    print(spread("  ratio to the floor", [s / f for s, f in zip(sides, floors)]))
    ratios = [s / IDEAL_S for s in sides]
    met = statistics.median(ratios) <= GOAL_JUDGE_RATIO
    print(spread("  ratio to the ideal", ratios) + f"  (goal: median <= {GOAL_JUDGE_RATIO}: "
          f"{'met' if met else 'NOT MET'})")


SECTIONS: dict[str, Callable[[argparse.Namespace, Path], None]] = {
    "judge": bench_judge,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=sorted(SECTIONS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as folder:
        for name, section in SECTIONS.items():
            if args.only in (None, name):
                section(args, Path(folder))
    if wrong:
        print("WRONG ANSWERS:\n  " + "\n  ".join(wrong))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
