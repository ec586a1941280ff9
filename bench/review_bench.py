"""Load, validate and review generated projects, against libyaml's node pass over their YAML.

Two corpora. The paper-scale one: 11 projects, 150 subtasks, 661 small materials, about 4,300
criteria (3,828 checkpoint, 313 cross-file, 172 package) plus reused final criteria. The large
one: a single project whose one checkpoint rubric holds 5,000 criteria, all reused by the final
rubric, with problems seeded in known numbers.

The floor is `yaml.compose(text, Loader=yaml.CSafeLoader)` over every project YAML file: the
least any reader of these files pays. Each round times the floor and then load, validate and
review (or the other way round, alternating), and the ratios are paired per round; the bench
prints their min, median and max per phase. It exits 1 when the findings by rule differ from
what the generators put in, whatever the times.
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.review import review_loaded  # noqa: E402
from studio.review.texts import _file_text_cached  # noqa: E402
from studio.store.layout import GITIGNORE, yaml_files  # noqa: E402
from studio.store.loader import load_project  # noqa: E402
from studio.validation.validate import validate_loaded  # noqa: E402

T = TypeVar("T")

PROJECTS, SUBTASKS, MATERIALS = 11, 150, 661
CHECKPOINT_CRITERIA, CROSS_FILE, PACKAGE, REUSED = 3828, 313, 172, 1150
DIMENSIONS = ["correctness", "completeness", "consistency", "professionalism", "usability"]
WORDS = (
    "facility margin covenant leverage ebitda lender approval permit condition schedule memo model "
    "assumption tenor amortisation borrower security valuation headroom downside update package"
).split()


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _q(text: str) -> str:
    return text  # plain scalars: the generated prose has no YAML-special characters


def _write_project_file(root: Path, pid: str, title: str, deliverables: list[tuple[str, str]],
                        comment: str | None = None) -> None:
    """project.yaml with one final deliverable per (id, producing subtask)."""
    lines = [comment] if comment else []
    lines += [
        "schema_version: 1",
        f"id: {pid}",
        f"title: {title}",
        "domain: Finance",
        "role: Associate",
        "client: Client",
        "objective: Deliver the package.",
        "brief: brief.md",
        "delivery:",
        "  scope: The package.",
        "  acceptance:",
        "    - id: AC1",
        "      text: Everything agrees.",
        "  final_deliverables:",
    ]
    for did, sid in deliverables:
        lines += [
            f"    - id: {did}",
            f"      path: final/{did}.md",
            f"      title: Deliverable {did}",
            f"      produced_by: {sid}:outputs/{sid}-main.md",
        ]
    (root / "project.yaml").write_text("\n".join(lines) + "\n")


REVIEWER = "Bench Expert"


def _criterion(cid: str, text: str, covers: list[str], target: str, dimension: str, weight: int,
               status: str = "approved", reviewer: str | None = REVIEWER, tests: tuple[str, ...] = ()) -> list[str]:
    """One rubric entry's lines, in the order every generated rubric writes them."""
    lines = [f"  - id: {cid}", f"    text: {text}", "    covers:", *(f"      - {c}" for c in covers),
             f"    target: {target}", f"    dimension: {dimension}", f"    weight: {weight}",
             *(["    tests:"] if tests else []), *(f"      - {t}" for t in tests),
             "    review:", f"      status: {status}"]
    return lines + ([f"      reviewer: {reviewer}"] if reviewer else [])


def _write_subtask_file(folder: Path, sid: str, inputs: list[str], outputs: list[str]) -> None:
    lines = [f"id: {sid}", f"title: Subtask {sid}", "instruction: instruction.md", "inputs:"]
    lines += [f"  - {m}" for m in inputs] + ["outputs:"] + [f"  - path: {o}" for o in outputs]
    (folder / "subtask.yaml").write_text("\n".join([*lines, "time_limit_minutes: 240"]) + "\n")


