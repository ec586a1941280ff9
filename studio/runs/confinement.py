"""What a run's container may do: the least privilege an untrusted agent gets (docs/security.md,
"Containers"), as the options of the Docker SDK's `containers.create`.

Every container drops every capability and may not gain privileges (a setuid file or a file
capability gives nothing), has a pids limit and a capped log, a read-only root file system with
a tmpfs `/tmp` unless its image needs to write elsewhere, and a time limit the engine itself
enforces: a health check the engine runs every few seconds kills the container's processes once
the deadline has passed, so a container outlives a killed CLI by seconds, not until a resume.
"""

from __future__ import annotations

import math
from typing import Any

# Processes and threads together: a CLI agent (Node.js) runs a few dozen, a build a few hundred.
DEFAULT_PIDS_LIMIT = 1024
# What the engine keeps of a container's output (its json-file log, rotated); the run's own copy
# in logs/<SUBTASK>.log keeps a head and a tail within studio.untrusted.LOG_LIMIT (engine.py).
ENGINE_LOG_MAX_SIZE = "10m"  # engine.ENGINE_LOG_ROTATES_AT in bytes
ENGINE_LOG_MAX_FILES = 3
# Mounted nosuid and nodev; exec, since tools unpack and run helpers there (pip, npm, compilers).
TMPFS = {"/tmp": "rw,nosuid,nodev,exec,mode=1777"}
# The engine's check of the deadline: how often, and how long after the host's own time limit it
# acts (the host kills the container at the limit while it lives; this is the fallback).
DEADLINE_CHECK_SECONDS = 2.0
DEADLINE_GRACE_SECONDS = 5.0


def create_options(
    *, capabilities: tuple[str, ...], read_only_root: bool, pids_limit: int, deadline_epoch: float | None
) -> dict[str, Any]:
    """The keyword arguments of `containers.create` that confine a run's container."""
    import docker.types  # here: run records read DEFAULT_PIDS_LIMIT without loading the Docker SDK

    options: dict[str, Any] = {
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "pids_limit": pids_limit,
        "log_config": docker.types.LogConfig(
            type=docker.types.LogConfig.types.JSON,
            config={"max-size": ENGINE_LOG_MAX_SIZE, "max-file": str(ENGINE_LOG_MAX_FILES)},
        ),
        # tini as process 1: it reaps orphans (they would count against the pids limit) and ends the
        # container when the harness ends, which is what lets the deadline check stop it.
        "init": True,
    }
    if capabilities:
        options["cap_add"] = list(capabilities)
    if read_only_root:
        options["read_only"] = True
        options["tmpfs"] = dict(TMPFS)
    if deadline_epoch is not None:
        options["healthcheck"] = deadline_check(deadline_epoch)
    return options


def deadline_check(deadline_epoch: float) -> dict[str, Any]:
    """A health check that kills every process of the container (but process 1, which then exits with
    137) once the host's clock passes `deadline_epoch`. The engine runs it, as the container's user, so
    it works with no dbstudio process alive; the agent cannot turn it off."""
    end = math.ceil(deadline_epoch + DEADLINE_GRACE_SECONDS)
    every = round(DEADLINE_CHECK_SECONDS * 1e9)
    return {
        "test": ["CMD-SHELL", f'[ "$(date +%s)" -lt {end} ] || kill -KILL -1'],
        "interval": every,
        "timeout": 10 * every,
        "retries": 1,
        "start_period": 0,
    }
