"""Paraphrased leaks: an instruction or the brief restates an evaluator-only note in other words.

`leak.reference-quoted` catches copied runs of 12+ words; a rewording ("never let the Zuidkust
fallback reach a lender document") shares few runs but most words. Each sentence of the brief
and of every instruction is compared with each sentence of every reference by rapidfuzz's
token-set ratio on lower-cased words without stop words (word order and repeated words do not
matter, shared words do); pairs sharing fewer than two word stems are not scored. A sentence at or above `THRESHOLD` is a paraphrase, unless a material
released by then says the same at least as closely: then the reference summarises what the
agent already has. The threshold and the word limits were tuned on the sample
(tests/review/data/paraphrases.csv; precision and recall in docs/review-rules.md).

Materials are not checked: references summarise materials by design (R03 restates M15), and
the agent is meant to have those; the texts authors write *for* the agent are the ones that
may carry a judge's knowledge into the run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from studio.review.context import ReviewContext
from studio.review.locations import evaluator_path, material_path
from studio.validation.findings import Severity

RULES = {
    "leak.reference-paraphrased": "A sentence of the brief or an instruction closely paraphrases a sentence of an "
                                  "evaluator-only reference.",
}

THRESHOLD = 80.0  # token-set ratio, 0-100, on content words
MIN_WORDS = 6  # content words an agent-facing sentence needs to be compared at all: shorter ones are generic
REFERENCE_MIN_WORDS = 3  # a reference line may be terse ("The restatement moves only the base year.")
# A reference sentence much shorter than the agent's is a fragment the agent's sentence merely
# contains (a table cell "Repay RCF cash drawings"), which the token-set ratio would score 100.
MIN_LENGTH_RATIO = 0.6
STEM_LETTERS = 5
MIN_SHARED_STEMS = 2

# Function words carry no content: two sentences sharing only these are not saying the same thing.
STOP_WORDS = frozenset(
    """a about above after again against all also an and any are as at be because been before being below between
    both but by can could did do does doing down during each either even every few for from further had has have
    having he her here hers him his how however i if in into is it its itself just may me might more most must my
    neither no nor not now of off on once only or other our ours out over own per same shall she should so some
    such than that the their theirs them then there these they this those through to too under until up upon us
    very was we were what when where whether which while who whom why will with within would yet you your""".split()
)

# Sentences end at . ! ? ; (a bold heading's "**Fleet.**" included), blank lines, list items and table cells.
# The first lookahead only makes the scan fast: a boundary always starts with a space, `*` or `|`.
_SENTENCE_END = re.compile(r"(?=[\s*|])(?:(?<=[.!?;])\**\s+|\n\s*\n|\n(?=\s*(?:[-*+|#]|\d+\.)\s)|\|)")
_WORD = re.compile(r"[^\W_]+(?:[.,'][^\W_]+)*")


@dataclass(frozen=True)
class Sentence:
    start: int
    text: str
    words: str  # content words, lower-cased, space-separated


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def sentences(text: str, min_words: int = MIN_WORDS) -> list[Sentence]:
    """The sentences (and list items, table cells) of `text` with at least `min_words` content words."""
    found = []
    start = 0
    for boundary in [*_SENTENCE_END.finditer(text), None]:
        end = boundary.start() if boundary else len(text)
        piece = text[start:end]
        words = content_words(piece)
        if len(words) >= min_words:
            offset = start + len(piece) - len(piece.lstrip())
            found.append(Sentence(offset, " ".join(piece.split()), " ".join(words)))
        start = boundary.end() if boundary else len(text)
    return found


def similarity(a: str, b: str) -> float:
    """0-100: how closely two sentences' content words (as `Sentence.words`) agree."""
    return float(fuzz.token_set_ratio(a, b))


@dataclass(frozen=True)
class Paraphrase:
    sentence: Sentence
    reference_id: str
    reference: Sentence
    score: float


