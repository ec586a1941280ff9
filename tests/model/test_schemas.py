"""The checked-in JSON Schemas match the models, and they accept the files they describe."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from studio.cli.main import main
from studio.model.schemas import SCHEMA_FILES, schema_texts
from studio.store import layout
from studio.store.workspace import TEMPLATES_DIR
from studio.store.yamlfile import YamlDocument, plain
from tests.helpers import SCAFFOLD

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_checked_in_schemas_match_the_models():
    generated = schema_texts()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SCHEMAS.glob("*.schema.json")}
    assert set(on_disk) == set(generated), "schemas/ holds other files than the models produce: run `dbstudio schemas`"
    stale = [name for name, text in generated.items() if on_disk[name] != text]
    assert stale == [], f"out of date with the models: {stale}; run `dbstudio schemas`"


def test_schemas_check_command_detects_drift(tmp_path: Path, capsys):
    assert main(["schemas", "--out", str(tmp_path)]) == 0
    assert main(["schemas", "--out", str(tmp_path), "--check"]) == 0
    path = tmp_path / "rubric.schema.json"
    path.write_text(path.read_text().replace('"maximum": 10', '"maximum": 11'))
    assert main(["schemas", "--out", str(tmp_path), "--check"]) == 1
    assert "rubric.schema.json: out of date" in capsys.readouterr().err


def _schema_for(rel: str) -> dict:
    name = {
        layout.PROJECT_FILE: "project.schema.json", layout.STAGES_FILE: "stages.schema.json",
        layout.MATERIALS_FILE: "materials.schema.json", layout.DEPENDENCIES_FILE: "dependencies.schema.json",
        layout.REFERENCES_FILE: "references.schema.json",
    }.get(rel) or ("subtask.schema.json" if rel.endswith(layout.SUBTASK_FILE) else "rubric.schema.json")
    return json.loads((SCHEMAS / name).read_text())


def test_schemas_accept_template_files_and_reject_a_bad_weight():
    root = TEMPLATES_DIR / "finance-transaction"
    used = set()
    for path in layout.yaml_files(root):
        rel = path.relative_to(root).as_posix()
        schema = _schema_for(rel)
        jsonschema.validate(plain(YamlDocument.load(path).data), schema)
        used.add(schema["$id"].rsplit("/", 1)[-1])
    # every project schema met a real file; the review-work files and comment threads are optional
    # (tests/collab checks them)
    assert used == set(SCHEMA_FILES) - {"benchmark.schema.json", "assignments.schema.json", "double-coding.schema.json",
                                        "comment.schema.json"}
    bad = {"criteria": [{"id": "C1", "text": "t", "target": "checkpoint", "dimension": "correctness", "weight": 11}]}
    errors = list(jsonschema.Draft202012Validator(_schema_for("final/rubric.yaml")).iter_errors(bad))
    assert errors and "11" in errors[0].message


def test_the_benchmark_schema_accepts_a_written_benchmark_and_rejects_a_bad_judge(tmp_path: Path, capsys):
    from studio.store.workspace import create_project

    create_project(tmp_path / "suite" / "p01", "kestrel-p01", "P1", template=SCAFFOLD)
    assert main(["benchmark", "new", str(tmp_path / "suite"), "--id", "suite", "--title", "Suite",
                 "--project", str(tmp_path / "suite" / "p01")]) == 0
    path = tmp_path / "suite" / "benchmark.yaml"
    path.write_text(path.read_text().replace("systems: []\noutcomes: []\n", "") + (
        "judge: {rater: judge:gpt-5, profile: openai-reasoning}\n"
        "systems:\n  - {id: claude, name: Claude, model: claude-opus-5, harness: claude-code}\n"
        "outcomes:\n  - {system: claude, project: kestrel-p01, submission: 20261201-120000-ab12cd}\n"))
    schema = json.loads((SCHEMAS / "benchmark.schema.json").read_text())
    data = plain(YamlDocument.load(path).data)
    jsonschema.validate(data, schema)
    data["judge"] = "gpt-5"  # a rater is judge:MODEL
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data))
