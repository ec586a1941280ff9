"""Reading the verdict store at volume: files the store wrote are read a block at a time without
YAML, to the very verdicts the YAML reader gives; anything else goes the YAML way with its located
errors; a file is parsed again only when it changed, so storing verdict after verdict does not read
the rater's file again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from studio.judging import verdict_store
from studio.judging.errors import JudgingError
from studio.judging.verdict_store import VerdictFileError, VerdictStore, forget_parsed
from studio.judging.verdicts import Verdict
from tests.helpers import copy_blank

T0 = datetime(2026, 11, 30, 20, 15, 3, tzinfo=UTC)


def verdict(criterion: str, scope: str, value: str = "pass", rater: str = "Marta Lindqvist", **extra) -> Verdict:
    return Verdict(
        criterion=criterion,
        scope=scope,
        verdict=value,
        rater=rater,
        time=extra.pop("time", T0),
        criterion_version=extra.pop("criterion_version", "0123456789abcdef"),
        **extra,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_blank(tmp_path / "project")


def yaml_way(path: Path) -> tuple[str, list[Verdict]]:
    text = path.read_text(encoding="utf-8")
    return verdict_store._checked(path, text, yaml.load(text, Loader=verdict_store._Loader))


def test_a_file_the_store_wrote_reads_back_without_yaml(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = [
        verdict(
            "T01-C01",
            "T01",
            note="Stated in the memo, with its source: net debt 41.2m (p. 3).",
            evidence=["outputs/memo.md#L3-L4", "outputs/model.xlsx!Sheet1!B4"],
        ),
        verdict("T01-C02", "T01", "fail", note="Kein Beleg für die Zahl — ni la source.", key="k-7"),
        verdict("T01-C10", "T01", "na", time=datetime(2026, 12, 1, 1, 2, 3, tzinfo=timezone(timedelta(hours=5)))),
        verdict("A-01", "final", "fail", note=""),
    ]
    judge = [verdict("T01-C01", "T01", "missing", rater="judge:gpt-4o", criterion_version="1234567890123456")]
    settled = [verdict("T01-C02", "T01", "pass", rater="adjudicated", by="Anna Berg")]  # who settled it
    store = VerdictStore(project)
    store.put("harness@run-1", [*given, *judge, *settled])
    forget_parsed()
    paths = [
        store.path("harness@run-1", "Marta Lindqvist"),
        store.path("harness@run-1", "judge:gpt-4o"),
        store.path("harness@run-1", "adjudicated"),
    ]
    expected = [yaml_way(path) for path in paths]

    def no_yaml(*_args: object) -> None:
        raise AssertionError("a file in the store's own layout was read the YAML way")

    monkeypatch.setattr(verdict_store, "_checked", no_yaml)
    assert store.read("harness@run-1", "Marta Lindqvist") == expected[0][1]
    assert [v.model_dump() for v in expected[0][1]] == [
        v.model_dump() for v in store.read("harness@run-1", "Marta Lindqvist")
    ]
    assert sorted(given, key=lambda v: v.criterion) == sorted(expected[0][1], key=lambda v: v.criterion)
    assert store.read("harness@run-1", "judge:gpt-4o") == judge == expected[1][1]  # a quoted all-digit version
    assert store.read("harness@run-1", "adjudicated") == settled == expected[2][1]
    assert store.read("harness@run-1", "adjudicated")[0].by == "Anna Berg"


@pytest.mark.parametrize(
    ("edit", "kept"),
    [
        # an escape in a note (the store writes one for a quote or a backslash): YAML reads it
        (lambda text: text.replace('note: "one two"', 'note: "say \\"one two\\""'), 'say "one two"'),
        # a hand-edited plain note
        (lambda text: text.replace('note: "one two"', "note: one two"), "one two"),
    ],
)
def test_a_file_in_another_layout_is_read_the_yaml_way_to_the_same_verdicts(project: Path, edit, kept) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01", note="one two"), verdict("T01-C02", "T01")])
    path = store.path("run-1", "Marta Lindqvist")
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert [v.note for v in store.read("run-1", "Marta Lindqvist")] == [kept, None]
    assert store.read("run-1", "Marta Lindqvist") == yaml_way(path)[1]


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (
            lambda text: text.replace("criterion: T01-C02", "criterion: T01-C01"),
            11,
            "is listed again (first at line 6)",
        ),
        (lambda text: text.replace("criterion: T01-C02", "criterion: 12"), 12, "field 'criterion'"),
        (lambda text: text.replace("verdict: fail", "verdict: fail\n    adjudicator: Anna"), 14, "adjudicator"),
    ],
)
def test_a_file_the_fast_reader_refuses_gets_the_yaml_readers_located_error(project: Path, edit, line, words) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01"), verdict("T01-C02", "T01", "fail")])
    path = store.path("run-1", "Marta Lindqvist")
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(VerdictFileError) as raised:
        store.read("run-1", "Marta Lindqvist")
    assert raised.value.path == path and raised.value.line == line and words in raised.value.problem


def test_storing_verdict_after_verdict_does_not_read_the_file_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict(f"T01-C{n:02d}", "T01") for n in range(1, 40)])
    path = store.path("run-1", "Marta Lindqvist")
    reads: list[Path] = []  # files parsed
    original = verdict_store._parse_text

    def counted(at: Path, text: str) -> tuple[str, list[Verdict]]:
        reads.append(at)
        return original(at, text)

    monkeypatch.setattr(verdict_store, "_parse_text", counted)
    for n in range(1, 6):
        store.put("run-1", [verdict(f"T01-C{n:02d}", "T01", "fail")])
    assert path not in reads  # the store knows what it wrote last (its bytes are checked, not parsed)
    assert [v.verdict for v in store.read("run-1", "Marta Lindqvist")[:6]] == ["fail"] * 5 + ["pass"]
    assert path not in reads
    # a change on disk (another clone merged, a hand edit) is read again, and kept by the next store
    path.write_text(path.read_text(encoding="utf-8").replace("verdict: pass", "verdict: na", 1), encoding="utf-8")
    store.put("run-1", [verdict("T01-C39", "T01", "fail")])
    assert path in reads
    values = [v.verdict for v in store.read("run-1", "Marta Lindqvist")]
    assert values[:6] == ["fail"] * 5 + ["na"] and values[-1] == "fail" and len(values) == 39


def test_reading_many_verdicts_runs_no_garbage_collection_and_leaves_it_as_found(project: Path) -> None:
    import gc

    store = VerdictStore(project)
    store.put("run-1", [verdict(f"T01-C{n:04d}", "T01", note=f"Seen at line {n}.") for n in range(3000)])
    forget_parsed()
    passes: list[int] = []

    def counted(phase: str, info: dict) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(counted)
    try:
        assert len(store.verdicts("run-1")) == 3000 and gc.isenabled()
        # some 15,000 objects made: one pass at most, once the collector is back on (unpaused: about 20)
        assert len(passes) <= 1
        forget_parsed()
        gc.disable()
        assert len(list(store.all())) == 3000 and not gc.isenabled()  # left off, as it was
    finally:
        gc.callbacks.remove(counted)
        gc.enable()


def test_every_submission_is_read_with_its_folder_listed_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = VerdictStore(project)
    store.put("run-b", [verdict("T01-C01", "T01"), verdict("T01-C01", "T01", "fail", rater="judge:gpt-4o")])
    store.put("run-a", [verdict("T01-C02", "T01", "na")])
    (store.root / "run-a" / "notes.txt").write_text("not a verdict file\n", encoding="utf-8")
    (store.root / "run-a" / ".draft.yaml").write_text("rater: nobody\n", encoding="utf-8")
    (store.root / ".hidden").mkdir()
    (store.root / "empty").mkdir()
    listed: list[str] = []
    scandir = verdict_store.os.scandir

    def counted(path):  # type: ignore[no-untyped-def]
        listed.append(Path(path).name)
        return scandir(path)

    monkeypatch.setattr(verdict_store.os, "scandir", counted)
    found = [(submission, [(v.rater, v.criterion, v.verdict) for v in verdicts])
             for submission, verdicts in store.by_submission()]
    assert found == [("run-a", [("Marta Lindqvist", "T01-C02", "na")]),
                     ("run-b", [("judge:gpt-4o", "T01-C01", "fail"), ("Marta Lindqvist", "T01-C01", "pass")])]
    assert sorted(listed) == sorted(["verdicts", "empty", "run-a", "run-b"])  # each folder once
    assert [s for s, _ in store.by_submission(["run-b", "run-c"])] == ["run-b", "run-c"]  # asked for: in that order
    assert dict(store.by_submission(["run-c"]))["run-c"] == []
    assert store.submissions() == ["run-a", "run-b"]
    with pytest.raises(JudgingError, match="cannot name a folder"):
        list(store.by_submission(["../run-a"]))


def test_verdicts_read_the_fast_way_share_nothing_a_copy_could_change(project: Path) -> None:
    store = VerdictStore(project)
    store.put("run-1", [verdict("T01-C01", "T01"), verdict("T01-C02", "T01", evidence=["outputs/memo.md#L3"]),
                        verdict("T01-C03", "T01")])
    forget_parsed()
    first, second, third = store.read("run-1", "Marta Lindqvist")
    changed = first.model_copy(update={"note": "Read again."})
    assert changed.note == "Read again." and first.note is None
    assert second.model_fields_set == first.model_fields_set and "note" in changed.model_fields_set
    assert first.evidence == third.evidence == [] and first.evidence is not third.evidence  # each its own list
    assert second.evidence == ["outputs/memo.md#L3"]
    assert first == yaml_way(store.path("run-1", "Marta Lindqvist"))[1][0]
