"""Facts before release: an instruction states no figure or name that only a later file holds.

A *figure* is a number with its unit or context (`EUR 38.9m`, `4.22x`, `3.25%`, `100 bp`,
`90 days`), a number with decimals (`38.9`), or a date (`29 May 2026`, `2026-05-29`). Figures
are compared as numbers: `38.9`, `38,9`, `EUR 38.9 million` and a cell holding 38.9 are one
figure, `1638.9` is another; units must agree when both sides state one (`4.50x` is not
`4.50%`). Dates agree when day and month do and neither states a different year. A
*distinctive phrase* is a proper name of two or more capitalised words (`Tankbouw Limburg`).

Every text the agent sees gets a point in time: the brief and the materials at start 0, a
material released before subtask Tn at n, the instruction of Tn just after n (a later subtask
may build on it). A figure in the instruction of Tn that nothing at or before n holds, while a
later material or an evaluator-only reference does, reached the instruction from a file the
agent does not have yet. A figure held nowhere else is the instruction's own information.

Each source is split into figures once per review (the index below); instructions, the brief
and checkpoint criteria are then looked up in it, so the rule grows with the size of the texts,
not with their product.
"""

from __future__ import annotations

import io
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import PurePosixPath

from studio.model import Criterion
from studio.review.context import ReviewContext
from studio.review.locations import evaluator_path, material_path, text_line
from studio.validation.findings import Severity

RULES = {
    "facts.before-release": "An instruction states a figure or name, or the brief a figure, that only a later "
                            "material or an evaluator-only reference holds (the names the brief states are the "
                            "ones it introduces).",
    "facts.criterion-before-release": "A checkpoint criterion expects a figure or name that only a later material or "
                                      "an evaluator-only reference holds (warning: the agent may derive it).",
}

_MONTHS = {name: number for number, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")], start=1) for name in names}
_MONTH = "(?:" + "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True)) + r")\.?"

# Unit classes: a figure's unit decides what it may be matched with.
_SUFFIX_CLASS = {"m": "money", "bn": "money", "k": "money", "million": "money", "billion": "money",
                 "%": "percent", "per cent": "percent", "percent": "percent", "x": "multiple",
                 "bp": "bp", "bps": "bp", "basis points": "bp", "units": "units", "days": "days",
                 "months": "months", "weeks": "weeks"}
_SUFFIX = "|".join(re.escape(s) for s in sorted(_SUFFIX_CLASS, key=len, reverse=True))

_FIGURE = re.compile(
    rf"""
    (?=[\d€$£A-Z])  # a figure starts with a digit, a currency or a month: a cheap test at every other place
    (?<![\w.,])(?<!\d-)
    (?:
        (?P<iso>(?P<iy>\d{{4}})-(?P<im>\d{{2}})-(?P<id>\d{{2}}))(?!\d)
      | (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\ +(?P<month>{_MONTH})(?:,?\ +(?P<year>\d{{4}}))?(?![\w])
      | (?P<umonth>{_MONTH})\ +(?P<uday>\d{{1,2}}),\ +(?P<uyear>\d{{4}})(?!\d)
      | (?:(?P<currency>EUR|USD|GBP|CHF|€|\$|£)\ ?)?
        (?P<sign>[-−])?(?P<number>\d+(?:[.,]\d+)*)
        (?:\ ?(?P<unit>{_SUFFIX})(?![\w])|(?![\w]))
    )
    """,
    re.VERBOSE,  # case matters: `3M` is a tenor, `3m` money; `may` is a verb, `May` a month
)
_NAME = re.compile(r"[A-Z](?<!\w[A-Z])[a-z]{2,}(?:[-'][A-Za-z]+)*(?:(?: | & )[A-Z][a-z]{2,}(?:[-'][A-Za-z]+)*)+\b")
_WORDS = re.compile(r"\w+")
_SEPARATOR = re.compile(r"[.,]")
# A digit not glued to a word (`M12`, `FY2025` are ids), or a currency sign: where a figure may
# start. The character class comes first so that the search skips ahead fast.
_LOOSE_DIGIT = re.compile(r"[\d€$£](?<![\w.,]\d)").search
_CAPITAL = re.compile(r"[A-Z]").search
_RAW_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Figure:
    start: int
    written: str
    keys: tuple[str, ...]  # looked up among the sources' keys: any one found is a match


