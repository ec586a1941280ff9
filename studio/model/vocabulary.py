"""The domain's fixed words: rubric targets, quality dimensions and scope names.

Kept free of pydantic so that light readers (the verdict-table scorer) can share them.
"""

from __future__ import annotations

from enum import Enum

# The scope of the final rubric, beside subtask ids for checkpoint rubrics.
FINAL_SCOPE = "final"
# In a criterion's `covers`, the whole final package rather than one deliverable.
PACKAGE = "package"


class Target(str, Enum):
    CHECKPOINT = "checkpoint"
    ARTIFACT = "artifact"
    CROSS_FILE = "cross-file"
    PACKAGE = "package"


class Dimension(str, Enum):
    CORRECTNESS = "correctness"
    COMPLETENESS = "completeness"
    CONSISTENCY = "consistency"
    PROFESSIONALISM = "professionalism"
    USABILITY = "usability"


# Targets scored in the final rubric, in report order.
FINAL_TARGETS = (Target.ARTIFACT, Target.CROSS_FILE, Target.PACKAGE)