def make_project(
    root: Path,
    index: int,
    n_sub: int,
    n_mat: int,
    n_crit: int,
    n_cross: int,
    n_pkg: int,
    n_reuse: int,
    rng: random.Random,
) -> None:
    pid = f"p{index:02d}"
    subtasks = [f"T{i + 1:02d}" for i in range(n_sub)]
    stage_of = {sid: f"S{1 + i * 3 // n_sub}" for i, sid in enumerate(subtasks)}
    (root / "materials").mkdir(parents=True)
    (root / "evaluator").mkdir()
    (root / "final").mkdir()
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "brief.md").write_text(f"# Brief of {pid}\n\n{_prose(rng, 80)}\n")
    deliverables = [(f"F{i + 1}", subtasks[-1 - (i % n_sub)]) for i in range(min(6, n_sub))]
    _write_project_file(root, pid, f"Project {pid}", deliverables, "# Synthetic project for the review benchmark.")
    stages: dict[str, list[str]] = {}
    for sid in subtasks:
        stages.setdefault(stage_of[sid], []).append(sid)
    lines = ["stages:"]
    for stage, members in stages.items():
        lines += [f"  - id: {stage}", f"    title: Stage {stage}", "    subtasks:"] + [f"      - {s}" for s in members]
    (root / "stages.yaml").write_text("\n".join(lines) + "\n")
    releases = ["start"] * (n_mat // 3) + [rng.choice(subtasks[1:] or subtasks) for _ in range(n_mat - n_mat // 3)]
    lines = ["materials:"]
    material_release = {}
    for m, release in enumerate(releases):
        mid = f"M{m + 1:03d}"
        suffix = ".csv" if m % 4 == 0 else ".md"
        (root / "materials" / f"{mid}{suffix}").write_text(
            "a,b,c\n"
            + "\n".join(f"{rng.randint(1, 999)},{rng.random():.3f},{rng.choice(WORDS)}" for _ in range(20))
            + "\n"
            if suffix == ".csv"
            else f"# {mid}\n\n{_prose(rng, 120)}\n"
        )
        lines += [
            f"  - id: {mid}",
            f"    file: {mid}{suffix}",
            f"    title: Material number {mid}",
            f"    kind: {'source_record' if release == 'start' else 'new_evidence'}",
            "    provenance: reconstructed_material",
        ]
        lines += (
            ["    release:", "      at: start"]
            if release == "start"
            else ["    release:", "      at: before", f"      subtask: {release}"]
        )
        material_release[mid] = 0 if release == "start" else subtasks.index(release) + 1
    (root / "materials.yaml").write_text("\n".join(lines) + "\n")
    lines = ["references:"]
    for r in range(3):
        (root / "evaluator" / f"ref{r}.md").write_text(f"# Reference {r}\n\n{_prose(rng, 200)}\n")
        lines += [f"  - id: R{r}", f"    file: ref{r}.md", f"    title: Reference {r}", "    for:", "      - final"]
    (root / "evaluator" / "references.yaml").write_text("\n".join(lines) + "\n")
    handoffs = []
    per_sub = _split(n_crit, n_sub)
    checkpoint_ids = []
    for i, sid in enumerate(subtasks):
        folder = root / "subtasks" / sid
        folder.mkdir(parents=True)
        available = [mid for mid, at in material_release.items() if at <= i + 1]
        inputs = rng.sample(available, min(len(available), 4))
        outputs = [f"outputs/{sid}-main.md", f"outputs/{sid}-annex.xlsx"]
        (folder / "instruction.md").write_text(
            f"# {sid}\n\nUsing {', '.join(inputs)}, write {outputs[0]} and {outputs[1]}.{_builds_on(subtasks, i)} "
            f"{_prose(rng, 150)}\n"
        )
        _write_subtask_file(folder, sid, inputs, outputs)
        lines = [f"# Checkpoint rubric of {sid}.", "criteria:"]
        for c in range(per_sub[i]):
            cid = f"{sid}-C{c + 1:02d}"
            weight = rng.choice([2, 3, 5, 8, -3]) if c else 6
            lines += _criterion(cid, _q(_prose(rng, 25)), [f"{sid}:{outputs[c % 2]}"], "checkpoint",
                                rng.choice(DIMENSIONS), weight)
            if weight > 0:
                checkpoint_ids.append((cid, sid))
        (folder / "rubric.yaml").write_text("\n".join(lines) + "\n")
        if i:
            handoffs.append((f"{subtasks[i - 1]}:outputs/{subtasks[i - 1]}-main.md", sid))
    (root / "dependencies.yaml").write_text(
        "\n".join(["handoffs:"] + [f"  - from: {a}\n    to: {b}\n    carries: The figures." for a, b in handoffs])
        + "\n"
    )
    lines = ["# Final rubric.", "criteria:"]
    deliverable_of = dict((sid, did) for did, sid in deliverables)
    reused = [c for c in checkpoint_ids if c[1] in deliverable_of][:n_reuse]
    for cid, sid in reused:
        lines += [f"  - reuse_of: {cid}", "    covers:", f"      - {deliverable_of[sid]}"]
    for did, _ in deliverables:
        lines += _criterion(f"A-{did}", _prose(rng, 20), [did], "artifact", "professionalism", 4)
    for x in range(n_cross):
        pair = rng.sample([d for d, _ in deliverables], 2)
        lines += _criterion(f"X-{x + 1:03d}", _prose(rng, 20), pair, "cross-file", "consistency", 5)
    for p in range(n_pkg):
        lines += _criterion(f"P-{p + 1:03d}", _prose(rng, 20), ["package"], "package", "completeness", 3,
                            tests=("AC1",))
    (root / "final" / "rubric.yaml").write_text("\n".join(lines) + "\n")


def _builds_on(subtasks: list[str], i: int) -> str:
    """The sentence naming the file handed to the i-th subtask (every instruction names what it receives)."""
    return f" Build on outputs/{subtasks[i - 1]}-main.md." if i else ""


def make_corpus(base: Path, seed: int = 11) -> list[Path]:
    rng = random.Random(seed)
    roots = []
    for i, (n_sub, n_mat, n_crit, n_cross, n_pkg, n_reuse) in enumerate(
        zip(  # all of length PROJECTS
            _split(SUBTASKS, PROJECTS),
            _split(MATERIALS, PROJECTS),
            _split(CHECKPOINT_CRITERIA, PROJECTS),
            _split(CROSS_FILE, PROJECTS),
            _split(PACKAGE, PROJECTS),
            _split(REUSED, PROJECTS),
            strict=True,
        )
    ):
        root = base / f"p{i:02d}"
        make_project(root, i, n_sub, n_mat, n_crit, n_cross, n_pkg, n_reuse, rng)
        roots.append(root)
    return roots


# The 5,000-criterion project: one checkpoint rubric of LARGE_CRITERIA criteria, all reused by the
# final rubric, with problems seeded in known numbers so the review's answer can be checked.
LARGE_CRITERIA = 5000
LARGE_MATERIALS = 60  # a third each at start, before T02 and before T03
SEED_LATE_IN_CRITERIA = 7  # T01 criteria whose text names a material released before T03
SEED_LATE_IN_INSTRUCTION = 2  # materials released before T03 named in the T01 instruction
SEED_DRAFTS = 5  # T01 criteria still in draft
SEED_NO_REVIEWER = 3  # approved T01 criteria without a reviewer
SEED_UNKNOWN_REUSE = 2  # final entries reusing a criterion that does not exist
SEED_QUOTES = 1  # materials quoting 15 words of a reference
SEED_UNCHECKED_CORRECTIONS = 1  # a material that corrects another, checked by no criterion
SEED_LATE_FIGURES = 1  # the T01 instruction states a figure only a material released before T03 holds
SEED_LATE_CRITERION_FIGURES = 1  # a T01 criterion expects another figure only that material holds
SEED_PARAPHRASES = 1  # the T02 instruction rewords a note of the reference
SEED_UNLISTED_MATERIALS = 1  # the T03 instruction works on a released material not in its inputs
SEED_UNHANDED_OUTPUTS = 1  # the T03 instruction works on T01's annex, which no handoff brings
LATE_FIGURE, LATE_CRITERION_FIGURE = "4.87x", "5.12x"
REFERENCE_NOTE = "Lenders privately accept a covenant reset only after the sponsor injects fresh equity."
PARAPHRASE = "Only after fresh sponsor equity will lenders privately accept a covenant reset."


def make_large_project(root: Path, seed: int = 5) -> None:
    rng = random.Random(seed)
    subtasks = ["T01", "T02", "T03"]
    (root / "materials").mkdir(parents=True)
    (root / "evaluator").mkdir()
    (root / "final").mkdir()
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "brief.md").write_text(f"# Brief\n\n{_prose(rng, 80)}\n")
    deliverables = [("F1", "T03"), ("F2", "T02")]
    _write_project_file(root, "large", "Large project", deliverables)
    (root / "stages.yaml").write_text(
        "stages:\n  - id: S1\n    title: First\n    subtasks:\n      - T01\n"
        "  - id: S2\n    title: Second\n    subtasks:\n      - T02\n      - T03\n"
    )
    third = LARGE_MATERIALS // 3
    releases = ["start"] * third + ["T02"] * third + ["T03"] * (LARGE_MATERIALS - 2 * third)
    reference_words = [rng.choice(WORDS) for _ in range(200)]
    lines = ["materials:"]
    for m, release in enumerate(releases):
        mid = f"M{m + 1:03d}"
        body = _prose(rng, 120)
        if m < SEED_QUOTES:
            body += " " + " ".join(reference_words[40:55]) + "."
        if m == LARGE_MATERIALS - 1:  # released before T03: the figures the seeded T01 texts state too early
            body += f" Leverage stands at {LATE_FIGURE}, and at {LATE_CRITERION_FIGURE} in the downside."
        (root / "materials" / f"{mid}.md").write_text(f"# {mid}\n\n{body}\n")
        lines += [
            f"  - id: {mid}",
            f"    file: {mid}.md",
            f"    title: Evidence file {mid}",
            f"    kind: {'source_record' if release == 'start' else 'new_evidence'}",
            "    provenance: reconstructed_material",
        ]
        lines += (
            ["    release:", "      at: start"]
            if release == "start"
            else ["    release:", "      at: before", f"      subtask: {release}"]
        )
        if m == LARGE_MATERIALS - 1:
            lines += ["    corrects:"] + [f"      - M{c + 1:03d}" for c in range(SEED_UNCHECKED_CORRECTIONS)]
    (root / "materials.yaml").write_text("\n".join(lines) + "\n")
    (root / "evaluator" / "ref0.md").write_text(
        "# Reference\n\n" + " ".join(reference_words) + f"\n\n{REFERENCE_NOTE}\n"
    )
    (root / "evaluator" / "references.yaml").write_text(
        "references:\n  - id: R0\n    file: ref0.md\n    title: Reference figures\n    for:\n      - final\n"
    )
    late = [f"M{m + 1:03d}" for m, release in enumerate(releases) if release == "T03"]
    start_materials = [f"M{m + 1:03d}" for m in range(third)]
    for i, sid in enumerate(subtasks):
        folder = root / "subtasks" / sid
        folder.mkdir(parents=True)
        outputs = [f"outputs/{sid}-main.md", f"outputs/{sid}-annex.md"]
        inputs = start_materials[i * 3 : i * 3 + 3]
        named_late = f" Compare with {' and '.join(late[:SEED_LATE_IN_INSTRUCTION])}." if sid == "T01" else ""
        seeded = {
            "T01": f" Leverage stands at {LATE_FIGURE}.",
            "T02": f" {PARAPHRASE}",
            "T03": f" Check against {start_materials[0]} and outputs/T01-annex.md.",
        }[sid]
        (folder / "instruction.md").write_text(
            f"# {sid}\n\nUsing {', '.join(inputs)}, write {outputs[0]} and {outputs[1]}.{_builds_on(subtasks, i)} "
            f"{_prose(rng, 150)}{named_late}{seeded}\n"
        )
        _write_subtask_file(folder, sid, inputs, outputs)
        count = LARGE_CRITERIA if sid == "T01" else 4
        lines = [f"# Checkpoint rubric of {sid}.", "criteria:"]
        for c in range(count):
            text = _prose(rng, 25)
            if sid == "T01" and c < SEED_LATE_IN_CRITERIA:
                # Not the last material, the unchecked correction: a reused copy naming it would check it.
                text = text[:-1] + f" as in {late[-2 - c]}."
            if sid == "T01" and c == SEED_LATE_IN_CRITERIA + SEED_DRAFTS:  # approved, reviewed: only the figure
                text = text[:-1] + f" at {LATE_CRITERION_FIGURE}."
            status = "approved"
            reviewer: str | None = REVIEWER
            if sid == "T01" and SEED_LATE_IN_CRITERIA <= c < SEED_LATE_IN_CRITERIA + SEED_DRAFTS:
                status, reviewer = "draft", None
            elif sid == "T01" and c >= count - SEED_NO_REVIEWER:
                reviewer = None
            lines += _criterion(f"{sid}-C{c + 1:04d}", text, [f"{sid}:{outputs[c % 2]}"], "checkpoint",
                                rng.choice(DIMENSIONS), rng.choice([2, 3, 5, 8, -3]) if c else 6, status, reviewer)
        (folder / "rubric.yaml").write_text("\n".join(lines) + "\n")
    (root / "dependencies.yaml").write_text(
        "handoffs:\n  - from: T01:outputs/T01-main.md\n    to: T02\n"
        "    carries: The figures.\n  - from: T02:outputs/T02-main.md\n    to: T03\n"
        "    carries: The figures.\n"
    )
    lines = ["# Final rubric.", "criteria:"]
    for c in range(LARGE_CRITERIA):
        lines += [f"  - reuse_of: T01-C{c + 1:04d}", "    covers:", f"      - {deliverables[c % 2][0]}"]
    for u in range(SEED_UNKNOWN_REUSE):
        lines += [f"  - reuse_of: T09-C{u + 1:04d}", "    covers:", "      - F1"]
    lines += _criterion("X-001", _prose(rng, 20), ["F1", "F2"], "cross-file", "consistency", 5)
    lines += _criterion("P-001", _prose(rng, 20), ["package"], "package", "completeness", 3, tests=("AC1",))
    (root / "final" / "rubric.yaml").write_text("\n".join(lines) + "\n")


