"""The evidence of each request of a submission: the files its criteria cover first and whole, then
what the rest of the budget holds of the other files.

A criterion covers artifacts (a checkpoint criterion `SUBTASK:PATH` outputs, a final one deliverable
ids or `package`); criteria that cover the same files are asked together and their request carries
those files whole. Files no criterion of the scope covers (materials, notes, earlier outputs) are the
shared part: read once, placed first and byte-identical in every request, so a provider's prompt cache
holds it. A file covered only by other criteria is named, not sent. A covered file that cannot be
shown whole leaves its criteria unjudged, with the reason: a verdict on part of a file is a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from studio.collector import collector_paused
from studio.judging.evidence import Evidence, FileEvidence, extract_evidence, file_evidence, submission_files
from studio.judging.evidence_budget import Budget, EvidenceLimits
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.untrusted.tree import HardLinks, walk

if TYPE_CHECKING:
    from studio.model import Criterion, Project

Coverage = tuple[str, ...]
"""The paths in the submission that a criterion covers, sorted: what groups criteria into requests."""

OTHER_REQUEST = "not shown in this request: no criterion asked here covers it (criteria covering it are asked apart)"


def scope_outputs(project: Project, scope: str) -> list[str]:
    """The paths the scope's rubric judges: the subtask's outputs, or the final deliverables' paths."""
    if scope == FINAL_SCOPE:
        deliverables = project.info.delivery.final_deliverables if project.info is not None else []
        return [deliverable.path for deliverable in deliverables]
    subtask = project.subtasks.get(scope)
    return [output.path for output in subtask.outputs] if subtask is not None else []


def coverage(project: Project, scope: str, criterion: Criterion) -> Coverage:
    """The paths `criterion` (as written in the scope's rubric) covers; one that covers nothing the
    project names covers every output of the scope."""
    if scope == FINAL_SCOPE:
        deliverables = project.info.delivery.final_deliverables if project.info is not None else []
        by_id = {deliverable.id: deliverable.path for deliverable in deliverables}
        paths: list[str] = []
        for item in criterion.covers:
            paths += list(by_id.values()) if item == PACKAGE else [by_id[item]] if item in by_id else []
    else:
        paths = [item.split(":", 1)[1] for item in criterion.covers if ":" in item]
    paths = [PurePosixPath(path).as_posix() for path in paths]
    return tuple(sorted(set(paths))) if paths else tuple(sorted(set(scope_outputs(project, scope))))


@dataclass(frozen=True)
class Unfit:
    """Covered evidence that does not fit: its criteria are stored as missing with this reason."""

    reason: str


