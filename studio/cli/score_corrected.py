"""`dbstudio score --project PROJECT --corrected [--correct-by pooled|target|dimension] [--bootstrap N]
[--seed S]`: beside each raw score of the verdict store, the score corrected for the judge's
measured error (Rogan–Gladen, studio.agreement.corrected), with a cluster-bootstrap interval."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.agreement.certification import ErrorRates
    from studio.judging.judge_error import ProjectCorrection
    from studio.judging.tables import ProjectVerdicts

MAX_RESAMPLES = 100_000  # as `dbstudio agreement --bootstrap`


def configure_corrected(parser: argparse.ArgumentParser) -> None:
    from studio.scoring.engine import CORRECT_BY

    parser.add_argument("--corrected", action="store_true",
                        help="without TABLE: also each score corrected for the judge's error measured on the "
                             "decisions experts settled (Rogan-Gladen; docs/scoring.md)")
    parser.add_argument("--correct-by", choices=CORRECT_BY, default="pooled",
                        help="--corrected: measure the judge's sensitivity and specificity over every checked "
                             "decision (pooled, default), or per target or per dimension of the criteria")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="--corrected: N cluster-bootstrap resamples of the checked decisions for a 95%% interval "
                             "of each corrected score (e.g. 2000; default 0: no interval)")
    parser.add_argument("--seed", type=int, default=0, help="--corrected: the bootstrap's random seed (default 0)")


def corrected_problem(args: argparse.Namespace) -> str | None:
    """Why the --corrected options cannot be used as given, checked before anything is read."""
    if not args.corrected and (args.bootstrap or args.seed or args.correct_by != "pooled"):
        return "--correct-by, --bootstrap and --seed go with --corrected"
    if not 0 <= args.bootstrap <= MAX_RESAMPLES:
        return (f"--bootstrap takes a number of resamples from 0 to {MAX_RESAMPLES:,} (got {args.bootstrap:,}); "
                "1,000 to 10,000 give stable 95% intervals")
    if args.seed < 0:
        return f"--seed takes a number >= 0 (got {args.seed})"
    return None


@dataclass(frozen=True)
class CorrectedReport:
    by: str
    resamples: int
    seed: int
    projects: list[ProjectCorrection]

    def to_json(self) -> dict:
        return {"method": "Rogan-Gladen", "correct_by": self.by,
                "bootstrap": {"resamples": self.resamples, "seed": self.seed, "unit": "item"} if self.resamples else None,
                "projects": [{"project": p.project, "judge": p.judge,
                              "rates": {c: _rates_json(r) for c, r in p.rates.items()},
                              "scores": [s.to_json() for s in p.scores]} for p in self.projects]}

    def text(self) -> str:
        from studio.judging.judge_error import corrected_cells

        lines = [f"Scores corrected for the judge's measured error (Rogan-Gladen, rates {self.by}"
                 + (f"; 95% cluster bootstrap, {self.resamples} resamples, seed {self.seed})" if self.resamples
                    else "; --bootstrap N adds an interval)")]
        for p in self.projects:
            lines.append(f"{p.project}, judge {p.judge}:")
            for c, r in p.rates.items():
                sens = "—" if r.sensitivity is None else f"{r.sensitivity:.3f}"
                spec = "—" if r.specificity is None else f"{r.specificity:.3f}"
                lines.append(f"  error measured on {c}: sensitivity {sens} ({r.true_pass}/{r.people_pass}), "
                             f"specificity {spec} ({r.true_fail}/{r.people_fail})")
            lines.append(f"  {'system':<30} {'scope':<12} {'raw':>7} {'corrected':>10}  interval / why not")
            for s in p.scores:
                system, scope, raw, value, extra = corrected_cells(s)
                lines.append(f"  {system:<30} {scope:<12} {raw:>7} {value:>10}  {extra}".rstrip())
        return "\n".join(lines)


def corrected_report(args: argparse.Namespace, found: Sequence[ProjectVerdicts], judges: set[str]) -> CorrectedReport:
    """The corrected scores of every project read; JudgingError when the judge is not one."""
    from studio.cli.verdicts_export import read_stores
    from studio.judging.errors import JudgingError
    from studio.judging.judge_error import project_correction

    judge = args.judge
    if judge is None:
        if len(judges) != 1:
            raise JudgingError("--corrected corrects one judge's verdicts: "
                               + (f"choose one with --judge ({', '.join(sorted(judges))})" if judges
                                  else "no judge has given verdicts yet"))
        (judge,) = judges
    # The judge's error is measured on every checked decision of the project, not only the --run ones.
    every = {v.project_id: v for v in read_stores(args.project, None)} if args.runs else {}
    projects = [project_correction(verdicts, judge, args.correct_by, args.bootstrap, args.seed,
                                   every.get(verdicts.project_id)) for verdicts in found]
    return CorrectedReport(args.correct_by, args.bootstrap, args.seed, projects)


def _rates_json(rates: ErrorRates) -> dict:
    return {"true_pass": rates.true_pass, "false_fail": rates.false_fail, "true_fail": rates.true_fail,
            "false_pass": rates.false_pass, "sensitivity": rates.sensitivity, "specificity": rates.specificity}
