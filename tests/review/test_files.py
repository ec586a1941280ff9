"""Files review may not read: links out of the project and unreadable files become located
findings, never a traceback, and nothing outside the project is quoted."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from studio.review import review_project
from studio.review.texts import Quotations, plain_words, shared_passages, shingles
from tests.helpers import make_rich_project, write

SECRET = "the facility agreement allows the borrower to draw the revolving credit line in four tranches"


def _findings(root: Path, rule: str) -> list:
    return [f for f in review_project(root).findings if f.code == rule]


def test_material_linked_to_a_file_outside_the_project_is_refused_not_quoted(tmp_path: Path):
    root = make_rich_project(tmp_path / "proj")
    outside = write(tmp_path, "elsewhere/secret.md", SECRET + "\n")
    write(root, "evaluator/answer-T02.md", "# Reference\n\n" + SECRET + "\n")
    target = root / "materials" / "source-notes.md"
    target.unlink()
    target.symlink_to(outside)
    findings = review_project(root).findings
    (refused,) = [f for f in findings if f.code == "files.outside-project"]
    assert (refused.file, refused.line, refused.column) == ("materials/source-notes.md", 1, 1)
    assert "outside the project" in refused.message and "copy the file into the project" in refused.message
    assert not any(f.file == "materials/source-notes.md" and f.code.startswith("leak.") for f in findings)
    assert not any("revolving" in f.message for f in findings)


def test_link_inside_the_project_is_read_as_usual(tmp_path: Path):
    root = make_rich_project(tmp_path / "proj")
    write(root, "evaluator/answer-T02.md", "# Reference\n\n" + SECRET + "\n")
    write(root, "notes/inside.md", SECRET + "\n")
    target = root / "materials" / "source-notes.md"
    target.unlink()
    target.symlink_to(root / "notes" / "inside.md")
    assert _findings(root, "files.outside-project") == []
    (quote,) = [f for f in _findings(root, "leak.reference-quoted") if f.file == "materials/source-notes.md"]
    assert quote.object_id == "R1"


def test_material_that_is_a_folder_is_reported_as_unreadable(tmp_path: Path):
    root = make_rich_project(tmp_path / "proj")
    (root / "materials" / "source-notes.md").unlink()
    (root / "materials" / "source-notes.md").mkdir()
    (hit,) = _findings(root, "files.unreadable")
    assert hit.file == "materials/source-notes.md" and "cannot be read" in hit.message


def _review_unprivileged(root: Path) -> list[dict]:
    """Review as a user the file modes apply to. Root reads any file whatever its mode, so
    under root the review runs in a forked child that has given up root (uid/gid 65534)."""
    if os.geteuid() != 0:
        return [f.to_json() for f in review_project(root).findings]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, review, send the findings back
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            payload = json.dumps([f.to_json() for f in review_project(root).findings]).encode()
        except BaseException as exc:  # report anything to the parent rather than hang it
            payload = json.dumps({"error": repr(exc)}).encode()
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = json.loads(pipe.read())
    os.waitpid(pid, 0)
    assert not isinstance(data, dict), data
    return data


def test_unreadable_material_is_a_located_finding_not_a_permission_error():
    base = Path(tempfile.mkdtemp(prefix="review-perm-"))
    try:
        root = make_rich_project(base / "proj")
        for folder, _, files in os.walk(base):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        os.chmod(root / "materials" / "source-notes.md", 0)
        findings = _review_unprivileged(root)
    finally:
        os.chmod(root / "materials" / "source-notes.md", stat.S_IRUSR | stat.S_IWUSR)
        shutil.rmtree(base)
    unreadable = [f for f in findings if f["code"] == "files.unreadable"]
    assert [(f["file"], f["line"]) for f in unreadable] == [("materials/source-notes.md", 1)]
    assert "Permission denied" in unreadable[0]["message"] and "permissions" in unreadable[0]["message"]


def test_quotations_agree_with_one_reference_at_a_time():
    reference_a = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron"
    reference_b = "one two three four five six seven eight nine ten eleven twelve thirteen"
    text = ("Intro. " + reference_a.upper() + " and then " + reference_b[:-9] + " stop. "
            + " ".join(reference_b.split()[:11])
            + " and Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda.")
    quotations = Quotations({"A": reference_a, "B": reference_b}, 12)
    found = quotations.passages(text)
    for ref_id, reference in (("A", reference_a), ("B", reference_b)):
        expected = shared_passages(shingles(plain_words(reference), 12), text, 12)
        assert found.get(ref_id, []) == expected
    assert [p.words for p in found["A"]] == [15]  # the 11-word run at the end is not a quotation
    assert [p.words for p in found["B"]] == [12]
    assert quotations.passages("nothing shared here at all") == {}


VOCABULARY = ["alpha", "beta", "gamma", "Delta", "1,000", "it's"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(VOCABULARY), max_size=30), min_size=1, max_size=3),
       st.lists(st.sampled_from(VOCABULARY + ["\n", "-"]), max_size=20), st.integers(1, 13), st.data())
def test_quotations_probe_misses_no_shared_run(references: list[list[str]], prefix: list[str], size: int,
                                               data: st.DataObject):
    """The sparse probe is only a shortcut: every run a word-by-word scan finds is still found.
    The text quotes a slice of the first reference after a prefix of any length."""
    first = references[0]
    start = data.draw(st.integers(0, len(first)))
    quoted = first[start:data.draw(st.integers(start, len(first)))]
    suffix = data.draw(st.lists(st.sampled_from(VOCABULARY), max_size=10))
    texts = {f"R{i}": " ".join(words) for i, words in enumerate(references)}
    text = " ".join(prefix + quoted + suffix)
    found = Quotations(texts, size).passages(text)
    for ref_id, reference in texts.items():
        assert found.get(ref_id, []) == shared_passages(shingles(plain_words(reference), size), text, size)