class EvidencePlan:
    """What each coverage group's requests carry of one submission, read once."""

    def __init__(
        self,
        folder: Path,
        groups: Sequence[Coverage],
        outputs: Sequence[str],
        limits: EvidenceLimits = EvidenceLimits(),  # noqa: B008 - frozen, immutable
    ) -> None:
        self.folder = Path(folder)
        self.limits = limits
        total = limits.total_chars
        present = submission_files(self.folder)
        covered = sorted({path for group in groups for path in group})
        links = HardLinks(walk(self.folder)) if self.folder.is_dir() else None
        whole = f"the evidence's limit of {total:,} characters over all files"
        alone = replace(limits, file_chars=total)  # a covered file may take the whole budget, not a file's share
        with collector_paused():
            self.covered = {
                path: file_evidence(self.folder, path, Budget(total, whole), alone, links) for path in covered
            }
        self._fit = {group: self._unfit(group) for group in groups}
        fitting = [self._cost(group) for group in groups if self._fit[group] is None]
        shared_budget = total - min(fitting, default=0)
        rest = [path for path in present if path not in self.covered]
        first = [path for path in dict.fromkeys(outputs) if path in rest]
        ordered = first + [path for path in rest if path not in first]  # the scope's outputs before materials
        self.shared = (
            extract_evidence(
                self.folder,
                ordered,
                replace(limits, total_chars=shared_budget),
                in_order=True,
                total_reason=f"the {shared_budget:,} characters the evidence's limit of {total:,} leaves beside "
                "the files the criteria cover",
            ).files
            if ordered
            else ()
        )
        self.whole = Evidence(
            tuple(self.shared) + tuple(self.covered[path] for path in covered if path in present), self.folder
        )

    def _cost(self, group: Coverage) -> int:
        return sum(self.covered[path].chars for path in group)

    def _unfit(self, group: Coverage) -> Unfit | None:
        cut = [
            f"{file.path}, which it covers, cannot be shown whole: {file.cut}"
            for file in (self.covered[path] for path in group)
            if file.cut
        ]
        if cut:
            return Unfit("; ".join(cut) + self._fix())
        cost = self._cost(group)
        if cost > self.limits.total_chars:
            return Unfit(
                f"the files it covers ({', '.join(group)}) take {cost:,} characters together, more than "
                f"the evidence's limit of {self.limits.total_chars:,} characters" + self._fix()
            )
        return None

    @staticmethod
    def _fix() -> str:
        return (
            "; not judged on part of its evidence: shorten the file, split what the criterion covers, "
            "or judge it by hand"
        )

    def fits(self, group: Coverage) -> bool:
        """Whether the files of `group` (any set of covered files) can all be shown whole together."""
        return all(self.covered[path].cut is None for path in group) and self._cost(group) <= self.limits.total_chars

    def batch_keys(self, coverage: Mapping[str, Coverage], size: int) -> dict[str, Coverage]:
        """The files each criterion's batch shows whole, by criterion id (in the order given).

        Criteria covering the same files go in batches of `size`; what is left of each group after its
        full batches is packed with other groups' leftovers (first fit) while the batch holds at most
        `size` criteria and the files they cover fit whole together, so small groups do not each cost a
        request with the whole shared part."""
        groups: dict[Coverage, list[str]] = {}
        for cid, group in coverage.items():
            groups.setdefault(group, []).append(cid)
        keys: dict[str, Coverage] = {}
        packed: list[tuple[set[str], list[str]]] = []  # (files, criteria) of the batches being packed
        for group, members in groups.items():
            full = len(members) - len(members) % size
            keys.update(dict.fromkeys(members[:full], group))
            rest = members[full:]
            if not rest:
                continue
            for files, criteria in packed:
                union = tuple(sorted(files | set(group)))
                if len(criteria) + len(rest) <= size and self.fits(union):
                    files.update(group)
                    criteria += rest
                    break
            else:
                packed.append((set(group), list(rest)))
        for files, criteria in packed:
            keys.update(dict.fromkeys(criteria, tuple(sorted(files))))
        return {cid: keys[cid] for cid in coverage}

    def unfit(self, group: Coverage) -> Unfit | None:
        """Why the group's criteria cannot be judged, or None when their covered files fit whole."""
        return self._fit[group]

    def evidence(self, group: Coverage) -> Evidence:
        """The evidence of a request for criteria covering `group` (together: a fitting union of their
        groups): the shared files that fit beside the covered ones (a prefix of the same files for every
        group), the files left out named, then the covered files whole."""
        room = self.limits.total_chars - self._cost(group)
        shown: list[FileEvidence] = []
        for file in self.shared:
            room -= file.chars
            if room < 0:
                break
            shown.append(file)
        left_out = [
            replace(
                file,
                excerpts=(),
                cut=f"not shown in this request: the evidence reached its "
                f"limit of {self.limits.total_chars:,} characters with the files its criteria cover",
            )
            for file in self.shared[len(shown) :]
            if file.excerpts
        ]
        left_out += [file for file in self.shared[len(shown) :] if not file.excerpts]
        others = [
            replace(file, excerpts=(), cut=OTHER_REQUEST, error=None)
            for path, file in self.covered.items()
            if path not in group and file.sha256
        ]
        return Evidence(tuple(shown + left_out + others + [self.covered[path] for path in group]), self.folder)
