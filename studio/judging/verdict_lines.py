"""The verdict store's own file layout read without YAML: one regular expression per block, the way
`render_file` writes every block (fields in FIELD_ORDER, one per line, values plain or double-quoted
without escapes). A review of 100,000 decisions reads some 200,000 verdicts; libyaml plus pydantic
take about 100 µs a block, this a few.

Anything the expression does not take exactly - a hand-edited file, an escape, a field it does not
know (a later format), a duplicate, a YAML-special plain value - returns None, and the caller reads
the file the full way (YAML, pydantic), which gives the same verdicts or the same error message
naming the line. So this path only ever speeds up files it reads to the same result."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeGuard, cast

import yaml

from studio.judging.verdicts import Verdict

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PLAIN = r"[A-Za-z0-9_][A-Za-z0-9_.:/@+-]*"
_QUOTED = r'"[^"\\\x00-\x1f\x7f]*"'  # no escape, no quote inside, no control character: the text is literal
_HEAD = re.compile(rf"(?:#[^\n]*\n)?format: 1\nsubmission: (?:{_PLAIN}|{_QUOTED})\nrater: (?P<rater>{_PLAIN}|{_QUOTED})"
                   r"\nverdicts:(?P<empty> \[\])?\n")
_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)"
_BLOCK = re.compile(
    rf"  - scope: (?P<scope>{_PLAIN}|{_QUOTED})\n"
    rf"    criterion: (?P<criterion>{_PLAIN}|{_QUOTED})\n"
    r"    verdict: (?P<verdict>pass|fail|na|missing)\n"
    rf"(?:    by: (?P<by>{_PLAIN}|{_QUOTED})\n)?"
    r"(?:    role: (?P<role>author|rater|adjudicator)\n)?"
    rf'    time: "(?P<time>{_TIME})"\n'
    rf"    criterion_version: (?P<version>{_PLAIN}|{_QUOTED})\n"
    rf"(?:    note: (?P<note>{_PLAIN}|{_QUOTED})\n)?"
    rf"(?:    evidence: \[(?P<evidence>(?:{_PLAIN}|{_QUOTED})(?:, (?:{_PLAIN}|{_QUOTED}))*)\]\n)?"
    rf"(?:    key: (?P<key>{_PLAIN}|{_QUOTED})\n)?")
_REF = re.compile(rf"{_PLAIN}|{_QUOTED}")
_new = Verdict.__new__
_set = object.__setattr__
_FIELDS_SET = set(Verdict.model_fields)


_STRINGS: dict[str, str | None] = {}  # plain token -> the string YAML reads, None when it reads no string


def _text(token: str) -> str | None:
    """A value as YAML reads it, when it is a string; None when only YAML can say."""
    if token.startswith('"'):
        return token[1:-1]
    found = _STRINGS.get(token, "")
    if found == "":
        found = token if yaml.load(token, Loader=_Loader) == token else None
        if len(_STRINGS) < 1 << 16:  # ids, versions and names repeat across files; a bound all the same
            _STRINGS[token] = found
    return found


_NAMES: dict[str, str | None] = {}  # token -> the id, version or name it gives a verdict, None: the full reader


def _name(token: str) -> str | None:
    """A scope, criterion id or version as YAML reads it and Verdict keeps it (a string, not empty, no
    space at either end); None when only the full reader can say. Looked up once per token."""
    found = _NAMES.get(token, "")
    if found == "":
        text = _text(token)
        found = text if _trimmed(text) else None
        if len(_NAMES) < 1 << 16:
            _NAMES[token] = found
    return found


def _trimmed(text: str | None) -> TypeGuard[str]:
    """A value Verdict keeps as it is: not empty, no space at either end."""
    return text is not None and text != "" and text == text.strip()


_TIMES: dict[str, datetime] = {}  # a time as written -> as Verdict keeps it (a judge's run writes a few)


def _time(text: str) -> datetime:
    """As Verdict stores a time: UTC, to the second."""
    found = datetime.fromisoformat(text).astimezone(UTC).replace(microsecond=0)
    if len(_TIMES) < 1 << 12:
        _TIMES[text] = found
    return found


def _opening(text: str) -> tuple[str, int, bool] | None:
    """(the rater, where the blocks start, whether the file says it has none) of a file's opening lines
    as the store writes them; None when they are not."""
    head = _HEAD.match(text)
    if head is None:
        return None
    rater = _text(head["rater"])
    if not _trimmed(rater):
        return None
    return rater, head.end(), bool(head["empty"])


def read_lines(text: str) -> tuple[str, list[Verdict]] | None:
    """(the file's rater, its verdicts) of a file as the store writes it; None: read it with YAML.

    The loop is the whole cost of reading a review's store (200,000 blocks at 100,000 decisions), so it
    looks tokens up in the dicts directly and builds each Verdict here: the values are exactly what
    model_validate would keep (pydantic's own construction costs ten times as much)."""
    opened = _opening(text)
    if opened is None:
        return None
    rater, at, empty = opened
    if empty:
        return (rater, []) if at == len(text) else None
    verdicts: list[Verdict] = []
    add = verdicts.append
    seen: set[tuple[str, str]] = set()
    match, names, times, strings = _BLOCK.match, _NAMES.get, _TIMES.get, _STRINGS.get
    end = len(text)
    while at < end:
        block = match(text, at)
        if block is None or block.end() == at:
            return None
        at = block.end()
        scope_token, criterion_token, value, by, role, time, version_token, note, evidence, key = block.groups()
        # a token seen before is one dict lookup; `or` asks _name for a new one (and for a bad one, which it
        # answers None from its own table again)
        scope = names(scope_token) or _name(scope_token)
        criterion = names(criterion_token) or _name(criterion_token)
        version = names(version_token) or _name(version_token)
        if scope is None or criterion is None or version is None or (scope, criterion) in seen:
            return None  # a YAML-special or empty value, a space, a duplicate: the full reader says what is wrong
        seen.add((scope, criterion))
        if by is not None:
            by = names(by) or _name(by)
            if by is None:
                return None
        if note is not None:
            note = note[1:-1] if note[0] == '"' else strings(note) or _text(note)
            if note is None:
                return None
        if evidence is None:
            refs: list[str | None] = []
        elif ", " not in evidence:
            refs = [evidence[1:-1] if evidence[0] == '"' else strings(evidence) or _text(evidence)]
        else:
            refs = [_text(ref) for ref in _REF.findall(evidence)]
        if refs and None in refs:
            return None
        if key is not None:
            key = _text(key)
            if key is None:
                return None
        verdict = _new(Verdict)
        # the fields in the model's order (a dump follows the instance's own order)
        _set(verdict, "__dict__", {"criterion": criterion, "scope": scope, "verdict": value, "rater": rater,
                                   "time": times(time) or _time(time), "criterion_version": version,
                                   "note": note, "evidence": refs, "key": key, "by": by,
                                   "role": role})
        # one set for every verdict read: a model's fields set is only read, and copied before a copy
        # changes it (model_copy); one less object per verdict for the cyclic collector to walk
        _set(verdict, "__pydantic_fields_set__", _FIELDS_SET)
        _set(verdict, "__pydantic_extra__", None)
        _set(verdict, "__pydantic_private__", None)
        add(verdict)
    if not verdicts:
        return None  # `verdicts:` with nothing under it is YAML's null: the full reader decides
    return rater, verdicts


Given = tuple[str, list[tuple[str, str]], tuple[str, ...], tuple[str, ...]]
"""What a score needs of a file: its rater, and each verdict's (scope, criterion id), verdict and
criterion version, in file order."""

_BLOCKS = re.compile(f"({_BLOCK.pattern})")  # every block with its whole text, to see that they tile the file


def read_given(text: str) -> Given | None:
    """(the file's rater, each verdict's decision, verdict and criterion version) of exactly the files
    `read_lines` reads, None for every other; no Verdict is built. The score sheet reads the store
    through this: the blocks are taken by one `findall`, and each distinct token is checked once
    per file rather than once per block, which is most of what `read_lines` spends."""
    opened = _opening(text)
    if opened is None:
        return None
    rater, at, empty = opened
    if empty:
        return (rater, [], (), ()) if at == len(text) else None
    found = _BLOCKS.findall(text, at)
    if not found:
        return None  # `verdicts:` with nothing under it, or no block where one must start
    whole, scopes, criteria, values, bys, _roles, times, versions, notes, evidence, keys = zip(*found, strict=True)
    # matches never overlap, so blocks whose lengths add up to the rest of the text follow each other
    # from `at` to the end: exactly the blocks read_lines matches one after the other
    if sum(map(len, whole)) != len(text) - at:
        return None
    known = _NAMES.get
    names = {token: known(token) or _name(token) for token in {*scopes, *criteria, *versions}}
    if None in names.values():
        return None
    name = cast(Callable[[str], str], names.__getitem__)  # none is None (just checked)
    decisions = list(zip(map(name, scopes), map(name, criteria), strict=True))
    if len(set(decisions)) != len(decisions):
        return None  # a decision listed twice: the full reader names both lines
    # findall gives "" for a field a block leaves out (no token of these is empty); a quoted note or
    # single reference is literal text already
    if (any(_name(token) is None for token in set(bys) if token)
            or any(_text(token) is None for token in set(notes) if token and token[0] != '"')
            or any(_text(ref) is None for refs in set(evidence) if refs and (refs[0] != '"' or ", " in refs)
                   for ref in _REF.findall(refs))
            or any(_text(token) is None for token in set(keys) if token)):
        return None
    for time in set(times):
        if time not in _TIMES:
            try:
                _time(time)
            except ValueError:  # a date the calendar does not have: the full reader raises
                return None
    return rater, decisions, values, tuple(map(name, versions))
