"""Review of a project's rubrics against its instructions, release schedule and references."""

from studio.review.impact import ImpactReport, impact_of
from studio.review.runner import ReviewReport, review_project

__all__ = ["ImpactReport", "impact_of", "ReviewReport", "review_project"]
