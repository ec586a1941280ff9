"""Objects without an id merge by what names them: a handoff by its from and to, a reused final
criterion by reuse_of, an output by its path; a field of one of them changed on both sides is one
conflict named after it."""

from __future__ import annotations

import yaml

from studio.collab.merge import merge_yaml, parse_field, set_field
from studio.store.workspace import sample_project

SAMPLE = sample_project()


def load(text: str):
    return yaml.load(text, Loader=yaml.CSafeLoader)


def test_handoffs_merge_by_from_and_to():
    base = (SAMPLE / "dependencies.yaml").read_text(encoding="utf-8")
    first = load(base)["handoffs"][0]
    ours = base + "  - from: T09:outputs/ours.md\n    to: T10\n"
    theirs = base + "  - from: T09:outputs/theirs.md\n    to: T10\n"
    merged = merge_yaml(base, ours, theirs, "dependencies.yaml")
    handoffs = [(h["from"], h["to"]) for h in load(merged.text)["handoffs"]]
    assert merged.conflicts == () and handoffs[0] == (first["from"], first["to"])
    assert handoffs[-2:] == [("T09:outputs/ours.md", "T10"), ("T09:outputs/theirs.md", "T10")]
    assert len(handoffs) == len(load(base)["handoffs"]) + 2


def test_reused_final_criteria_merge_by_reuse_of_and_a_field_both_changed_is_named_after_it():
    base = (SAMPLE / "final" / "rubric.yaml").read_text(encoding="utf-8")
    reused = next(c["reuse_of"] for c in load(base)["criteria"] if "reuse_of" in c)
    line = f"reuse_of: {reused}\n"
    assert line in base
    ours = base.replace(line, line + "    weight: 4\n", 1)
    theirs = base.replace(line, line + "    weight: 2\n", 1) + "  - reuse_of: T01-C02\n"
    merged = merge_yaml(base, ours, theirs, "final/rubric.yaml")
    assert [c.field for c in merged.conflicts] == [f"criteria[{reused}].weight"]
    criteria = load(merged.text)["criteria"]
    assert next(c for c in criteria if c.get("reuse_of") == reused)["weight"] == 4  # ours while undecided
    assert criteria[-1] == {"reuse_of": "T01-C02"}
    settled = set_field(merged.text, parse_field(merged.conflicts[0].field), 2, "final/rubric.yaml")
    assert next(c for c in load(settled)["criteria"] if c.get("reuse_of") == reused)["weight"] == 2


def test_outputs_merge_by_path():
    base = (SAMPLE / "subtasks" / "T01" / "subtask.yaml").read_text(encoding="utf-8")
    outputs = load(base)["outputs"]
    path = outputs[0]["path"]
    old_title = outputs[0]["title"]
    ours = base.replace(f"title: {old_title}", f"title: {old_title} (ours)", 1)
    theirs = base.replace(f"path: {outputs[-1]['path']}", f"path: {outputs[-1]['path']}\n    description: theirs", 1)
    merged = merge_yaml(base, ours, theirs, "subtasks/T01/subtask.yaml")
    result = {o["path"]: o for o in load(merged.text)["outputs"]}
    assert merged.conflicts == ()
    assert result[path]["title"] == f"{old_title} (ours)" and result[outputs[-1]["path"]]["description"] == "theirs"
