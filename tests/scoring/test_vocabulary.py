"""Scoring names the model's targets, dimensions and final scope, and reads them without pydantic."""

import subprocess
import sys

from studio.model.vocabulary import FINAL_SCOPE, FINAL_TARGETS, Dimension, Target
from studio.scoring import engine
from studio.scoring.cells import TARGETS, check_cells


def test_scoring_names_are_the_models_enums():
    assert engine.FINAL_SCOPE == FINAL_SCOPE
    assert engine.FINAL_TARGETS == tuple(t.value for t in FINAL_TARGETS)
    assert set(engine.DIMENSIONS) == {d.value for d in Dimension}
    assert set(TARGETS) == {t.value for t in Target}
    # The final targets follow the checkpoint target in one block: the array scorer's profile offset relies on it.
    start = TARGETS.index(engine.FINAL_TARGETS[0])
    assert TARGETS[start:start + len(engine.FINAL_TARGETS)] == engine.FINAL_TARGETS


def test_every_model_dimension_and_target_is_accepted_in_a_verdict_row():
    for dimension in Dimension:
        assert not isinstance(check_cells("3", "checkpoint", dimension.value, "1", "", False), list)
    for target in FINAL_TARGETS:
        assert not isinstance(check_cells("3", target.value, "usability", "1", "", True), list)


def test_scoring_imports_neither_pydantic_nor_numpy():
    code = ("import sys, studio.scoring, studio.scoring.report; "
            "print(sorted(m for m in ('pydantic', 'numpy', 'git', 'ruamel', 'openpyxl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_scoring_a_small_csv_does_not_import_numpy(tmp_path):
    """Below ARRAY_SCORER_BYTES the column scorer runs: importing numpy alone would take longer
    than scoring the paper's benchmark."""
    table = tmp_path / "v.csv"
    table.write_text("project,system,scope,criterion,weight,target,dimension,verdict\n"
                     "P1,A,T01,C1,3,checkpoint,correctness,pass\nP1,A,final,F1,2,artifact,usability,fail\n")
    code = (f"import sys\nfrom studio.scoring import score_table\nscores = score_table({str(table)!r})\n"
            "print(scores.projects['P1']['A'].final, scores.projects['P1']['A'].process, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0.0", "100.0", "False"]
