"""Files as the open project holds them, readable by a viewer before they are saved."""

from __future__ import annotations

import gc
from pathlib import Path

from studio.editing.documents import ProjectDocuments


def test_viewable_path_is_the_project_file_until_an_edit_holds_other_content(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "materials").mkdir(parents=True)
    (root / "materials" / "plan.csv").write_bytes(b"year,revenue\n2025,10\n")
    documents = ProjectDocuments(root)
    assert documents.viewable_path("materials/plan.csv") == root / "materials" / "plan.csv"

    documents.read_bytes("materials/plan.csv")
    documents.put("materials/plan.csv", b"year,revenue\n2025,12\n")  # replaced, not saved
    copy = documents.viewable_path("materials/plan.csv")
    assert copy is not None and copy.name == "plan.csv" and root not in copy.parents
    assert copy.read_bytes() == b"year,revenue\n2025,12\n"
    assert (root / "materials" / "plan.csv").read_bytes() == b"year,revenue\n2025,10\n"  # disk untouched
    assert documents.viewable_path("materials/plan.csv") == copy  # the same content: the same copy

    documents.put("materials/plan.csv", b"year,revenue\n2025,13\n")
    second = documents.viewable_path("materials/plan.csv")
    assert second is not None and second != copy and second.read_bytes().endswith(b"13\n")

    documents.put("materials/plan.csv", None)  # deleted by an unsaved edit
    assert documents.viewable_path("materials/plan.csv") is None

    folder = second.parent.parent
    del documents
    gc.collect()
    assert not folder.exists()  # the copies go with the documents
