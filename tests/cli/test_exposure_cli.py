"""`dbstudio exposure` on the sample: JSON and its alias, the order, the flag, the text table."""

from __future__ import annotations

import json

import pytest

from studio.cli.main import main
from studio.store.loader import load_project
from tests.helpers import REPO_ROOT

SAMPLE = REPO_ROOT / "projects" / "kestrel-refinancing"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["exposure", str(SAMPLE), *argv, "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert main(["exposure", str(SAMPLE), *argv, "--json"]) == 0
    assert capsys.readouterr().out == out
    return json.loads(out)


def test_every_material_and_output_most_exposed_first(capsys: pytest.CaptureFixture[str]) -> None:
    project = load_project(SAMPLE).project
    data = _json(capsys)
    items = data["items"]
    assert sorted(i["item"] for i in items) == sorted([m.id for m in project.materials.materials]
                                                      + list(project.outputs()))
    keys = [(i["final"]["share"], i["final"]["worst_share"], i["process_share"]) for i in items]
    assert keys == sorted(keys, reverse=True)
    assert items[0]["final"]["weight"] == data["final_w_plus"]  # a start material T01 reads feeds everything
    assert data["flagged"] == [i["item"] for i in items if i["final"]["share"] > data["flag_share"]]
    assert 0 < len(data["flagged"]) < len(items) and data["left_out"] == []
    for item in items:
        for rubric in [item["final"], *item["checkpoints"]]:
            assert rubric["share"] == round(rubric["weight"] / rubric["w_plus"], 6)
    change_log = next(i for i in items if i["item"] == "T06:outputs/change_log.md")
    assert change_log["final"]["weight"] == 0 and [r["rubric"] for r in change_log["checkpoints"]] == ["T06"]


def test_flag_share_one_flags_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert _json(capsys, "--flag-share", "1")["flagged"] == []
    assert main(["exposure", str(SAMPLE), "--flag-share", "1"]) == 0
    captured = capsys.readouterr()
    assert not any(line.startswith("!") for line in captured.out.splitlines())
    assert captured.err.startswith("0 of ")
