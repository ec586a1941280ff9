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

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import PurePosixPath

from studio.review.context import ReviewContext
from studio.review.locations import evaluator_path, material_path, text_line
from studio.validation.findings import Severity

RULES = {
    "facts.before-release": "An instruction or the brief states a figure or name that only a later material or an "
                            "evaluator-only reference holds.",
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
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:[-'][A-Za-z]+)*(?:(?: | & )[A-Z][a-z]{2,}(?:[-'][A-Za-z]+)*)+\b")
_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class Figure:
    start: int
    written: str
    keys: tuple[str, ...]  # looked up among the sources' keys: any one found is a match


def _value(number: str) -> list[Decimal]:
    """The numbers a run of digits and separators stands for: `38,9` is 38.9, `1,800` and
    `1.234,5` use thousands separators, anything else is a list (`1.5,38.9`)."""
    separators = re.findall(r"[.,]", number)
    groups = re.split(r"[.,]", number)
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
    parts = [text] if text is not None else [g for g in re.split(r",", number) if g]
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


def scan(text: str, source: bool) -> list[Figure]:
    """The figures of `text`. `source=True`: every number, as the keys under which the text
    holds it; otherwise only figures (numbers with a unit, decimals, dates), as the keys a
    source must hold for the figure to be found there."""
    found = []
    for match in _FIGURE.finditer(text):
        group = match.group
        keys: tuple[str, ...] = ()
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


class FactIndex:
    """Every source's figures, once per review."""

    def __init__(self, sources: Iterable[tuple[Source, str]]):
        self.sources: list[_Indexed] = []
        self.by_key: dict[str, list[_Indexed]] = {}
        for source, text in sources:
            if PurePosixPath(source.file).suffix.lower() in (".csv", ".tsv"):
                text = _cells_apart(text)
            keys: dict[str, int] = {}
            for figure in scan(text, source=True):
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


def build_index(ctx: ReviewContext) -> FactIndex:
    cached = ctx.memo.get("facts.index")
    if isinstance(cached, FactIndex):
        return cached
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
    index = FactIndex(sources)
    ctx.memo["facts.index"] = index
    return index


def _place(indexed: _Indexed, offset: int) -> str:
    if PurePosixPath(indexed.source.file).suffix.lower() in (".xlsx", ".xlsm", ".pdf"):
        return indexed.source.file
    line, _ = text_line(indexed.text, offset)
    return f"{indexed.source.file}:{line}"


def late_figures(index: FactIndex, text: str, now: float, own_file: str) -> list[tuple[Figure, _Indexed, int]]:
    """(figure, the first later source holding it, offset there) for each figure of `text` that
    nothing released by `now` holds (the file `own_file` itself aside)."""
    found = []
    reported: set[str] = set()
    for figure in [*scan(text, source=False), *names(text)]:
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


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    index = build_index(ctx)
    if project.info is not None:
        rel = project.info.brief
        text = ctx.text(rel)
        for figure, holder, offset in late_figures(index, text, 0, rel):
            ctx.report_text("facts.before-release", Severity.ERROR,
                            f"the brief states '{figure.written}', which no material at start holds; it first "
                            f"arrives with {holder.source.label} ({_place(holder, offset)}): remove it from the "
                            f"brief or release its source at start", rel, text, figure.start)
    for sid in project.timeline():
        if sid not in project.subtasks:
            continue
        now = ctx.positions[sid]
        rel, text = ctx.instruction(sid)
        for figure, holder, offset in late_figures(index, text, now, rel):
            ctx.report_text("facts.before-release", Severity.ERROR,
                            f"the {sid} instruction states '{figure.written}', which nothing released by {sid} "
                            f"holds (no material, earlier instruction or the brief); it first arrives with "
                            f"{holder.source.label} ({_place(holder, offset)}): remove it, or release its source "
                            f"by {sid}", rel, text, figure.start, sid)
        rubric = project.checkpoint_rubrics.get(sid)
        for criterion in rubric.criteria if rubric else []:
            if not criterion.text:
                continue
            late = late_figures(index, criterion.text, now + 0.5, "")
            if late:
                listed = "; ".join(f"'{figure.written}' ({holder.source.label}, {_place(holder, offset)})"
                                   for figure, holder, offset in late)
                ctx.report_criterion("facts.criterion-before-release", Severity.WARNING,
                                     f"criterion {criterion.key} expects figures nothing released by {sid} holds: "
                                     f"{listed}; make sure the agent can derive them from what it has",
                                     sid, criterion, "text")


__all__ = ["FactIndex", "Figure", "RULES", "build_index", "check", "late_figures", "names", "scan"]