def _value(number: str) -> list[Decimal]:
    """The numbers a run of digits and separators stands for: `38,9` is 38.9, `1,800` and
    `1.234,5` use thousands separators, anything else is a list (`1.5,38.9`)."""
    separators = _SEPARATOR.findall(number)
    groups = _SEPARATOR.split(number)
    text: str | None
    if not separators:
        text = number
    elif len(separators) == 1:
        thousands = separators[0] == "," and len(groups[1]) == 3 and groups[0] != "0"
        text = groups[0] + groups[1] if thousands else groups[0] + "." + groups[1]
    elif all(len(g) == 3 for g in groups[1:-1]) and len(set(separators[:-1])) == 1:
        last = separators[-1]
        if last != separators[0]:  # 1,234.5 or 1.234,5
            text = "".join(groups[:-1]) + "." + groups[-1]
        elif len(groups[-1]) == 3:  # 1,234,567
            text = "".join(groups)
        else:
            text = None
    else:
        text = None
    parts = [text] if text is not None else [g for g in number.split(",") if g]
    values = []
    for part in parts:
        try:
            values.append(Decimal(part if part.count(".") <= 1 else part.replace(".", "", part.count(".") - 1)))
        except InvalidOperation:
            continue
    return values


def _number_text(value: Decimal) -> str:
    value = abs(value)
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    if value.as_tuple().exponent < -8:  # type: ignore[operator]  # a float written out by a spreadsheet
        value = value.quantize(Decimal("1e-8"))
    return format(value.normalize(), "f")


def _date_keys(day: int, month: int, year: int | None, source: bool) -> tuple[str, ...]:
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return ()
    if source:
        return (f"d{day}-{month}-{year}", f"d{day}-{month}") if year else (f"d{day}-{month}", f"d{day}-{month}-*")
    return (f"d{day}-{month}-{year}", f"d{day}-{month}-*") if year else (f"d{day}-{month}",)


def scan(text: str, source: bool, quick: set[str] | None = None) -> list[Figure]:
    """The figures of `text`. `source=True`: every number, as the keys under which the text
    holds it; otherwise only figures (numbers with a unit, decimals, dates), as the keys a
    source must hold for the figure to be found there. `quick`: skip the numbers (and dates
    by their day) not among these, which no figure asked about can match."""
    found = []
    for match in _FIGURE.finditer(text):
        group = match.group
        keys: tuple[str, ...] = ()
        if quick is not None and not _wanted(match, quick):
            continue
        if group("iso"):
            keys = _date_keys(int(group("id")), int(group("im")), int(group("iy")), source)
        elif group("day"):
            year = group("year")
            keys = _date_keys(int(group("day")), _MONTHS[group("month").lower().rstrip(".")],
                              int(year) if year else None, source)
        elif group("umonth"):
            keys = _date_keys(int(group("uday")), _MONTHS[group("umonth").lower().rstrip(".")],
                              int(group("uyear")), source)
        else:
            unit = group("unit")
            kind = "money" if group("currency") else _SUFFIX_CLASS.get(unit.lower()) if unit else None
            values = _value(group("number"))
            decimal = len(values) == 1 and "." in _number_text(values[0])
            if not source and not (kind or decimal):
                continue  # a bare integer: a year, a count, a list number - no figure on its own
            keys = tuple(key for value in values for key in _number_keys(value, kind, source))
        if keys:
            found.append(Figure(match.start(), match.group(0), keys))
    return found


def _wanted(match: re.Match[str], quick: set[str]) -> bool:
    number = match.group("number")
    if number is not None:
        return bool(_raw_values(number) & quick)
    day = match.group("id") or match.group("day") or match.group("uday")
    return str(int(day)) in quick


