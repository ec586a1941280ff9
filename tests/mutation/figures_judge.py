"""The tests' judge: a loopback chat-completions server that decides each criterion from the evidence the
request carries, the way a careful reader of figures would.

- A requirement holds when every figure its text names is in each file it covers (and, for a requirement
  naming no figure, when most of its longer words are in them).
- A fatal gate holds when a file it covers is not in the evidence at all (missing), or is empty.
- A failure condition holds when it names figures, all of them are in its files, and most of its longer
  words are too (the fault is written there).

It reads only the request, as a hosted model would: the criteria listed under "# Criteria to judge" with
their "Covers:" lines, and the files between the fence lines.
"""

from __future__ import annotations

import re

from tests.judging.chat_server import Reply, Request, completion

_CRITERION = re.compile(r"^- (?P<id>\S+) \((?P<role>[^)]*)\): (?P<text>.*)$")
_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])(?![.,]\d)")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{5,}")
WORD_SHARE = 0.6


def figures(text: str) -> list[str]:
    found = []
    for figure in _NUMBER.findall(text):
        plain = figure.replace(",", "")
        if "." not in plain and (len(plain) < 3 or 1900 <= int(plain) <= 2100):
            continue
        found.append(figure)
    return found


def _has_figure(text: str, figure: str) -> bool:
    return re.search(rf"(?<![\d])(?<![\d][.,]){re.escape(figure)}(?![\d])(?![.,]\d)", text) is not None


def _words_share(statement: str, text: str) -> float:
    words = {w.lower() for w in _WORD.findall(statement)}
    if not words:
        return 1.0
    lowered = text.lower()
    return sum(1 for w in words if w in lowered) / len(words)


def parse(request: Request) -> tuple[list[dict], dict[str, str]]:
    """(the criteria asked: id, role, text, covers), the evidence's files by path."""
    text = request.user_text
    token = re.search(r"<<<EVIDENCE (\w+)>>>", text)
    files: dict[str, str] = {}
    if token:
        start = text.index(token.group(0)) + len(token.group(0))
        end = text.index(f"<<<END OF EVIDENCE {token.group(1)}>>>")
        mark = f"<<<FILE {token.group(1)}>>> "
        for part in text[start:end].split(mark)[1:]:
            head, _, body = part.partition("\n")
            path = re.sub(r" \([^)]*\)$", "", head.strip())
            files[path] = body
    criteria: list[dict] = []
    section = text.split("# Criteria to judge", 1)[-1]
    for line in section.splitlines():
        match = _CRITERION.match(line)
        if match:
            criteria.append({"id": match["id"], "role": match["role"], "text": match["text"], "covers": []})
        elif line.strip().startswith("Covers:") and criteria:
            criteria[-1]["covers"] = [p.strip() for p in line.split(":", 1)[1].split(",") if p.strip()]
    return criteria, files


def decide(criterion: dict, files: dict[str, str]) -> bool:
    covered = criterion["covers"] or list(files)
    shown = [files[path] for path in covered if path in files]
    text = "\n".join(shown)
    role = criterion["role"]
    if role.startswith("fatal gate"):
        return any(path not in files or not files[path].strip() for path in covered)
    named = figures(criterion["text"])
    if role.startswith("failure condition"):
        return bool(named) and all(_has_figure(text, f) for f in named) and \
            _words_share(criterion["text"], text) >= WORD_SHARE
    if len(shown) < len(covered):
        return False
    if named:  # in each file it covers: a requirement on several files asks them all to agree
        return all(_has_figure(files[path], f) for path in covered for f in named)
    return _words_share(criterion["text"], text) >= WORD_SHARE


def figures_judge(request: Request) -> Reply:
    import json

    criteria, files = parse(request)
    answer = {"verdicts": [{"criterion": c["id"], "holds": decide(c, files),
                            "rationale": "decided from the figures and words of the covered files",
                            "evidence": c["covers"][:1]} for c in criteria]}
    return Reply(body=completion(json.dumps(answer)))
