"""Agreement between raters (an LLM judge and experts): coefficients, intervals, reports."""

from studio.agreement.analysis import Analysis, analyse
from studio.agreement.ratings import Ratings, RatingsBuilder, normalise_label
from studio.agreement.reader import RatingTableError, read_rating_table
from studio.agreement.results import AgreementReport, Block

__all__ = ["AgreementReport", "Block", "Analysis", "analyse", "Ratings", "RatingsBuilder", "normalise_label",
           "RatingTableError", "read_rating_table"]