def _number_keys(value: Decimal, kind: str | None, source: bool) -> tuple[str, ...]:
    number = _number_text(value)
    if source:
        keys: tuple[str, ...] = (f"{number}|{kind}", f"{number}|*") if kind else (f"{number}|", f"{number}|*")
        if kind is None and Decimal(0) < abs(value) < 1:  # a share in a cell (0.35) is also a percentage (35%)
            keys += (f"{_number_text(value * 100)}|percent",)
        return keys
    return (f"{number}|{kind}", f"{number}|") if kind else (f"{number}|*",)


def names(text: str) -> list[Figure]:
    """Proper names of two or more capitalised words, each keyed by its lower-cased words."""
    return [Figure(m.start(), m.group(0), ("n " + " ".join(_WORDS.findall(m.group(0).lower())) + " ",))
            for m in _NAME.finditer(text)]


@dataclass(frozen=True)
class Source:
    label: str  # "M12, released before T06", "evaluator-only reference R01", ...
    file: str
    when: float  # the point from which the agent has it; references: never
    material: bool


@dataclass
class _Indexed:
    source: Source
    text: str
    keys: dict[str, int]  # figure key -> first offset
    words: str  # " lower-cased words joined by spaces ", for names


@lru_cache(maxsize=65536)
def _raw_values(token: str) -> frozenset[str]:
    """The numbers a bare run of digits may stand for (a share 0.35 also as 35)."""
    values = set()
    for value in _value(token.lstrip("-−")):
        values.add(_number_text(value))
        if Decimal(0) < value < 1:
            values.add(_number_text(value * 100))
    return frozenset(values)


def _quick_values(figures: Iterable[Figure]) -> set[str]:
    """The bare numbers a source must contain to hold any of `figures` (a date's day and year)."""
    quick: set[str] = set()
    for figure in figures:
        for key in figure.keys:
            if key.startswith("d"):
                quick.update(part for part in key[1:].split("-")[::2] if part != "*")
            elif not key.startswith("n "):
                quick.add(key.split("|", 1)[0])
    return quick


class FactIndex:
    """The figures of every source, split once per review. Only sources that contain one of the
    numbers asked about (`quick`) are read closely: a project's materials hold far more numbers
    than its instructions and criteria state."""

    def __init__(self, sources: Iterable[tuple[Source, str]], quick: set[str]):
        self.sources: list[_Indexed] = []
        self.by_key: dict[str, list[_Indexed]] = {}
        for source, text in sources:
            if PurePosixPath(source.file).suffix.lower() in (".csv", ".tsv"):
                text = _cells_apart(text)
            keys: dict[str, int] = {}
            if quick and any(_raw_values(token) & quick for token in set(_RAW_NUMBER.findall(text))):
                for figure in scan(text, source=True, quick=quick):
                    for key in figure.keys:
                        keys.setdefault(key, figure.start)
            indexed = _Indexed(source, text, keys, "")
            self.sources.append(indexed)
            for key in keys:
                self.by_key.setdefault(key, []).append(indexed)

    def holders(self, figure: Figure) -> list[tuple[_Indexed, int]]:
        """(source, offset) of every source holding the figure."""
        if figure.keys[0].startswith("n "):
            return [(s, s.text.lower().find(figure.written.lower())) for s in self.sources
                    if figure.keys[0][1:] in self._words(s)]
        found: dict[int, tuple[_Indexed, int]] = {}
        for key in figure.keys:
            for indexed in self.by_key.get(key, ()):
                found.setdefault(id(indexed), (indexed, indexed.keys[key]))
        return list(found.values())

    @staticmethod
    def _words(indexed: _Indexed) -> str:
        if not indexed.words:  # built on first use: most projects' instructions name few names
            indexed.words = " " + " ".join(_WORDS.findall(indexed.text.lower())) + " "
        return indexed.words


def _cells_apart(text: str) -> str:
    """A comma-separated table with its separators turned into spaces (same length), so that
    `1.620,100.0` reads as two cells, not one number; `;`-separated tables keep their commas."""
    first = text.split("\n", 1)[0]
    return text.replace(",", " ") if "," in first and ";" not in first else text