def floor_pass(files: list[Path]) -> int:
    """The floor: libyaml's node pass over every project YAML file, building nothing else."""
    nodes = 0
    for path in files:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        nodes += node is not None
    return nodes


def expected_paper_counts() -> Counter[str]:
    """Findings by rule on the paper corpus, by construction: every subtask's annex is the last
    word of its line of work, every main output is handed on or delivered, nothing else fails."""
    # weights.share: one line for the checkpoint rubrics and one for the final rubric of each project.
    return Counter({"dependencies.unused-output": SUBTASKS, "weights.share": 2 * PROJECTS})


def expected_large_counts() -> Counter[str]:
    return Counter(
        {
            "availability.named-before-release": SEED_LATE_IN_CRITERIA + SEED_LATE_IN_INSTRUCTION,
            "facts.before-release": SEED_LATE_FIGURES,
            "facts.criterion-before-release": SEED_LATE_CRITERION_FIGURES,
            "inputs.material-not-listed": SEED_UNLISTED_MATERIALS,
            "inputs.output-without-handoff": SEED_UNHANDED_OUTPUTS,
            "leak.reference-paraphrased": SEED_PARAPHRASES,
            "dependencies.unused-output": 3,  # the three annexes
            "leak.reference-quoted": SEED_QUOTES,
            "propagation.correction-unchecked": 1,
            "validate.review-without-reviewer": SEED_NO_REVIEWER,
            "validate.unknown-ref": SEED_UNKNOWN_REUSE,
            "weights.draft": SEED_DRAFTS,
            "weights.share": 2,
        }
    )


