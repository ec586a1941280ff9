"""The check of an exported task's image before `harbor run`: Harbor starts every command in it
with `bash -c` (setup.sh, the agent's install, test.sh), and a generated release's python script
needs python3. An image without them fails each trial while `harbor run` itself exits 0, so the
export refuses it first, when the image is on the local engine (docs/scale-out.md, "The image").
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from studio.runs.errors import RunError

NO_PYTHON = 3  # the probe's exit code when bash runs but finds no python3
SKIP = "--no-image-check"


class ImageCheckError(RunError):
    """The image cannot run the exported task, or it cannot be checked here."""


def check_image(image: str, needs_python: bool) -> None:
    """Start `bash -c` in `image` on the local engine (and look for python3 when `needs_python`);
    raise ImageCheckError naming the fix when it cannot."""
    from studio.runs.engine import ContainerSpec, DockerEngine, EngineError, ImageMissing

    probe = "command -v python3 >/dev/null || exit 3" if needs_python else "true"
    skip = f"pass {SKIP} to export without the check (for a cloud environment's image that is not on this engine)"
    try:
        engine = DockerEngine.connect()
    except EngineError as missing:
        raise ImageCheckError(f"cannot check the image {image}: {missing}; or {skip}") from None
    with engine, tempfile.TemporaryDirectory(prefix="dbstudio-image-check-") as scratch:
        try:
            engine.image_id(image)
        except ImageMissing:
            raise ImageCheckError(
                f"the image {image} is not on the local Docker engine ({engine.url()}), so it cannot be checked "
                f"for bash: pull or build it here (docker pull {image}), or {skip}"
            ) from None
        spec = ContainerSpec(
            image=image, command=["bash", "-c", probe], workdir="/", cpus=1.0, memory="256m", timeout_s=60.0,
            labels={"dbstudio.purpose": "harbor-image-check"},
        )
        try:
            result = engine.run(spec, log=Path(scratch) / "check.log")
        except EngineError as refused:  # the engine cannot start bash: there is none in the image
            reason = f" ({refused})" if "executable file not found" not in str(refused) else ""
            raise ImageCheckError(_no_bash(image) + reason) from None
    if result.exit_code == NO_PYTHON:
        raise ImageCheckError(
            f"the image {image} has no python3, which the project's generated releases run with: "
            "use an image that has bash and python3 (the default, python:3.12-slim, has both), e.g. "
            f"a Dockerfile FROM {image} that installs python3"
        )
    if result.exit_code != 0:
        raise ImageCheckError(_no_bash(image) + f" (bash -c exited with {result.exit_code})")


def _no_bash(image: str) -> str:
    return (
        f"the image {image} cannot run bash, and Harbor runs every step's commands with `bash -c`: "
        "use an image that has bash (the default, python:3.12-slim, has it, and python3), e.g. a "
        f"Dockerfile FROM {image} that installs bash"
    )
