"""A property test of the object merge: random edits of one rubric on each side (weights, texts,
criteria added and removed), merged against their base. The result always loads with the project,
holds every edit only one side made, and keeps ours' value with one recorded conflict wherever both
sides changed the same thing differently."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.collab.merge import MISSING, merge_yaml
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from studio.store.yamlfile import YamlDocument, plain

RUBRIC = "subtasks/T03/rubric.yaml"
BASE = (sample_project() / RUBRIC).read_text(encoding="utf-8")
BASE_IDS = [item["id"] for item in plain(YamlDocument.parse(Path(RUBRIC), BASE).data)["criteria"]]

# One edit: (kind, criterion, value). Criteria are picked by position among the base's, new ones
# get ids both sides may happen to share.
edits = st.one_of(
    st.tuples(st.just("weight"), st.sampled_from(BASE_IDS), st.integers(1, 10)),
    st.tuples(st.just("text"), st.sampled_from(BASE_IDS), st.sampled_from(["Alpha.", "Beta.", "Gamma."])),
    st.tuples(st.just("remove"), st.sampled_from(BASE_IDS), st.none()),
    st.tuples(st.just("add"), st.sampled_from(["T03-C50", "T03-C51", "T03-C52"]), st.integers(1, 10)),
)


def apply(edits_of_side: list[tuple[str, str, Any]]) -> str:
    document = YamlDocument.parse(Path(RUBRIC), BASE)
    criteria = document.data["criteria"]
    for kind, criterion, value in edits_of_side:
        place = next((n for n, item in enumerate(criteria) if item["id"] == criterion), None)
        if kind == "add":
            if place is None:
                new = dict(plain(criteria[0])) if criteria else {"target": "checkpoint", "dimension": "correctness"}
                new.update(id=criterion, text=f"New {criterion}.", weight=value)
                new.pop("review", None)
                criteria.append(new)
            continue
        if place is None:
            continue  # removed by an earlier edit of this side
        if kind == "remove":
            del criteria[place]
        else:
            criteria[place][kind] = value
    return document.dumps()


def by_id(text: str) -> dict[str, dict[str, Any]]:
    return {item["id"]: item for item in yaml.load(text, Loader=yaml.CSafeLoader)["criteria"]}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path_factory.mktemp("merged") / "kestrel"))


@settings(max_examples=60, deadline=None)
@given(ours_edits=st.lists(edits, max_size=5), theirs_edits=st.lists(edits, max_size=5))
def test_a_random_pair_of_edits_merges_into_a_rubric_that_loads_and_holds_both_sides(project, ours_edits,
                                                                                       theirs_edits):
    ours_text, theirs_text = apply(ours_edits), apply(theirs_edits)
    merged = merge_yaml(BASE, ours_text, theirs_text, RUBRIC)
    base, ours, theirs, result = by_id(BASE), by_id(ours_text), by_id(theirs_text), by_id(merged.text)
    conflicted = {conflict.field for conflict in merged.conflicts}
    for criterion in set(base) | set(ours) | set(theirs):
        was, mine, other = (side.get(criterion, MISSING) for side in (base, ours, theirs))
        whole = f"criteria[{criterion}]"
        if mine == other:
            assert result.get(criterion, MISSING) == mine
            continue
        if mine is MISSING or other is MISSING:
            kept = other if mine is MISSING else mine
            if was == kept:  # deleted on one side, untouched on the other: it goes
                assert criterion not in result
            elif was is MISSING:  # added on one side only
                assert result[criterion] == kept
            else:  # deleted on one side, changed on the other: a conflict, ours' state kept
                assert whole in conflicted and result.get(criterion, MISSING) == mine
            continue
        for field in set(mine) | set(other) | (set(was) if was is not MISSING else set()):
            before = was.get(field, MISSING) if was is not MISSING else MISSING
            a, b = mine.get(field, MISSING), other.get(field, MISSING)
            got = result[criterion].get(field, MISSING)
            if a == b or b == before:
                assert got == a, (criterion, field)
            elif a == before:
                assert got == b, (criterion, field)
            else:
                assert f"{whole}.{field}" in conflicted and got == a, (criterion, field)
    # ours' criteria keep ours' order
    order = [criterion for criterion in result if criterion in ours]
    assert order == [criterion for criterion in ours if criterion in result]
    # the merged rubric loads with the project, without a problem in it
    (project / RUBRIC).write_text(merged.text, encoding="utf-8")
    problems = [problem for problem in load_project(project).problems if problem.file == RUBRIC]
    assert problems == []
