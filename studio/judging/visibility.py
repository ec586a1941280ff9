"""Blind review's one rule: which verdicts of a decision the person at the screen may see.

A rater reviewing blind sees nothing of a decision but their own verdict until they have given it:
not the judge's, not the other raters', not the adjudicated one (any of them would anchor their
call). Once they have given theirs, or out of blind mode, they see everything; an adjudicator
settles differences and so always sees every verdict. Every view (review, adjudication, scores,
agreement, the rubric editor's calibration) asks this rule, never its own copy of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

Role = Literal["rater", "adjudicator"]
ROLES: tuple[Role, ...] = ("rater", "adjudicator")
V = TypeVar("V")


@dataclass(frozen=True)
class Viewer:
    """Who looks at the verdicts: their rater name ("" before they have typed one), role and blind mode."""

    name: str = ""
    role: Role = "rater"
    blind: bool = True

    @property
    def is_adjudicator(self) -> bool:
        return self.role == "adjudicator"

    def sees_all(self, ratings: Mapping[str, object]) -> bool:
        """Every verdict of a decision (rater -> verdict) may be shown to this viewer."""
        if self.is_adjudicator or not self.blind:
            return True
        return bool(self.name) and self.name in ratings

    def visible(self, ratings: Mapping[str, V]) -> dict[str, V]:
        """The verdicts of a decision this viewer may see: all of them, or only their own (none
        before they have given it)."""
        if self.sees_all(ratings):
            return dict(ratings)
        return {rater: verdict for rater, verdict in ratings.items() if rater == self.name}

    def hides_any(self) -> bool:
        """Whether this viewer may be kept from some verdicts at all (a blind rater)."""
        return self.blind and not self.is_adjudicator


EVERYTHING = Viewer(role="adjudicator", blind=False)
"""What scripts and the command line see: every verdict of the store."""