@dataclass
class Round:
    floor: float
    load: float
    validate: float
    review: float
    counts: Counter[str]

    @property
    def total(self) -> float:
        return self.load + self.validate + self.review


def measure(roots: list[Path]) -> tuple[float, float, float, Counter[str]]:
    """load, validate and review (the rules given validation's findings) of every project."""
    t_load = t_validate = t_review = 0.0
    counts: Counter[str] = Counter()
    for root in roots:
        start = time.perf_counter()
        loaded = load_project(root)
        t_load += time.perf_counter() - start
        start = time.perf_counter()
        validation = validate_loaded(loaded)
        t_validate += time.perf_counter() - start
        start = time.perf_counter()
        report = review_loaded(loaded, validation)
        t_review += time.perf_counter() - start
        counts.update(f.code for f in report.findings)
    return t_load, t_validate, t_review, counts


def run_rounds(roots: list[Path], rounds: int) -> list[Round]:
    files = [f for root in roots for f in yaml_files(root)]
    floor_pass(files)  # warm the page cache for both sides
    results = []
    for number in range(rounds):
        _file_text_cached.cache_clear()  # each review reads material texts afresh
        gc.collect()
        if number % 2 == 0:  # alternate which side runs first
            t_floor = timed(floor_pass, files)[0]
            t_load, t_validate, t_review, counts = measure(roots)
        else:
            t_load, t_validate, t_review, counts = measure(roots)
            t_floor = timed(floor_pass, files)[0]
        results.append(Round(t_floor, t_load, t_validate, t_review, counts))
    return results


