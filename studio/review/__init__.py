"""Review of a project's rubrics against its instructions, release schedule and references."""

from studio.review.impact import CoveringCriterion, ImpactReport, impact_of
from studio.review.runner import ReviewReport, review_loaded, review_project
from studio.review.weights import WeightShares

__all__ = ["CoveringCriterion", "ImpactReport", "impact_of", "ReviewReport", "review_loaded", "review_project",
           "WeightShares"]