def build_index(ctx: ReviewContext, asked: Iterable[Figure]) -> FactIndex:
    """The index of every text the agent or the judges see, for the figures `asked` about."""
    project = ctx.project
    sources: list[tuple[Source, str]] = []
    if project.info is not None:
        sources.append((Source("the brief", project.info.brief, 0, False), ctx.text(project.info.brief)))
    for material in project.materials.materials if project.materials else []:
        when = project.release_position(material)
        if material.file and when is not None:
            release = "at start" if when == 0 else f"before {material.release.subtask}"
            rel = material_path(material.file)
            sources.append((Source(f"{material.id}, released {release}", rel, when, True), ctx.text(rel)))
    for sid in project.timeline():
        if sid in project.subtasks:
            rel, text = ctx.instruction(sid)
            sources.append((Source(f"the {sid} instruction", rel, ctx.positions[sid] + 0.5, False), text))
    for reference in project.references.references if project.references else []:
        rel = evaluator_path(reference.file)
        sources.append((Source(f"evaluator-only reference {reference.id}", rel, float("inf"), False),
                        ctx.text(rel)))
    return FactIndex(sources, _quick_values(asked))


def _place(ctx: ReviewContext, indexed: _Indexed, offset: int, figure: Figure) -> str:
    """Where a source holds a figure: file:line, a workbook's sheet and cell, or a PDF's file."""
    suffix = PurePosixPath(indexed.source.file).suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        wanted = set(figure.keys)
        cell = next((label for label, keys in _cells(ctx, indexed.source.file) if wanted & keys), None)
        return f"{indexed.source.file}, {cell}" if cell else indexed.source.file
    if suffix == ".pdf":
        return indexed.source.file
    line, _ = text_line(indexed.text, offset)
    return f"{indexed.source.file}:{line}"


def _cells(ctx: ReviewContext, rel: str) -> list[tuple[str, frozenset[str]]]:
    """("sheet Plan, cell B3", the figure keys it holds) for every cell of a workbook that holds
    a number, read once per review and only when a finding must name a cell."""
    memo = ctx.memo.setdefault("facts.cells", {})
    assert isinstance(memo, dict)
    if rel not in memo:
        memo[rel] = _read_cells(ctx.data(rel))
    return memo[rel]


def _read_cells(data: bytes | None) -> list[tuple[str, frozenset[str]]]:
    if data is None:
        return []
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    except Exception:  # a damaged workbook: the file name alone must do
        return []
    found = []
    try:
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    value = getattr(cell, "value", None)
                    if value is not None and hasattr(cell, "coordinate"):
                        keys = frozenset(key for figure in scan(str(value), source=True) for key in figure.keys)
                        if keys:
                            found.append((f"sheet {sheet.title}, cell {cell.coordinate}", keys))
    finally:
        book.close()
    return found


def stated(text: str, with_names: bool = True) -> list[Figure]:
    """The figures (and, `with_names`, the names) a text states."""
    # Most criteria hold no digit and no capital past the first letter: skip the two scans then.
    figures = scan(text, source=False) if _LOOSE_DIGIT(text) else []
    if with_names and _CAPITAL(text, 1):
        figures += names(text)
    return figures


def late_figures(index: FactIndex, figures: list[Figure], now: float,
                 own_file: str) -> list[tuple[Figure, _Indexed, int]]:
    """(figure, the first later source holding it, offset there) for each of `figures` that
    nothing released by `now` holds (the file `own_file` itself aside)."""
    found = []
    reported: set[str] = set()
    for figure in figures:
        if figure.keys[0] in reported:
            continue
        holders = [(s, o) for s, o in index.holders(figure) if s.source.file != own_file]
        if not holders or any(s.source.when <= now for s, _ in holders):
            continue  # its own information, or already released
        later = [(s, o) for s, o in holders if s.source.material or s.source.when == float("inf")]
        if not later:
            continue  # only a later instruction repeats it: the instructions agree, nothing leaked
        first = min(later, key=lambda pair: (pair[0].source.when, pair[0].source.file))
        reported.add(figure.keys[0])
        found.append((figure, *first))
    return sorted(found, key=lambda item: item[0].start)