def summarize(name: str, results: list[Round], expected: Counter[str]) -> bool:
    """Print min/median/max of the paired ratios per phase; True when every round's findings
    are exactly the expected ones."""
    print(f"\n{name}: {len(results)} rounds, each side timed in turn; ratios are paired per round")
    print(f"  {'':28} {'median ms':>10} {'ratio min':>10} {'median':>8} {'max':>8}")
    floor_ms = statistics.median(r.floor for r in results) * 1000
    print(f"  {'floor: libyaml node pass':28} {floor_ms:10.0f}")
    for phase in ("load", "validate", "review", "total"):
        ratios = [getattr(r, phase) / r.floor for r in results]
        ms = statistics.median(getattr(r, phase) for r in results) * 1000
        print(f"  {phase:28} {ms:10.0f} {min(ratios):9.2f}x {statistics.median(ratios):7.2f}x {max(ratios):7.2f}x")
    ok = True
    for number, result in enumerate(results, start=1):
        if result.counts != expected:
            ok = False
            wrong = sorted(set(result.counts) | set(expected))
            print(f"  WRONG ANSWER in round {number}: rule: found / expected")
            for rule in wrong:
                if result.counts[rule] != expected[rule]:
                    print(f"    {rule}: {result.counts[rule]} / {expected[rule]}")
    if ok:
        print(f"  findings as constructed: {dict(sorted(expected.items()))}")
    return ok


def timed(fn: Callable[..., T], *args: object) -> tuple[float, T]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per corpus (default 5)")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="review-bench-"))
    try:
        roots = make_corpus(base / "paper")
        large = base / "large"
        make_large_project(large)
        files = sum(len(yaml_files(root)) for root in roots)
        print(
            f"paper corpus: {len(roots)} projects, {SUBTASKS} subtasks, {MATERIALS} materials, "
            f"{CHECKPOINT_CRITERIA + CROSS_FILE + PACKAGE} criteria written + reused ones; {files} YAML files"
        )
        print(
            f"large project: one checkpoint rubric of {LARGE_CRITERIA} criteria, {LARGE_CRITERIA} final criteria "
            f"reusing them; {len(yaml_files(large))} YAML files"
        )
        ok = summarize("paper corpus", run_rounds(roots, args.rounds), expected_paper_counts())
        ok = summarize("large project", run_rounds([large], args.rounds), expected_large_counts()) and ok
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("\ntargets: total <= 3x the floor on each; the large project's total <= 1.5 s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
