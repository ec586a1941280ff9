"""A submission: a folder of agent files and where it came from (a run's checkpoint or final
package, or any folder someone hands over).

A run's checkpoint lives in the content-addressed checkpoint store; it is exported once into a
cache folder under the run folder, named by the checkpoint's id, so judging it again reads the
same files without exporting them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError
from studio.judging.errors import JudgingError
from studio.model.vocabulary import FINAL_SCOPE

CACHE_DIR = "submissions"


@dataclass(frozen=True)
class Submission:
    id: str  # run id (local or imported) or a folder's name given by the user
    scope: str  # a subtask id or "final"
    folder: Path  # the files


def submission_of_run(run_dir: Path, scope: str) -> Submission:
    """The checkpoint of subtask `scope`, or the final package for "final", of the run in `run_dir`."""
    from studio.runs.record import load_run
    from studio.runs.runner import store_of

    run_dir = Path(run_dir)
    try:
        record = load_run(run_dir)
        if scope == FINAL_SCOPE:
            manifest_id = record.final
            if manifest_id is None:
                raise JudgingError(f"run {record.run_id} has no final package yet (it is {record.status.value}): "
                                   "resume it to the end (`dbstudio runs resume`) or judge a subtask's checkpoint")
        else:
            sub = record.subtask(scope)
            manifest_id = sub.checkpoint
            if not sub.done or manifest_id is None:
                raise JudgingError(f"run {record.run_id} has no checkpoint of {scope} (the subtask is "
                                   f"{sub.status.value}): resume the run, or judge a subtask it finished")
        folder = run_dir / CACHE_DIR / f"{scope}-{manifest_id[:16]}"
        if not folder.is_dir():
            store = store_of(run_dir)
            manifest = store.manifest(manifest_id)
            try:
                store.export_folder(manifest, folder)
            except StudioError:
                if not folder.is_dir():  # another judge exported it at the same moment: use theirs
                    raise
    except JudgingError:
        raise
    except StudioError as exc:
        raise JudgingError(f"{run_dir}: {exc}") from exc
    return Submission(record.run_id, scope, folder)


def submission_of_folder(folder: Path, scope: str, id: str | None = None) -> Submission:
    """Any folder of agent files, judged as `scope`; its id defaults to the folder's name."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise JudgingError(f"{folder}: no such folder: give the folder that holds the submitted files")
    return Submission(id or folder.name, scope, folder)
