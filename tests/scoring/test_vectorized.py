"""Both fast scorers of plain CSVs (numpy-free column scorer, numpy array scorer) give exactly
the scores of the row-by-row reader and the per-rubric engine; they decline every table that
has a problem, and take the clean ones."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.scoring import score_benchmark, score_table
from studio.scoring.columnar import score_plain_text
from studio.scoring.engine import ScoringError
from studio.scoring.table import VerdictTableError, read_verdict_table
from studio.scoring.vectorized import score_plain_csv
from studio.tabular_arrays import _MIX, _Declined, factorize

HEADER = ["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict", "gate", "requires"]
VERDICT_WORDS = ["pass", "fail", "1", "0", "", "Yes", "TRUE", "no"]
FUNCTION_SCOPED = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def columnar(path: Path):
    return score_plain_text(path.read_bytes().decode("utf-8-sig"))


@pytest.fixture(params=[score_plain_csv, columnar], ids=["array", "columnar"])
def fast_scorer(request):
    """Each fast scorer: the scores of a clean table, or None where the row reader decides."""
    return request.param


def row_path(path: Path):
    """The authority: the row-by-row reader and the per-rubric engine (or the error they raise)."""
    try:
        return score_benchmark(read_verdict_table(path))
    except (VerdictTableError, ScoringError) as exc:
        return type(exc)


def write_plain(path: Path, header: list[str], rows: list[list[str]], *, newline="\n", bom=False,
                final_newline=True) -> Path:
    text = newline.join(",".join(row) for row in [header, *rows]) + (newline if final_newline else "")
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    return path


@st.composite
def rubric_template(draw, final: bool):
    """(id, weight, target, dimension, gate, requires) of one rubric: shared by every system."""
    n = draw(st.integers(1, 7))
    template = []
    for i in range(n):
        gate = draw(st.integers(0, 6)) == 0
        weight = 0 if gate else draw(st.sampled_from([1, 2, 5, 10, -1, -4, -10]))
        requires = draw(st.lists(st.sampled_from([f"c{j}" for j in range(i)]), max_size=2, unique=True)) if i else []
        target = draw(st.sampled_from(["artifact", "cross-file", "package"])) if final else "checkpoint"
        dimension = draw(st.sampled_from(["correctness", "usability", "consistency", "Completeness"]))
        gate_cell = "true" if gate else draw(st.sampled_from(["", "false"]))
        template.append((f"c{i}", str(weight), target, dimension, gate_cell,
                         ";".join(requires)))
    template.append(("anchör-1", str(draw(st.integers(1, 10))), template[0][2], "correctness", "", ""))
    return template


@st.composite
def clean_tables(draw):
    rows = []
    for project in draw(st.lists(st.sampled_from(["P1", "P2", "Prüfung"]), min_size=1, max_size=3, unique=True)):
        scopes = draw(st.lists(st.sampled_from(["T01", "T02", "T10", "final"]), min_size=1, max_size=4, unique=True))
        templates = {scope: draw(rubric_template(final=scope == "final")) for scope in scopes}
        systems = draw(st.lists(st.sampled_from(["A", "B", "sys-long-name-7"]), min_size=1, max_size=3, unique=True))
        for system in systems:
            for scope, template in templates.items():
                for cid, weight, target, dimension, gate, requires in template:
                    verdict = draw(st.sampled_from(VERDICT_WORDS))
                    rows.append([project, system, scope, cid, weight, target, dimension, verdict, gate, requires])
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))  # rubrics scattered through the table
    return rows


@settings(max_examples=300, deadline=None, suppress_health_check=FUNCTION_SCOPED)
@given(rows=clean_tables(), order=st.permutations(range(len(HEADER))), newline=st.sampled_from(["\n", "\r\n"]),
       bom=st.booleans(), final_newline=st.booleans(), extra=st.booleans())
def test_clean_tables_take_the_fast_path_with_identical_scores(rows, order, newline, bom, final_newline, extra,
                                                               tmp_path_factory, fast_scorer):
    header = [HEADER[k] for k in order] + (["note"] if extra else [])
    body = [[row[k] for k in order] + (["-"] if extra else []) for row in rows]
    path = write_plain(tmp_path_factory.mktemp("t") / "v.csv", header, body, newline=newline, bom=bom,
                       final_newline=final_newline)
    fast = fast_scorer(path)
    assert fast is not None
    assert fast == row_path(path)


cell_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


@st.composite
def damaged_tables(draw):
    """A clean table with up to three kinds of damage: any text in a cell (blanks, commas,
    quotes, line breaks included), a duplicated row, another weight, a self-requirement."""
    rows = [list(row) for row in draw(clean_tables())]
    for _ in range(draw(st.integers(0, 3))):
        row = draw(st.integers(0, len(rows) - 1))
        kind = draw(st.sampled_from(["cell", "duplicate", "weight", "requires", "blank id"]))
        if kind == "cell":
            rows[row][draw(st.integers(0, len(HEADER) - 1))] = draw(cell_text)
        elif kind == "duplicate":
            rows.insert(draw(st.integers(0, len(rows))), list(rows[row]))
        elif kind == "weight":
            rows[row][4] = draw(st.sampled_from(["3", "-7", "0", "11", "x"]))
        elif kind == "requires":
            rows[row][9] = draw(st.sampled_from([rows[row][3], "c0;" + rows[row][3], "nope", " c0", ";"]))
        else:
            rows[row][draw(st.integers(0, 3))] = draw(st.sampled_from(["", " ", "P1 ", "\tA"]))
    return rows


@settings(max_examples=400, deadline=None, suppress_health_check=FUNCTION_SCOPED)
@given(rows=damaged_tables(), newline=st.sampled_from(["\n", "\r\n"]))
def test_any_table_scores_alike_on_both_paths_or_the_fast_path_declines(rows, newline, tmp_path_factory, fast_scorer):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerows([HEADER, *rows])  # quotes cells that need them
    path = tmp_path_factory.mktemp("t") / "v.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    expected = row_path(path)
    fast = fast_scorer(path)
    if isinstance(expected, type):
        assert fast is None  # a table with a problem never takes the array path
        with pytest.raises(expected):
            score_table(path)
    else:
        assert fast is None or fast == expected
        assert score_table(path) == expected


def test_a_clean_table_is_scored_by_hand(tmp_path: Path, fast_scorer):
    rows = [["P1", "A", "T01", "C1", "5", "checkpoint", "correctness", "pass", "", ""],
            ["P1", "A", "T01", "C2", "5", "checkpoint", "completeness", "0", "", ""],
            ["P1", "A", "final", "F1", "4", "artifact", "correctness", "TRUE", "", ""],
            ["P1", "A", "final", "F2", "-2", "cross-file", "consistency", "yes", "", ""],
            ["P1", "A", "final", "G", "0", "package", "completeness", "no", "true", ""],
            ["P1", "A", "final", "F3", "6", "package", "usability", "1", "", "F1"],
            ["P1", "B", "T01", "C1", "5", "checkpoint", "correctness", "pass", "", ""],
            ["P1", "B", "T01", "C2", "5", "checkpoint", "completeness", "", "", ""],
            ["P1", "B", "final", "F1", "4", "artifact", "correctness", "fail", "", ""],
            ["P1", "B", "final", "F2", "-2", "cross-file", "consistency", "yes", "", ""],
            ["P1", "B", "final", "G", "0", "package", "completeness", "yes", "true", ""],
            ["P1", "B", "final", "F3", "6", "package", "usability", "1", "", "F1"]]
    scores = fast_scorer(write_plain(tmp_path / "v.csv", HEADER, rows))
    assert scores is not None
    a, b = scores.projects["P1"]["A"], scores.projects["P1"]["B"]
    # A: final W+ = 4 + 6 = 10, credit 4 - 2 + 6 = 8 -> 80; T01 5 of 10 -> 50
    assert (a.final, a.process, a.checkpoints, a.gate_triggered, a.missing) == (80.0, 50.0, {"T01": 50.0}, False, 0)
    assert a.targets == {"artifact": 100.0, "cross-file": None, "package": 100.0}
    assert a.dimensions["consistency"] is None and a.dimensions["usability"] == 100.0
    # B: the gate is triggered -> final 0; T01 has a missing verdict -> unavailable
    assert (b.final, b.process, b.checkpoints, b.gate_triggered, b.missing) == (0.0, None, {"T01": None}, True, 1)
    # Profiles come before the gate: F1 failed, and F3 passed but requires F1, so its h is 0 too.
    assert b.targets == {"artifact": 0.0, "cross-file": None, "package": 0.0}
    assert scores.systems["A"].pass_rate_90 == 0.0 and scores.systems["B"].final_mean == 0.0
    assert b.process_range == (50.0, 100.0) and b.final_range == (0.0, 0.0)


def test_fast_scorers_give_the_row_readers_ranges_where_requires_ties_missing_verdicts(tmp_path: Path, fast_scorer):
    # a, b missing; n (-4, pass) requires both; c (+4) passes: W+ = 10, best 70 (one of a, b), worst 40
    rows = [["P1", "A", "T01", "a", "3", "checkpoint", "correctness", "", "", ""],
            ["P1", "A", "T01", "b", "3", "checkpoint", "correctness", "", "", ""],
            ["P1", "A", "T01", "n", "-4", "checkpoint", "correctness", "pass", "", "a;b"],
            ["P1", "A", "T01", "c", "4", "checkpoint", "correctness", "pass", "", ""],
            ["P1", "A", "final", "f", "4", "artifact", "correctness", "pass", "", ""],
            ["P1", "A", "final", "g", "0", "package", "correctness", "", "true", "f"]]
    path = write_plain(tmp_path / "v.csv", HEADER, rows)
    scores = fast_scorer(path)
    assert scores is not None and scores == row_path(path)
    one = scores.projects["P1"]["A"]
    assert one.checkpoints == {"T01": None} and one.process_range == (40.0, 70.0)
    assert one.final is None and one.final_range == (0.0, 100.0)  # the gate g may trigger


@pytest.mark.parametrize("change, reason", [
    (lambda t: t.replace("P1,A,T01,C2", "P1,A,T01,C1"), "a criterion twice in one rubric"),
    (lambda t: t.replace("P1,B,T01,C2,5", "P1,B,T01,C2,4"), "weights differ between systems"),
    (lambda t: t.replace(",F1\n", ",F9\n"), "requires an unknown criterion"),
    (lambda t: t.replace("P1,A,T01,C1,5,checkpoint,correctness,pass,,", "P1,A,T01,C1,5,checkpoint,correctness,pass,,C2")
     .replace("P1,A,T01,C2,5,checkpoint,completeness,0,,", "P1,A,T01,C2,5,checkpoint,completeness,0,,C1"),
     "a requires cycle"),
    (lambda t: t.replace("P1,A,T01,C1", "P1 ,A,T01,C1"), "a blank around an id"),
    (lambda t: t.replace("project,system", "project,project"), "a column named twice"),
    (lambda t: t.replace("P1,A,T01,C1", '"P1",A,T01,C1'), "quotes"),
    (lambda t: t.replace("\n", "\n\n", 1), "an empty line"),
    (lambda t: t.replace("checkpoint,completeness,0", "checkpoint,completeness,maybe"), "a bad verdict"),
])
def test_the_fast_paths_decline_what_they_cannot_read_exactly(tmp_path: Path, change, reason, fast_scorer):
    rows = [["P1", s, "T01", c, "5", "checkpoint", dim, v, "", ""]
            for s in "AB" for c, dim, v in (("C1", "correctness", "pass"), ("C2", "completeness", "0"))]
    rows += [["P1", s, "final", "F", "3", "artifact", "correctness", "1", "", "F1"] for s in "AB"]
    rows += [["P1", s, "final", "F1", "3", "artifact", "correctness", "1", "", ""] for s in "AB"]
    clean = write_plain(tmp_path / "clean.csv", HEADER, rows)
    assert fast_scorer(clean) is not None
    damaged = tmp_path / "damaged.csv"
    damaged.write_text(change(clean.read_text()))
    assert damaged.read_text() != clean.read_text(), reason
    expected = row_path(damaged)
    if fast_scorer is columnar and reason == "a blank around an id":
        assert fast_scorer(damaged) == expected  # the column scorer strips ids as the row reader does
    else:
        assert fast_scorer(damaged) is None, reason
    if isinstance(expected, type):
        with pytest.raises(expected):
            score_table(damaged)
    else:
        assert score_table(damaged) == expected


def test_a_hash_collision_declines_rather_than_merging_two_cells():
    x = np.uint64(12345)
    words = np.array([[0, x], [1, _MIX ^ x]], dtype=np.uint64)  # 0*M ^ x == 1*M ^ (M ^ x): same key
    with pytest.raises(_Declined):
        factorize(words)
    codes, first = factorize(np.array([[0, 7], [0, 7], [3, 1]], dtype=np.uint64))
    assert codes.tolist()[0] == codes.tolist()[1] != codes.tolist()[2] and first.tolist()[0] == 0


def test_a_rubric_without_positive_weight_is_left_to_the_engine_which_refuses_it(tmp_path: Path, fast_scorer):
    rows = [["P1", s, "T01", "C1", "-3", "checkpoint", "correctness", "pass", "", ""] for s in "AB"]
    path = write_plain(tmp_path / "v.csv", HEADER, rows)
    assert fast_scorer(path) is None
    with pytest.raises(ScoringError, match="no positive weight"):
        score_table(path)
    gate_rows = [["P1", s, "T01", "G", "0", "checkpoint", "correctness", "yes", "true", ""] for s in "AB"]
    gated = write_plain(tmp_path / "g.csv", HEADER, rows + gate_rows)
    scores = fast_scorer(gated)  # a triggered gate decides before W+ is looked at, as in the engine
    assert scores is not None and scores == row_path(gated)
    assert scores.projects["P1"]["A"].checkpoints == {"T01": 0.0}


def test_a_long_requires_chain_resolves_on_both_paths(tmp_path: Path, fast_scorer):
    """C0 requires C1, which requires C2, ... 2,000 deep, listed so that the first criterion
    needs the whole chain: neither path may recurse that deep. The last one fails, so every
    criterion of the chain gets h = 0."""
    n = 2000
    rows = [["P", "A", "T01", f"C{i}", "1", "checkpoint", "correctness", "fail" if i == n - 1 else "pass", "",
             f"C{i + 1}" if i < n - 1 else ""] for i in range(n)]
    rows.append(["P", "A", "T01", "free", "1", "checkpoint", "correctness", "pass", "", ""])
    path = write_plain(tmp_path / "chain.csv", HEADER, rows)
    fast = fast_scorer(path)
    assert fast is not None and fast == row_path(path)
    assert fast.projects["P"]["A"].checkpoints["T01"] == pytest.approx(100 / (n + 1))


def test_a_ten_megabyte_id_cell_is_left_to_the_row_reader(tmp_path: Path):
    """The array scorer packs a column into rows x its longest cell: one 10 MB cell in a
    2,000-row table would ask for 20 GB. It declines instead; the row reader scores it."""
    rows = [["P1", "A", "T01", f"C{k}", "1", "checkpoint", "correctness", "pass", "", ""] for k in range(2000)]
    rows[5][3] = "x" * 10_000_000
    path = write_plain(tmp_path / "long.csv", HEADER, rows)
    assert score_plain_csv(path) is None
    assert score_table(path) == row_path(path)
    assert score_table(path).projects["P1"]["A"].checkpoints == {"T01": 100.0}


def test_the_array_scorer_holds_a_few_times_the_files_size(tmp_path: Path):
    """int32 offsets, no padded copy of the file, intermediates freed: the peak of traced
    memory stays under 6x the CSV's size (it was about 11x)."""
    import tracemalloc

    rows = [[f"P{p}", f"system-{s}", f"T{t:02d}", f"T{t:02d}-C{c:02d}", str(1 + (c % 9)), "checkpoint",
             "correctness", "pass" if (p + s + c) % 3 else "fail", "", f"T{t:02d}-C00" if c % 7 == 3 else ""]
            for p in range(3) for s in range(5) for t in range(20) for c in range(40)]
    path = write_plain(tmp_path / "v.csv", HEADER, rows)
    score_plain_csv(path)  # imports and caches outside the measure
    tracemalloc.start()
    try:
        scores = score_plain_csv(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert scores is not None and scores == row_path(path)
    assert peak < 6 * path.stat().st_size, peak / path.stat().st_size


def test_a_target_that_does_not_fit_its_scope_is_left_to_the_row_reader(tmp_path: Path, fast_scorer):
    """The column scorer checks each row's other cells once per distinct value, without its
    scope; whether the target fits the scope is checked for the whole column after."""
    rows = [["P1", s, scope, "C1", "3", target, "correctness", "pass", "", ""]
            for s in "AB" for scope, target in (("T01", "checkpoint"), ("final", "artifact"))]
    assert fast_scorer(write_plain(tmp_path / "clean.csv", HEADER, rows)) is not None
    rows[1][5] = "checkpoint"  # a checkpoint target in the final rubric
    rows[2][5] = "artifact"  # a final target in a checkpoint rubric
    path = write_plain(tmp_path / "v.csv", HEADER, rows)
    assert fast_scorer(path) is None
    with pytest.raises(VerdictTableError, match="does not fit scope"):
        score_table(path)
