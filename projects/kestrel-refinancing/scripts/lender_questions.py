"""Generate the lenders' questions on the agent's lender presentation (material M14).

Usage:
    python lender_questions.py PRESENTATION.md OUTPUT.md

Reads the presentation the agent wrote in T07 and writes the questions the three lenders raise
about it. The questions depend on what the presentation states or leaves out, so that an
incomplete or inconsistent presentation draws the follow-up a real lender group would send.
Standard library only; the output is deterministic for a given input.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LENDERS = ["Rheinwald Bank AG", "Banque Carrel SA", "Northmere Bank plc"]

HEADER = """\
**From:** Rheinwald Bank AG, Loan Syndication (as coordinating arranger)
**To:** Ines Moreau, Harrow Lane Capital Advisers
**Date:** 15 May 2026
**Subject:** Kestrel Freight: consolidated lender questions on the lender presentation

Dear Ines,

Please find below the questions of the lender group on the presentation circulated for
Kestrel Freight Holding B.V. We would be grateful for written answers, each referenced to the
model or the supporting document, ahead of the credit committees. Questions are numbered for
reference; the lender that raised each one is shown in brackets.
"""

FOOTER = """
Kind regards,
Tomas Feldmann
Director, Loan Syndication, Rheinwald Bank AG
"""


def normalise(text: str) -> str:
    """Lower-case text with thousands separators and non-breaking spaces removed."""
    text = text.replace("\u00a0", " ").replace("\u2009", " ")
    return text.lower()


def has(text: str, *needles: str) -> bool:
    return any(needle in text for needle in needles)


def has_number(text: str, value: str) -> bool:
    """True if the figure (e.g. '41.8') appears as a number, not as part of a longer one."""
    return re.search(rf"(?<![\d.]){re.escape(value)}(?![\d])", text) is not None


# Multiples on the reported FY2025 EBITDA of EUR 41.8m, which includes the Q3 disposal gain:
# opening leverage 4.01x, and 3.93x at the 31 December 2025 covenant test.
REPORTED_BASIS = ("4.01", "3.93")


def leverage_multiples(text: str) -> list[str]:
    """Multiples such as '4.31x' that appear within 160 characters after 'leverage'."""
    return [value for value, _ in _leverage_mentions(text)]


def _leverage_mentions(text: str) -> list[tuple[str, int]]:
    """(multiple, its place in `text`) for each multiple within 160 characters after 'leverage'."""
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for match in re.finditer(r"leverage", text):
        start = match.end()
        for multiple in re.finditer(r"(\d\.\d{1,2})\s*x", text[start: start + 160]):
            value = multiple.group(1)
            if value not in seen:
                seen.add(value)
                found.append((value, start + multiple.start()))
    return found


def _sentence_bounds(text: str, at: int) -> tuple[int, int]:
    """Where the sentence (or table row, or line) holding position `at` starts and ends."""
    ends = [m.end() for m in re.finditer(r"[.!?;](?=\s)|\n", text[:at])]
    after = re.search(r"[.!?;](?=\s)|\n", text[at:])
    return (ends[-1] if ends else 0), (at + after.start() if after else len(text))


def for_reference_only(text: str, at: int) -> bool:
    """Whether the multiple starting at `at` is cited only for reference ("4.31x (4.01x on reported
    EBITDA, for reference)"), not stated as the leverage the presentation relies on: its sentence
    says "for reference", and of the sentence's multiples it is the one nearest those words."""
    start, end = _sentence_bounds(text, at)
    sentence = text[start:end]
    multiples = [start + m.start() for m in re.finditer(r"\d\.\d{1,2}\s*x", sentence)]
    for phrase in re.finditer(r"for reference", sentence):
        nearest = min(multiples, key=lambda place: abs(place - (start + phrase.start())), default=None)
        if nearest == at:
            return True
    return False


def relied_on_multiples(text: str) -> list[str]:
    """Leverage multiples the presentation states as its own, leaving out those cited for reference."""
    return [value for value, at in _leverage_mentions(text) if not for_reference_only(text, at)]


