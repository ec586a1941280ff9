"""The final package of a run: each final deliverable's file, taken from the last checkpoint at
the path of the output that produces it and placed at its path in the package."""

from __future__ import annotations

from studio.runs.record import RunRecord
from studio.runs.store import CheckpointStore, Entry


def assemble_final(store: CheckpointStore, record: RunRecord) -> None:
    """Store the final package as a manifest and note the deliverables the agent never wrote."""
    last = record.last_checkpoint()
    if last is None or last.checkpoint is None:
        return
    checkpoint = store.manifest(last.checkpoint)
    entries: dict[str, Entry] = {}
    missing = []
    for final in record.run_plan().final:
        entry = checkpoint.entries.get(final.source)
        if entry is None or entry.kind != "file":
            missing.append(f"{final.deliverable} ({final.source})")
            continue
        entries[final.path] = entry
    record.final = store.put_manifest(entries).id
    record.final_missing = missing