# A digit, or a capital: what a figure or a name needs (one character class: a fast scan).
_FIGURE_OR_NAME = re.compile(r"[0-9A-Z]")


def _worth_reading(criteria: list[Criterion]) -> list[Criterion]:
    """The criteria whose text could state a figure or a name (a digit, or a capital past the
    first letter), found in one pass over the rubric: a rubric may hold thousands of criteria,
    few of which state any."""
    starts: list[int] = []
    pieces: list[str] = []
    offset = 0
    for criterion in criteria:
        text = criterion.text or ""
        starts.append(offset)
        pieces.append(text[:1].lower() + text[1:] + "\n")
        offset += len(text) + 1
    hits = {bisect_right(starts, m.start()) - 1 for m in _FIGURE_OR_NAME.finditer("".join(pieces))}
    return [criteria[i] for i in sorted(hits)]


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    # What each text states, first: the index then reads closely only the sources that could hold it.
    asked: list[tuple[str, str | None, str, str, list[Figure]]] = []  # (kind, subtask, file, text, figures)
    if project.info is not None:
        rel = project.info.brief
        text = ctx.text(rel)
        # The brief's names are not asked about: the brief is where a project introduces its
        # client, its people and the other parties, and the agent reads it first, so a later
        # file that names them again is not where the name came from (the client's own name was
        # flagged). Its figures and dates are facts with a time, and still checked.
        asked.append(("brief", None, rel, text, stated(text, with_names=False)))
    for sid in project.timeline():
        if sid not in project.subtasks:
            continue
        rel, text = ctx.instruction(sid)
        asked.append(("instruction", sid, rel, text, stated(text)))
        rubric = project.checkpoint_rubrics.get(sid)
        for criterion in _worth_reading(rubric.criteria if rubric else []):
            text = criterion.text or ""
            asked.append(("criterion", sid, criterion.key, text, stated(text)))
    if not any(figures for *_, figures in asked):
        return
    index = build_index(ctx, (figure for *_, figures in asked for figure in figures))
    criteria = {(sid, c.key): c for sid, rubric in project.checkpoint_rubrics.items() for c in rubric.criteria}
    for kind, owner, rel, text, figures in asked:
        if not figures:
            continue
        if kind == "brief":
            for figure, holder, offset in late_figures(index, figures, 0, rel):
                place = _place(ctx, holder, offset, figure)
                ctx.report_text("facts.before-release", Severity.ERROR,
                                f"the brief states '{figure.written}', which no material at start holds; it first "
                                f"arrives with {holder.source.label} ({place}): remove it from the brief or release "
                                "its source at start", rel, text, figure.start)
        elif kind == "instruction" and owner is not None:
            for figure, holder, offset in late_figures(index, figures, ctx.positions[owner], rel):
                place = _place(ctx, holder, offset, figure)
                ctx.report_text("facts.before-release", Severity.ERROR,
                                f"the {owner} instruction states '{figure.written}', which nothing released by "
                                f"{owner} holds (no material, earlier instruction or the brief); it first arrives "
                                f"with {holder.source.label} ({place}): remove it, or release its source by {owner}",
                                rel, text, figure.start, owner)
        elif owner is not None:
            # Judged on what the agent had at its subtask, its instruction included.
            late = late_figures(index, figures, ctx.positions[owner] + 0.5, "")
            if late:
                listed = "; ".join(f"'{figure.written}' ({holder.source.label}, "
                                   f"{_place(ctx, holder, offset, figure)})" for figure, holder, offset in late)
                ctx.report_criterion("facts.criterion-before-release", Severity.WARNING,
                                     f"criterion {rel} expects figures nothing released by {owner} holds: "
                                     f"{listed}; make sure the agent can derive them from what it has",
                                     owner, criteria[(owner, rel)], "text")


__all__ = ["FactIndex", "Figure", "RULES", "build_index", "check", "late_figures", "names", "scan", "stated"]