class ReferenceSentences:
    """Every reference's sentences, split once per review, with the sentences each word stem
    occurs in: a sentence is scored only against reference sentences sharing `MIN_SHARED_STEMS`
    stems with it (a sentence sharing fewer says something else), which spares most pairs."""

    def __init__(self, references: Iterable[tuple[str, str]]):
        self.owners: list[str] = []
        self.sentences: list[Sentence] = []
        self.postings: dict[str, list[int]] = {}
        for ref_id, text in references:
            for sentence in sentences(text, min_words=REFERENCE_MIN_WORDS):
                for stem in _stems(sentence.words):
                    self.postings.setdefault(stem, []).append(len(self.sentences))
                self.owners.append(ref_id)
                self.sentences.append(sentence)
        self.lengths = [len(s.words.split()) for s in self.sentences]

    def paraphrases(self, text: str, threshold: float = THRESHOLD) -> list[Paraphrase]:
        """The sentences of `text` at or above `threshold` against some reference sentence,
        each with its closest one."""
        found = []
        for sentence in sentences(text) if self.sentences else []:
            shared = Counter(i for stem in _stems(sentence.words) for i in self.postings.get(stem, ()))
            shortest = MIN_LENGTH_RATIO * len(sentence.words.split())
            choices = {i: self.sentences[i].words for i, count in shared.items()
                       if count >= MIN_SHARED_STEMS and self.lengths[i] >= shortest}
            best = process.extractOne(sentence.words, choices, scorer=fuzz.token_set_ratio, score_cutoff=threshold)
            if best is not None:
                _, score, i = best
                found.append(Paraphrase(sentence, self.owners[i], self.sentences[i], float(score)))
        return found


def _stems(words: str) -> set[str]:
    """The first letters of each word: "lender" and "lenders" share a stem."""
    return {word[:STEM_LETTERS] for word in words.split()}


class ReleasedSentences:
    """The sentences of every material in order of release, each material split on first use:
    most instructions paraphrase nothing, and a candidate usually meets its material early."""

    def __init__(self, ctx: ReviewContext):
        self.ctx = ctx
        project = ctx.project
        released = []
        for material in project.materials.materials if project.materials else []:
            when = project.release_position(material)
            if material.file and when is not None:
                released.append((when, material_path(material.file)))
        self.released = sorted(released, key=lambda pair: pair[0])
        self._sentences: dict[str, list[str]] = {}

    def says(self, paraphrase: Paraphrase, now: int) -> bool:
        """True when a material released by `now` says the sentence at least as closely as the reference."""
        for when, rel in self.released:
            if when > now:
                break
            if rel not in self._sentences:
                self._sentences[rel] = [s.words for s in sentences(self.ctx.text(rel), REFERENCE_MIN_WORDS)]
            if process.extractOne(paraphrase.sentence.words, self._sentences[rel], scorer=fuzz.token_set_ratio,
                                  score_cutoff=paraphrase.score) is not None:
                return True
        return False


def check(ctx: ReviewContext) -> None:
    project = ctx.project
    references = project.references.references if project.references else []
    if not references:
        return
    index = ReferenceSentences((r.id, ctx.text(evaluator_path(r.file))) for r in references)
    texts: list[tuple[str, str | None, int]] = []  # (file, subtask, released-by point)
    if project.info is not None:
        texts.append((project.info.brief, None, 0))
    for sid in project.timeline():
        if sid in project.subtasks:
            texts.append((ctx.instruction(sid)[0], sid, ctx.positions[sid]))
    released = ReleasedSentences(ctx)
    for rel, owner, now in texts:
        text = ctx.text(rel)
        for paraphrase in index.paraphrases(text):
            if released.says(paraphrase, now):
                continue  # the reference summarises a material the agent has
            where = "the brief" if owner is None else f"the {owner} instruction"
            ctx.report_text(
                "leak.reference-paraphrased",
                Severity.ERROR,
                f"{where} paraphrases evaluator-only reference {paraphrase.reference_id} "
                f"(similarity {paraphrase.score:.0f} of 100 with \"{_excerpt(paraphrase.reference.text)}\"): "
                "say it in the instruction's own terms, or leave it to the judges",
                rel,
                text,
                paraphrase.sentence.start,
                paraphrase.reference_id,
            )


def _excerpt(text: str, words: int = 14) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")
