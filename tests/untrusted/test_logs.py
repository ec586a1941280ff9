"""Logs from an agent keep their head and their tail, where the error is, within LOG_LIMIT."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from studio.untrusted import LOG_HEAD, LOG_LIMIT, LOG_TAIL, Limits
from studio.untrusted.logs import CappedLog, copy_log_file, copy_logs
from tests.untrusted.hostile import HOST_SECRET, device_node, host_secret, sparse

LINE = b"x" * 99 + b"\n"


def test_a_400_mb_log_keeps_its_first_and_last_lines_with_a_marker(tmp_path: Path) -> None:
    log = tmp_path / "T01.log"
    capped = CappedLog(log)
    capped.write(b"FIRST LINE\n")
    chunk = LINE * 10_000  # 1 MB
    largest = 0
    for _ in range(400):
        capped.write(chunk)
        largest = max(largest, log.stat().st_size)
    capped.write(b"Traceback: THE ERROR\n")
    capped.close()
    data = log.read_bytes()
    total = 11 + 400 * len(chunk) + 21
    assert data.startswith(b"FIRST LINE\n") and data.endswith(b"Traceback: THE ERROR\n")
    assert largest <= LOG_HEAD + 2 * LOG_TAIL + 1000  # readable live, never larger than this
    marker = (f"\n[dbstudio: {total - LOG_LIMIT:,} bytes (").encode()
    assert marker in data and f"the log is {total:,} bytes".encode() in data
    head, _, rest = data.partition(marker)
    assert len(head) == LOG_HEAD and len(rest.split(b"]\n", 1)[1]) == LOG_TAIL
    assert b"studio.untrusted.LOG_LIMIT" in data


def test_a_short_log_is_kept_whole_and_a_fetched_tail_ends_a_log_that_could_not_be_read(tmp_path: Path) -> None:
    short = CappedLog(tmp_path / "short.log")
    short.write(b"one\n")
    short.write(b"two\n")
    short.close()
    assert (tmp_path / "short.log").read_bytes() == b"one\ntwo\n"
    slow = CappedLog(tmp_path / "slow.log", Limits(log_head=10, log_tail=10))
    slow.write(b"0123456789abcdef")
    slow.replace_tail([b"...last line\n"], "output cut here")
    slow.write(b"late output from the stream")  # a writer still reading gets nothing more in
    slow.close()
    assert (tmp_path / "slow.log").read_bytes() == b"0123456789\n[dbstudio: output cut here]\nlast line\n"


def test_a_log_folder_copies_only_regular_files_without_setuid_and_cuts_big_ones(tmp_path: Path) -> None:
    secret = host_secret(tmp_path)
    logs = tmp_path / "agent"
    (logs / "sub").mkdir(parents=True)
    (logs / "agent.txt").write_text("agent log\n")
    (logs / "sub" / "secret.txt").symlink_to(secret)
    (logs / "evaluator").symlink_to(secret.parent)
    device_node(logs / "zero")
    os.mkfifo(logs / "pipe")
    os.link(secret, logs / "hard.txt")
    (logs / "tool").write_bytes(b"#!/bin/sh\n")
    os.chmod(logs / "tool", 0o6755)
    sparse(logs / "huge.log", 10 << 30)  # 10 GiB apparent, nothing on disk
    with open(logs / "huge.log", "r+b") as handle:
        handle.write(b"START\n")
        handle.seek((10 << 30) - 6)
        handle.write(b"ERROR\n")
    kept = tmp_path / "kept"
    notes = copy_logs(logs, kept / "agent", tree="Harbor's agent logs")
    assert sorted(str(p.relative_to(kept)) for p in kept.rglob("*") if not p.is_dir()) == [
        "agent/agent.txt",
        "agent/huge.log",
        "agent/tool",
    ]
    assert HOST_SECRET not in "".join(
        p.read_text(errors="replace") for p in kept.rglob("*") if p.is_file() and p.name != "huge.log"
    )
    mode = (kept / "agent" / "tool").stat().st_mode
    assert not mode & (stat.S_ISUID | stat.S_ISGID) and stat.S_IMODE(mode) == 0o644
    huge = (kept / "agent" / "huge.log").read_bytes()
    assert huge.startswith(b"START\n") and huge.endswith(b"ERROR\n") and len(huge) < LOG_LIMIT + 1000
    assert sorted(notes) == sorted(
        [
            f"evaluator is a symbolic link (to {secret.parent}): not copied",
            f"sub/secret.txt is a symbolic link (to {secret}): not copied",
            "zero is a device node: not copied",
            "pipe is a FIFO (named pipe): not copied",
            "hard.txt has 2 hard links, one of them outside Harbor's agent logs: it may be a file of the machine, "
            "so it is not read",
            "huge.log is 10,737,418,240 bytes (10.0 GiB): cut to its first 4,194,304 bytes (4.0 MiB) and last "
            "12,582,912 bytes (12.0 MiB)",
        ]
    )


def test_one_log_file_is_never_copied_through_a_link(tmp_path: Path) -> None:
    secret = host_secret(tmp_path)
    trial = tmp_path / "trial"
    trial.mkdir()
    (trial / "trial.log").symlink_to(secret)
    note = copy_log_file(trial, "trial.log", tmp_path / "kept.log", tree="the trial")
    assert note == "trial.log is a link to a file outside the trial: not read"
    assert not (tmp_path / "kept.log").exists()
    assert copy_log_file(trial, "absent.log", tmp_path / "kept.log", tree="the trial") is None
