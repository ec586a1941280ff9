"""Judge profiles: the settings of one judge, named and pinned in the project, and the built-in presets.

A profile is `judging/profiles/NAME.yaml` in the project folder (under git with the rubrics, so a
judging can be repeated with the same model and request), or one of PRESETS. A file may start from a
preset (`preset: openai-reasoning`) and change some fields. It never holds the API key: that stays in
the environment or the OS keyring (studio/api_keys.py); a key-like field is refused with that fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.judging.errors import JudgingError
from studio.judging.request_shape import DEFAULT_AGENT_STEPS, DEFAULT_AGENT_TOKENS, DEFAULT_TIMEOUT_S

PROFILES_DIR = "judging/profiles"
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
OutputTokensParameter = Literal["max_completion_tokens", "max_tokens"]
StructuredOutput = Literal["json_schema", "json_object", "none"]
JudgeMode = Literal["batch", "agent"]
_KEY_FIELDS = {"api_key", "key", "apikey", "token", "secret", "password", "authorization"}


class JudgeProfile(BaseModel):
    """What a judge request sends and how the judging runs. None means "not sent": the server's default."""

    model_config = ConfigDict(extra="forbid")

    preset: str | None = Field(default=None, description="the built-in preset this profile starts from")
    model: str | None = Field(default=None, min_length=1)
    endpoint: str | None = Field(default=None, min_length=1, description="base URL, usually ending in /v1")
    temperature: float | None = Field(default=None, ge=0, le=2)
    reasoning_effort: ReasoningEffort | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    output_tokens_parameter: OutputTokensParameter = "max_tokens"
    structured_output: StructuredOutput = "json_object"
    context_window: int | None = Field(default=None, ge=256)
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    batch: int = Field(default=8, ge=1)
    parallel: int = Field(default=4, ge=1)
    attempts: int = Field(default=2, ge=1)
    mode: JudgeMode = Field(default="batch", description="agent: the model reads the submission through tools")
    agent_steps: int = Field(default=DEFAULT_AGENT_STEPS, ge=0, description="agent mode: tool steps per conversation")
    agent_tokens: int = Field(default=DEFAULT_AGENT_TOKENS, ge=1, description="agent mode: tokens per conversation")

    def with_changes(self, **changes: Any) -> JudgeProfile:
        """This profile with the given fields changed (None values leave a field as it is)."""
        given = {name: value for name, value in changes.items() if value is not None}
        data = self.model_dump() | given
        try:
            return JudgeProfile.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise JudgingError(f"{where}: {first['msg']}") from None


# Each preset sends only what its API documents as accepted (docs/judging.md says why, field by field).
PRESETS: dict[str, JudgeProfile] = {
    # o-series and gpt-5: any temperature but the default is refused (HTTP 400 unsupported_value),
    # max_tokens is refused in favour of max_completion_tokens; reasoning tokens count in that cap.
    "openai-reasoning": JudgeProfile(
        endpoint="https://api.openai.com/v1", model="gpt-5-mini", reasoning_effort="high",
        max_output_tokens=32000, output_tokens_parameter="max_completion_tokens", structured_output="json_schema",
        context_window=400_000,
    ),
    "openai": JudgeProfile(
        endpoint="https://api.openai.com/v1", model="gpt-4.1-mini", temperature=0, max_output_tokens=4096,
        output_tokens_parameter="max_completion_tokens", structured_output="json_schema", context_window=1_047_576,
    ),
    # Anthropic's compatibility layer ignores response_format and reasoning_effort, and the newest
    # Claude models refuse temperature: nothing of the three is sent; the prompt asks for JSON.
    "anthropic": JudgeProfile(
        endpoint="https://api.anthropic.com/v1", model="claude-sonnet-4-5", max_output_tokens=8192,
        output_tokens_parameter="max_completion_tokens", structured_output="none", context_window=200_000,
    ),
    "gemini": JudgeProfile(
        endpoint="https://generativelanguage.googleapis.com/v1beta/openai", model="gemini-2.5-flash",
        reasoning_effort="high", max_output_tokens=32000, structured_output="json_schema", context_window=1_048_576,
    ),
    "vllm": JudgeProfile(
        endpoint="http://localhost:8000/v1", temperature=0, max_output_tokens=4096, structured_output="json_schema",
    ),
    # Ollama cuts a prompt longer than its num_ctx silently: the context window must be given (and set
    # on the server) for the judge to refuse what would not fit.
    "ollama": JudgeProfile(
        endpoint="http://localhost:11434/v1", temperature=0, max_output_tokens=1024, structured_output="json_schema",
        context_window=4096, parallel=1,
    ),
    "llama-cpp": JudgeProfile(
        endpoint="http://localhost:8080/v1", temperature=0, max_output_tokens=4096, structured_output="json_schema",
        parallel=1,
    ),
}


def profile_path(project_dir: Path, name: str) -> Path:
    return Path(project_dir) / PROFILES_DIR / f"{name}.yaml"


def project_profiles(project_dir: Path) -> list[str]:
    folder = Path(project_dir) / PROFILES_DIR
    return sorted(path.stem for path in folder.glob("*.yaml")) if folder.is_dir() else []


def load_profile(project_dir: Path, name: str) -> JudgeProfile:
    """The project's profile NAME (judging/profiles/NAME.yaml), else the preset NAME."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise JudgingError(f"profile name {name!r} cannot name a file: use letters, digits, '-' and '_'")
    path = profile_path(project_dir, name)
    if path.is_file():
        return read_profile_file(path)
    if name in PRESETS:
        return PRESETS[name]
    known = project_profiles(project_dir)
    mine = f"; the project's: {', '.join(known)}" if known else ""
    raise JudgingError(
        f"no judge profile '{name}': write {path.relative_to(Path(project_dir))}, or give a preset "
        f"({', '.join(PRESETS)}){mine}"
    )


def read_profile_file(path: Path) -> JudgeProfile:
    """A profile file, checked: every problem names the file and line and says what to write instead."""
    from studio.store.yamlfile import YamlDocument, YamlSyntaxError, plain

    try:
        document = YamlDocument.load(path)
    except YamlSyntaxError as exc:
        raise JudgingError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    except OSError as exc:
        raise JudgingError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    data = plain(document.data)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise JudgingError(f"{path}:1:1: a judge profile is a mapping of settings (model: ..., endpoint: ...)")
    for key in data:
        if str(key).lower().replace("-", "_") in _KEY_FIELDS:
            line, column = document.locate((key,))
            raise JudgingError(
                f"{path}:{line}:{column}: '{key}': a profile never holds the API key (it would go into git): "
                "remove it and set OPENAI_API_KEY, or `keyring set dbstudio OPENAI_API_KEY`"
            )
    base = data.get("preset")
    if base is not None and base not in PRESETS:
        line, column = document.locate(("preset",))
        raise JudgingError(f"{path}:{line}:{column}: unknown preset '{base}': give one of {', '.join(PRESETS)}")
    start = PRESETS[base].model_dump(exclude_unset=True) if base is not None else {}
    try:
        JudgeProfile.model_validate(data)  # the file's own errors, located in the file
        return JudgeProfile.model_validate(start | data)
    except ValidationError as exc:
        from studio.store.schema_messages import clean_loc, describe

        first = exc.errors()[0]
        line, column = document.locate(clean_loc(first["loc"]))
        message, _ = describe(first, data)
        raise JudgingError(f"{path}:{line}:{column}: {message} ({len(exc.errors())} problem(s))") from None
