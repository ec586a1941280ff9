"""The agent judge's tools on real files (openpyxl workbooks, pymupdf PDFs, a PNG): a sheet range with its
formulas, PDF search and pages, an image as an image part or its description, and what each tool refuses;
and an opened image reaching a model that reads images as an image_url part of the conversation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studio.judging.agent_tools import MAX_PAGES, SubmissionTools
from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.submission import submission_of_folder
from studio.judging.verdict_store import VerdictStore
from tests.helpers import write
from tests.judging.agent_server import ScriptedAgent, tool_results
from tests.judging.chat_server import ChatServer, Request
from tests.judging.evidence_files import write_pdf, write_png, write_workbook
from tests.judging.projects import SCOPE, judged_project, load


def call(tools: SubmissionTools, name: str, **arguments: Any) -> str:
    result = tools.call(name, json.dumps(arguments))
    return result.text


def test_a_sheet_range_comes_with_its_saved_values_and_formulas(tmp_path: Path) -> None:
    write_workbook(tmp_path / "outputs/model.xlsx",
                   {"Inputs": {"A1": "rate", "B1": 0.05}, "Debt": {"A1": "Debt", "B4": "=B2+B3", "B2": 4, "B3": 2,
                                                                  "H9": "far away"}},
                   saved={"Debt!B4": 6})
    tools = SubmissionTools(tmp_path)
    text = call(tools, "read_sheet", path="outputs/model.xlsx", sheet="Debt", range="A1:C5")
    assert text.splitlines() == [
        "outputs/model.xlsx!Debt!A1:C5: 4 cells that hold something (cite as outputs/model.xlsx!Debt!B4)",
        "A1 = Debt", "B2 = 4", "B3 = 2", "B4 = 6 (formula =B2+B3)",
    ]
    assert call(tools, "read_sheet", path="outputs/model.xlsx", sheet="", range="B1:B1").endswith("\nB1 = 0.05")
    assert call(tools, "read_sheet", path="outputs/model.xlsx", sheet="Cash", range="A1:B2") == (
        "error: outputs/model.xlsx has no sheet 'Cash'; its sheets: Inputs, Debt")
    assert call(tools, "read_sheet", path="outputs/model.xlsx", sheet="Debt", range="rows please") == (
        "error: range 'rows please' is not in A1 notation: give one such as A1:F40")
    assert call(tools, "read_sheet", path="outputs/model.xlsx", sheet="Debt", range="B:B").startswith(
        "error: range 'B:B' must name its corners")


def test_a_pdf_is_searched_and_read_page_by_page(tmp_path: Path) -> None:
    write_pdf(tmp_path / "outputs/memo.pdf", ["Summary of the deal", "Covenants\nLeverage below 4.0x", "Annex"])
    tools = SubmissionTools(tmp_path)
    found = call(tools, "search_pdf", path="outputs/memo.pdf", query="leverage")
    assert found.splitlines()[0] == "'leverage' in outputs/memo.pdf (3 pages):"
    assert found.splitlines()[1].startswith("[outputs/memo.pdf#page=2] 1 line(s): Covenants / Leverage below 4.0x")
    assert call(tools, "search_pdf", path="outputs/memo.pdf", query="EBITDA") == (
        "'EBITDA' is on none of the 3 pages of outputs/memo.pdf")
    pages = call(tools, "read_pdf_pages", path="outputs/memo.pdf", first=2, last=3)
    assert "[outputs/memo.pdf#page=2]\nCovenants\nLeverage below 4.0x" in pages
    assert "[outputs/memo.pdf#page=3]\nAnnex" in pages and "Summary" not in pages
    assert call(tools, "read_pdf_pages", path="outputs/memo.pdf", first=4, last=4) == (
        "error: outputs/memo.pdf has 3 pages: page 4 is past its end")
    write_pdf(tmp_path / "outputs/long.pdf", [f"Page text {n}" for n in range(1, 8)])
    capped = call(tools, "read_pdf_pages", path="outputs/long.pdf", first=1, last=7)
    assert [f"#page={n}]" in capped for n in range(1, 8)] == [True] * MAX_PAGES + [False] * (7 - MAX_PAGES)


def test_an_image_is_an_image_part_only_for_a_model_that_reads_images(tmp_path: Path) -> None:
    write_png(tmp_path / "outputs/chart.png")
    described = SubmissionTools(tmp_path).call("open_image", '{"path": "outputs/chart.png"}')
    assert described.image_url is None and described.text.startswith(
        "outputs/chart.png: (image, 40 x 30 pixels, PNG;")
    assert "not given images" in described.text
    shown = SubmissionTools(tmp_path, images=True).call("open_image", '{"path": "outputs/chart.png"}')
    assert shown.image_url is not None and shown.image_url.startswith("data:image/png;base64,")
    write(tmp_path, "outputs/fake.png", "not an image")
    broken = SubmissionTools(tmp_path, images=True).call("open_image", '{"path": "outputs/fake.png"}')
    assert broken.error and broken.text.startswith("error: the file cannot be read: the image is damaged")


def test_a_file_over_the_tools_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    with (tmp_path / "outputs/huge.png").open("wb") as handle:
        handle.truncate(5 << 20)  # sparse: over the 4 MiB an image may be
    refused = SubmissionTools(tmp_path, images=True).call("open_image", '{"path": "outputs/huge.png"}')
    assert refused.error
    assert refused.text == ("error: outputs/huge.png is 5,242,880 bytes (5.0 MiB), over the limit of "
                            "4,194,304 bytes (4.0 MiB) this tool reads")


def test_an_opened_image_reaches_a_model_that_reads_images(tmp_path: Path) -> None:
    project = judged_project(tmp_path / "project", 1)
    folder = tmp_path / "sub"
    write_png(folder / "outputs/chart.png")
    write(folder, "outputs/report.md", "# Report\n")

    def plan(request: Request) -> list[tuple[str, Any]]:
        return [] if tool_results(request) else [("open_image", {"path": "outputs/chart.png"})]

    agent = ScriptedAgent(plan, "the image follows")
    with ChatServer(agent.reply) as server:
        settings = JudgeSettings(base_url=server.url, model="m", timeout_s=10.0, parallel=1, mode="agent", images=True)
        summary = judge_submission(load(project), submission_of_folder(folder, SCOPE), settings, VerdictStore(project))
        last = server.requests[-1].body["messages"]
    assert summary.judged == 1
    assert [message["role"] for message in last] == ["system", "user", "assistant", "tool", "user"]
    parts = last[-1]["content"]
    assert parts[0]["type"] == "text" and parts[1]["type"] == "image_url"
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
