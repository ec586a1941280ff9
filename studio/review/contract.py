"""Contract traceability: every acceptance item of the delivery contract is tested by a final
criterion, and every deliverable that leaves the firm is checked for internal information."""

from __future__ import annotations

from studio.model.project import Circulation
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.review.context import ReviewContext
from studio.store import layout
from studio.validation.findings import Severity

READS = ("project", "rubrics")

RULES = {
    "contract.acceptance-untested": "An acceptance item of the delivery contract is tested by no final criterion "
                                    "(no `tests: [ACn]` names it).",
    "contract.external-unguarded": "A final deliverable with `circulation: external` has no final criterion, testing "
                                   "an acceptance item marked `confidentiality: true`, that covers it or the package.",
}


def check(ctx: ReviewContext) -> None:
    info = ctx.project.info
    final = ctx.project.final_rubric
    if info is None or final is None:
        return
    tested_by: dict[str, list[str]] = {}
    for criterion in final.criteria:
        for item_id in criterion.tests:
            tested_by.setdefault(item_id, []).append(criterion.key)
    for index, item in enumerate(info.delivery.acceptance):
        if item.id not in tested_by:
            ctx.report_node(
                "contract.acceptance-untested",
                Severity.ERROR,
                f"acceptance item {item.id} is tested by no final criterion: add 'tests: [{item.id}]' to the final "
                "criteria that check it, or a final criterion that does",
                layout.PROJECT_FILE,
                ("delivery", "acceptance", index, "id"),
                item.id,
            )
    guarding = {item.id for item in info.delivery.acceptance if item.confidentiality}
    guarded: set[str] = set()
    for criterion in final.criteria:
        if guarding.intersection(criterion.tests):
            guarded.update(criterion.covers)
    for index, deliverable in enumerate(info.delivery.final_deliverables):
        if deliverable.circulation is not Circulation.EXTERNAL or PACKAGE in guarded or deliverable.id in guarded:
            continue
        how = (f"have a final criterion covering {deliverable.id} (or the package) test "
               f"{' or '.join(sorted(guarding))}") if guarding else \
            ("mark the acceptance item on internal information 'confidentiality: true' (add one if the contract "
             f"has none) and have a final criterion covering {deliverable.id} (or the package) test it")
        ctx.report_node(
            "contract.external-unguarded",
            Severity.WARNING,
            f"final deliverable {deliverable.id} goes outside the firm (circulation: external), but no "
            f"{FINAL_SCOPE} criterion checks it for internal information: {how}",
            layout.PROJECT_FILE,
            ("delivery", "final_deliverables", index, "circulation"),
            deliverable.id,
        )