def questions_for(raw: str) -> list[tuple[str, str]]:
    """(lender, question) pairs for a presentation text."""
    text = normalise(raw)
    qs: list[tuple[str, str]] = []

    # Earnings basis.
    if has_number(text, "41.8") and not has_number(text, "38.9"):
        qs.append((LENDERS[1], "FY2025 EBITDA is shown as EUR 41.8m. The management accounts show other operating "
                   "income of EUR 3.1m in Q3 2025 against about EUR 0.2m in other quarters. What is this item, is it "
                   "recurring, and does the Consolidated EBITDA definition allow it to be included?"))
    elif has_number(text, "38.9"):
        qs.append((LENDERS[1], "Please confirm that FY2025 EBITDA of EUR 38.9m contains no other non-recurring or "
                   "property-related items, and give its phasing by quarter."))
    else:
        qs.append((LENDERS[1], "We could not find a FY2025 EBITDA figure on the facility definition. Please state it "
                   "and reconcile it to the management accounts."))

    # Opening leverage. A multiple on the reported basis draws the disposal-gain question only when
    # the presentation relies on it: cited "for reference" beside the restated figure, it does not.
    multiples = relied_on_multiples(text)
    reported = [value for value in multiples if value in REPORTED_BASIS]
    if not multiples:
        qs.append((LENDERS[2], "Please state opening net leverage pro forma for the refinancing, with the net debt and "
                   "the EBITDA used, on the facility definitions."))
    elif reported:
        qs.append((LENDERS[2], f"The leverage of {reported[0]}x shown appears to rely on EBITDA including a disposal "
                   "gain. Please restate opening net leverage on Consolidated EBITDA as defined, which excludes gains on "
                   "the disposal of non-current assets."))
    else:
        qs.append((LENDERS[2], f"Please reconcile the opening net leverage of {multiples[0]}x to its components: "
                   "facility drawings at closing, vehicle finance leases and the cash retained after transaction costs."))

    # Margin tier.
    if not has(text, "margin"):
        qs.append((LENDERS[0], "Which tier of the margin grid applies at closing, and on what leverage figure?"))
    elif has(text, "2.90%", "2.9%") and not has(text, "3.25%"):
        qs.append((LENDERS[0], "The presentation prices the facilities at 2.90% at closing. Please confirm the tier "
                   "against opening leverage on the facility definition."))
    else:
        qs.append((LENDERS[0], "Please confirm when the margin grid first ratchets and on which compliance certificate."))

    # Sources and uses / facility scope.
    if not has(text, "sources and uses", "sources & uses", "sources"):
        qs.append((LENDERS[0], "Please provide a balancing sources and uses table showing what is refinanced and what "
                   "stays in place."))
    elif has(text, "lease") and has(text, "refinanc") and not has(text, "remain", "stay", "outside", "not refinanced"):
        qs.append((LENDERS[0], "Are the vehicle finance leases refinanced by the new facilities or do they remain in "
                   "place? Please show how they rank."))
    else:
        qs.append((LENDERS[0], "Please confirm the vehicle finance leases remain in place as permitted debt and state "
                   "their outstanding amount at the reference date."))

    # Environmental matters.
    if not has(text, "venlo") or not has(text, "permit", "condition 7", "tank"):
        qs.append((LENDERS[0], "Are there any open environmental permit matters at the depots? The data room index "
                   "refers to correspondence about the Venlo fuel installation."))
    else:
        follow = "Please confirm the status of the extension request for Venlo permit condition 7, the cost to complete "
        follow += "and how it is funded, and whether you propose it as a condition precedent or a condition subsequent."
        if not has_number(text, "1.8"):
            follow += " The presentation does not state the expected cost of the works."
        qs.append((LENDERS[0], follow))

    # Fleet security.
    if has_number(text, "96.4") or has_number(text, "131.2"):
        qs.append((LENDERS[2], "The fleet value quoted appears to include the 212 leased tractor units whose title rests "
                   "with the lessors. Please restate collateral coverage on the owned fleet only."))
    elif has_number(text, "71.6"):
        qs.append((LENDERS[2], "Please confirm that the valuer will give reliance to the lenders and whether an update "
                   "after 31 October 2025 is planned, given the softer used-truck market."))
    else:
        qs.append((LENDERS[2], "Please state the orderly liquidation value of the fleet to be charged and its coverage "
                   "of the Term Loan."))

    # Downside case and covenants.
    if not has(text, "downside"):
        qs.append((LENDERS[2], "Please share a downside case with EBITDA 10% below plan in every year and the covenant "
                   "headroom at each test date."))
    else:
        qs.append((LENDERS[2], "In the downside case, at which test date does headroom on the leverage covenant fall "
                   "below 10%, and what mitigants or covenant changes do you propose?"))

    # Interest rate risk.
    if not has(text, "hedg"):
        qs.append((LENDERS[1], "What interest rate hedging is proposed for the Term Loan, and on what Euribor assumption "
                   "is the interest cost modelled?"))
    else:
        qs.append((LENDERS[1], "What is the effect on interest cover of 3-month Euribor 100 bp above your base "
                   "assumption, before hedging?"))

    # Always asked.
    qs.append((LENDERS[1], "When will the signed FY2025 audit opinion and the compliance certificate for the "
               "31 December 2025 test date be available, and on which EBITDA figure will the certificate be prepared?"))
    return qs


def render(qs: list[tuple[str, str]], note: str | None = None) -> str:
    lines = [HEADER]
    if note:
        lines.append(note + "\n")
    for number, (lender, question) in enumerate(qs, start=1):
        lines.append(f"{number}. ({lender}) {question}")
    lines.append(FOOTER)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: lender_questions.py PRESENTATION.md OUTPUT.md", file=sys.stderr)
        return 2
    source, target = Path(argv[1]), Path(argv[2])
    note = None
    try:
        raw = source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        raw = ""
        note = ("We have not received a readable presentation. The questions below are our standard list; please "
                "circulate the presentation as soon as possible.")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(questions_for(raw), note), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
