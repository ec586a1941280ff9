"""The agreement analysis's results as types the report writers and the app bind to.

`AgreementReport` is the whole analysis; each block of statistics (pooled, or one target,
dimension or project) is a `Block`. Blocks are TypedDicts so that `to_json()` is the
documented JSON as it is, while mypy checks every key the readers use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict


class BootstrapInterval(TypedDict):
    interval: list[float] | None  # 95% percentile interval; None when no resample defines it
    undefined_resamples: int


class Confusion(TypedDict):
    rows: str | None
    columns: str
    labels: list[str]
    counts: list[list[int]]


class JudgeRates(TypedDict):
    false_pass_rate: float | None
    false_fail_rate: float | None
    false_pass: int
    expert_fail: int
    false_fail: int
    expert_pass: int


class PairAgreement(TypedDict):
    a: str
    b: str
    n: int
    agree: int
    percent: float | None
    cohen_kappa: float | None
    gwet_ac1: float | None


class PairMean(TypedDict):
    pairs: int
    percent: float | None
    cohen_kappa: float | None
    gwet_ac1: float | None


class Block(TypedDict, total=False):
    """The statistics of one set of decisions. Keys present for every block: raters through
    krippendorff_alpha, confusion and pass_rates; the rest depend on the design."""

    raters: int
    decisions: int
    n: int
    agree: int
    percent: float | None
    percent_basis: Literal["two raters", "mean over rater pairs"]
    # the headline: agreement pooled over decision pairs (the judge's with each expert, or every
    # rater pair without a judge); with two raters the same as percent
    pooled_n: int
    pooled_agree: int
    pooled_percent: float | None
    pooled_basis: Literal["two raters", "judge-expert decision pairs", "rater decision pairs"]
    unanimous_percent: float | None
    unanimous_wilson95: list[float] | None
    wilson95: list[float] | None
    cohen_kappa: float | None
    cohen_kappa_se: float | None
    cohen_kappa_se0: float | None
    gwet_ac1: float | None
    krippendorff_alpha: float | None
    bootstrap95: dict[str, BootstrapInterval]
    confusion: Confusion | None
    pass_rates: dict[str, float | None]
    judge_vs_experts: JudgeRates | None
    pairwise: dict[str, PairAgreement]
    judge_expert: PairMean | None
    expert_expert: PairMean | None


class BootstrapSetting(TypedDict):
    resamples: int
    seed: int
    unit: Literal["item"]


# How the report writers read a block or one of its parts (they look keys up by name in
# loops over metrics); a Block, a Confusion, a JudgeRates... each is one.
BlockView = Mapping[str, Any]

# One decision on which raters disagree: criterion, item, any group values, and ratings.
Disagreement = dict[str, object]

GROUPINGS = ("by_target", "by_dimension", "by_project")


@dataclass(frozen=True)
class AgreementReport:
    raters: list[str]
    categories: list[str]
    judge: str | None
    decisions: int
    items: int
    bootstrap: BootstrapSetting | None
    pooled: Block
    by_target: dict[str, Block]
    by_dimension: dict[str, Block]
    by_project: dict[str, Block]
    disagreements: list[Disagreement]

    def groups(self, grouping: str) -> dict[str, Block]:
        """The blocks of one of GROUPINGS."""
        if grouping not in GROUPINGS:
            raise KeyError(grouping)
        blocks: dict[str, Block] = getattr(self, grouping)
        return blocks

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AgreementReport:
        """The report from its to_json() (e.g. read back from a saved JSON file)."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})

    def to_json(self) -> dict[str, object]:
        """The documented JSON structure (docs/agreement.md), keys in report order."""
        return {"raters": self.raters, "categories": self.categories, "judge": self.judge,
                "decisions": self.decisions, "items": self.items, "bootstrap": self.bootstrap,
                "pooled": self.pooled, "by_target": self.by_target, "by_dimension": self.by_dimension,
                "by_project": self.by_project, "disagreements": self.disagreements}


def block_kappa(block: BlockView) -> float | None:
    """Cohen's kappa of a block: of its two raters, or with more the mean over the judge-expert pairs."""
    if block.get("raters") == 2:
        return block.get("cohen_kappa")
    pairs = block.get("judge_expert")
    return None if pairs is None else pairs.get("cohen_kappa")


def bootstrap_interval(block: BlockView, name: str) -> list[float] | None:
    """The 95 % bootstrap interval of one coefficient of a block (None: not bootstrapped, or undefined)."""
    entry = (block.get("bootstrap95") or {}).get(name)
    return entry["interval"] if entry else None
