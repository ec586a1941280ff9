"""An instruction or the brief written in Word, brought in as Markdown: headings (#, ##, ...), paragraphs
with their bold and italic, bulleted and numbered lists (nested by two spaces), and tables as pipe tables
(the first row the header), in the document's order — read by the one reader of Word files
(studio/previews/office.py). The result replaces the Markdown file as one undoable edit; images, headers and
footers, and tables inside tables are not brought in (the preview lists what it reads)."""

from __future__ import annotations

from pathlib import Path

from studio.editing.documents import ProjectDocuments
from studio.editing.fields import set_brief, set_instruction
from studio.editing.files import PutFile
from studio.errors import StudioError

__all__ = ["WordImportError", "brief_from_word", "instruction_from_word", "word_to_markdown"]


class WordImportError(StudioError):
    """The Word file cannot be read (damaged, not a .docx), named with the fix."""


def _inline(paragraph: object) -> str:
    spans = getattr(paragraph, "spans", ())
    parts = []
    for span in spans:
        text = span.text
        if not text.strip():
            parts.append(text)
            continue
        lead, core, tail = text[: len(text) - len(text.lstrip())], text.strip(), text[len(text.rstrip()):]
        if span.bold and span.italic:
            core = f"***{core}***"
        elif span.bold:
            core = f"**{core}**"
        elif span.italic:
            core = f"*{core}*"
        parts.append(lead + core + tail)
    return "".join(parts) if parts else str(getattr(paragraph, "text", ""))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def word_to_markdown(path: Path) -> str:
    """The Markdown of a .docx."""
    from studio.previews import PreviewError
    from studio.previews.office import Paragraph, WordDocument

    try:
        blocks = list(WordDocument(path).blocks())
    except PreviewError as exc:
        raise WordImportError(f"{exc}: save it from Word as a .docx and import it again") from None
    lines: list[str] = []
    numbers: dict[int, int] = {}
    previous_list = False
    for block in blocks:
        if isinstance(block, Paragraph):
            text = _inline(block).strip()
            if block.list_kind is not None:
                if not previous_list and lines and lines[-1] != "":
                    lines.append("")
                indent = "  " * block.list_level
                if block.list_kind == "number":
                    numbers[block.list_level] = numbers.get(block.list_level, 0) + 1
                    for deeper in [level for level in numbers if level > block.list_level]:
                        del numbers[deeper]
                    lines.append(f"{indent}{numbers[block.list_level]}. {text}")
                else:
                    lines.append(f"{indent}- {text}")
                previous_list = True
                continue
            numbers.clear()
            previous_list = False
            if not text:
                continue
            if lines and lines[-1] != "":
                lines.append("")
            if block.heading is not None:
                lines.append("#" * max(1, min(block.heading, 6)) + " " + block.text.strip())
            else:
                lines.append(text)
            continue
        numbers.clear()
        previous_list = False
        rows = [[_cell(cell) for cell in row] for row in block.rows if any(cell.strip() for cell in row)]
        if not rows:
            continue
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        if lines and lines[-1] != "":
            lines.append("")
        lines.append("| " + " | ".join(rows[0]) + " |")
        lines.append("| " + " | ".join("---" for _ in range(width)) + " |")
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines).strip() + "\n"


def instruction_from_word(documents: ProjectDocuments, subtask_id: str, path: Path) -> PutFile:
    """The subtask's instruction replaced by the Markdown of a .docx (one undo step)."""
    command = set_instruction(documents, subtask_id, word_to_markdown(Path(path)))
    command.label = f"Import the instruction of {subtask_id} from {Path(path).name}"
    return command


def brief_from_word(documents: ProjectDocuments, path: Path) -> PutFile:
    command = set_brief(documents, word_to_markdown(Path(path)))
    command.label = f"Import the project brief from {Path(path).name}"
    return command
