"""Harnesses: what runs in the container for each subtask.

`script:PATH` runs a script of the user's (tests, demos); the presets run the CLI agents the paper
uses, non-interactively, continuing their own session from the second subtask on. A preset's API key
comes from the environment or the OS keyring (service "dbstudio") and goes into the container's
environment only: never into describe(), a record or a log.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from studio.api_keys import KEYRING_SERVICE, secret
from studio.runs.engine import Mount
from studio.runs.errors import RunError
from studio.runs.scripts import interpreter_for

HOME_IN_CONTAINER = "/studio/home"
TASK_IN_CONTAINER = "/studio/task"
HARNESS_IN_CONTAINER = "/studio/harness"
SCRIPT_PREFIX = "script:"


class HarnessError(RunError):
    """A harness spec names no preset or script, its script is missing, or its API key is nowhere."""


@dataclass(frozen=True)
class HarnessStep:
    subtask: str
    first: bool  # the first subtask of the run: nothing to continue yet
    instruction: str  # the instruction file's path inside the container


@dataclass(frozen=True)
class TokenCounts:
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "cache_read": self.cache_read_tokens,
            "cache_creation": self.cache_creation_tokens,
        }


def instruction_path(subtask: str) -> str:
    return f"{TASK_IN_CONTAINER}/{subtask}/instruction.md"


class Harness:
    """What a run needs of a harness; `ScriptHarness` and `PresetHarness` are the two kinds."""

    name: str
    # Capabilities added back to a container that drops them all (docs/security.md, "Containers"):
    # none so far. A non-root process gets none of them anyway unless a file grants them, which
    # no-new-privileges forbids; a harness that needs one names it here, with why.
    capabilities: tuple[str, ...] = ()

    def command(self, step: HarnessStep) -> list[str]:
        raise NotImplementedError

    def environment(self, step: HarnessStep) -> dict[str, str]:
        return {"STUDIO_SUBTASK": step.subtask, "STUDIO_INSTRUCTION": step.instruction, "HOME": HOME_IN_CONTAINER}

    def mounts(self) -> list[Mount]:
        return []

    def describe(self) -> str:
        raise NotImplementedError

    def tokens(self, log_text: str) -> TokenCounts | None:
        return None

    def check(self) -> None:
        """Raises HarnessError now for what would fail at the first subtask (a missing script or key)."""


class ScriptHarness(Harness):
    """`script:PATH`: the file, mounted read-only at /studio/harness/<name>, run once per subtask in the
    workspace; by its shebang line if it has one, else python3 for .py and sh for anything else."""

    def __init__(self, path: Path) -> None:
        resolved = Path(path).expanduser().resolve()
        if not resolved.is_file():
            raise HarnessError(
                f"harness script {resolved} does not exist (from {SCRIPT_PREFIX}{path}): "
                "give the path of a script file, relative to the current folder or absolute"
            )
        self.path = resolved
        self.name = f"{SCRIPT_PREFIX}{resolved}"
        self.target = f"{HARNESS_IN_CONTAINER}/{resolved.name}"

    def _interpreter(self) -> list[str]:
        return interpreter_for(self.path)

    def command(self, step: HarnessStep) -> list[str]:
        return [*self._interpreter(), self.target]

    def mounts(self) -> list[Mount]:
        return [Mount(self.path, self.target, read_only=True)]

    def describe(self) -> str:
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        return f"{shlex.join([*self._interpreter(), self.target])}  (script {self.path}, sha256 {digest})"

    def check(self) -> None:
        if not self.path.is_file():
            raise HarnessError(f"harness script {self.path} no longer exists")


@dataclass(frozen=True)
class PresetInfo:
    name: str
    title: str
    key_variable: str  # the API key's environment variable (also its name in the keyring)
    first: tuple[str, ...]  # the command for the first subtask; PROMPT stands for the instruction text
    later: tuple[str, ...]  # the command from the second subtask on, continuing the agent's session
    passthrough: tuple[str, ...] = ()  # optional settings copied from the environment when set (never secrets)
    reference: str = ""  # where the flags are documented
    capabilities: tuple[str, ...] = ()  # added back to the container (none: docs/security.md, "Containers")

    def describe(self) -> str:
        return f"{' '.join(self.first)}; from the 2nd subtask: {' '.join(self.later)}"


PROMPT = "PROMPT"

PRESETS: dict[str, PresetInfo] = {
    info.name: info
    for info in (
        PresetInfo(
            "claude-code",
            "Claude Code",
            "ANTHROPIC_API_KEY",
            ("claude", "-p", PROMPT, "--output-format", "json", "--dangerously-skip-permissions"),
            ("claude", "--continue", "-p", PROMPT, "--output-format", "json", "--dangerously-skip-permissions"),
            ("ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL"),
            "https://docs.anthropic.com/en/docs/claude-code/cli-reference",
        ),
        PresetInfo(
            "codex",
            "Codex CLI",
            "OPENAI_API_KEY",
            ("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "danger-full-access", PROMPT),
            ("codex", "exec", "--json", "--skip-git-repo-check", "resume", "--last", PROMPT),
            ("OPENAI_BASE_URL",),
            "https://developers.openai.com/codex/noninteractive",
        ),
        PresetInfo(
            "gemini",
            "Gemini CLI",
            "GEMINI_API_KEY",
            ("gemini", "--yolo", "-p", PROMPT, "--output-format", "json"),
            ("gemini", "--yolo", "--resume", "latest", "-p", PROMPT, "--output-format", "json"),
            ("GEMINI_MODEL",),
            "https://geminicli.com/docs/cli/cli-reference",
        ),
        PresetInfo(
            "qwen",
            "Qwen Code",
            "OPENAI_API_KEY",
            ("qwen", "--yolo", "-p", PROMPT, "--output-format", "json"),
            ("qwen", "--yolo", "--continue", "-p", PROMPT, "--output-format", "json"),
            ("OPENAI_BASE_URL", "OPENAI_MODEL"),
            "https://qwenlm.github.io/qwen-code-docs/en/users/features/headless",
        ),
        PresetInfo(
            "kimi",
            "Kimi CLI",
            "KIMI_API_KEY",
            ("kimi", "--print", "-p", PROMPT),
            ("kimi", "--print", "--continue", "-p", PROMPT),
            ("KIMI_BASE_URL", "KIMI_MODEL_NAME"),
            "https://moonshotai.github.io/kimi-cli/en/customization/print-mode",
        ),
    )
}


def api_key(variable: str) -> str | None:
    """The key from the environment, else from the OS keyring (service "dbstudio"); None if in neither."""
    return secret(variable)


class PresetHarness(Harness):
    """A CLI agent run non-interactively with the instruction as its prompt (read from the instruction
    file inside the container, so no instruction text is on the host's command line or in the record)."""

    def __init__(self, info: PresetInfo) -> None:
        self.info = info
        self.name = info.name
        self.capabilities = info.capabilities

    def command(self, step: HarnessStep) -> list[str]:
        words = self.info.first if step.first else self.info.later
        line = " ".join('"$(cat "$STUDIO_INSTRUCTION")"' if word == PROMPT else shlex.quote(word) for word in words)
        return ["sh", "-c", f"exec {line}"]

    def environment(self, step: HarnessStep) -> dict[str, str]:
        env = super().environment(step)
        for variable in self.info.passthrough:
            if os.environ.get(variable):
                env[variable] = os.environ[variable]
        env[self.info.key_variable] = self._key()
        return env

    def _key(self) -> str:
        key = api_key(self.info.key_variable)
        if key is None:
            raise HarnessError(
                f"{self.info.title} needs its API key in {self.info.key_variable}: export {self.info.key_variable}=... "
                f"before the run, or store it once in the OS keyring with `keyring set {KEYRING_SERVICE} "
                f"{self.info.key_variable}`. The key goes into the container only, never into the project or the run."
            )
        return key

    def describe(self) -> str:
        return f"{self.info.title}: {self.info.describe()} (PROMPT = the subtask's instruction.md)"

    def tokens(self, log_text: str) -> TokenCounts | None:
        if self.info.name == "claude-code":
            return claude_tokens(log_text)
        if self.info.name == "codex":
            return codex_tokens(log_text)
        if self.info.name == "gemini":
            return gemini_tokens(log_text)
        if self.info.name == "qwen":
            return qwen_tokens(log_text)
        # Kimi CLI's print mode documents no usage in its output (text, or stream-json messages without
        # one: moonshotai.github.io/kimi-cli/en/customization/print-mode): its tokens stay unknown
        return None

    def check(self) -> None:
        self._key()


def claude_tokens(log_text: str) -> TokenCounts | None:
    """The usage of Claude Code's `--output-format json` result (the last JSON object with a usage)."""
    for line in reversed(log_text.splitlines()):
        line = line.strip()
        if not (line.startswith("{") and '"usage"' in line):
            continue
        try:
            result = json.loads(line)
        except ValueError:
            continue
        usage = result.get("usage") if isinstance(result, dict) else None
        if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
            return TokenCounts(
                input_tokens=usage["input_tokens"],
                output_tokens=int(usage.get("output_tokens") or 0),
                cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
                cache_creation_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            )
    return None


def codex_tokens(log_text: str) -> TokenCounts | None:
    """The usage of Codex CLI's `exec --json` events: every `turn.completed` event's `usage`, summed.
    Codex counts the cached prompt inside `input_tokens` (as `cached_input_tokens`); the counts here
    keep it apart, as Claude Code's do: input is the uncached prompt, cache_read the cached one."""
    found = False
    uncached = cached = output = 0
    for line in log_text.splitlines():
        line = line.strip()
        if not (line.startswith("{") and '"turn.completed"' in line):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        usage = event.get("usage") if isinstance(event, dict) and event.get("type") == "turn.completed" else None
        if not isinstance(usage, dict) or not isinstance(usage.get("input_tokens"), int):
            continue
        found = True
        cache = int(usage.get("cached_input_tokens") or 0)
        uncached += max(0, usage["input_tokens"] - cache)
        cached += cache
        output += int(usage.get("output_tokens") or 0)
    return TokenCounts(input_tokens=uncached, output_tokens=output, cache_read_tokens=cached) if found else None


def _json_values(log_text: str) -> list:
    """Every JSON object or array that starts at the beginning of a line of the log, in order: a
    headless CLI prints its result on one line, or pretty-printed from a line holding only its opening
    bracket (Gemini CLI's JSON.stringify(output, null, 2)), among lines of its own (warnings on stderr).
    Each try decodes a slice, never the whole log from where it starts: a failed decode counts the
    newlines before the error, which over a long log of broken lines would be quadratic."""
    decoder = json.JSONDecoder()
    found, at = [], 0
    while at < len(log_text):
        end = log_text.find("\n", at)
        end = len(log_text) if end < 0 else end
        line = log_text[at:end].rstrip()
        if line[:1] in ("{", "["):
            try:
                found.append(decoder.raw_decode(line)[0])
            except ValueError:
                if line in ("{", "["):  # pretty-printed: the value runs over the lines that follow
                    try:
                        value, stop = decoder.raw_decode(log_text[at:])
                    except ValueError:
                        pass
                    else:
                        found.append(value)
                        end = log_text.find("\n", at + stop)
                        end = len(log_text) if end < 0 else end
        at = end + 1
    return found


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def model_stats_tokens(models: object) -> TokenCounts | None:
    """Gemini CLI's `stats.models` (also Qwen Code's): per model `tokens` with `prompt` (the whole
    prompt, its cached part included), `cached`, `candidates` (the answer), `thoughts` (thinking, billed
    as output) and `tool` (tool-use prompt tokens, sent besides the prompt): summed over the models,
    the cached part kept apart as Claude Code's counts keep it. Field meanings: gemini-cli
    packages/core/src/telemetry/uiTelemetry.ts (prompt += input_token_count, cached +=
    cached_content_token_count, input = prompt - cached)."""
    if not isinstance(models, dict):
        return None
    found = False
    uncached = cached = output = 0
    for metrics in models.values():
        tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
        if not isinstance(tokens, dict) or not isinstance(tokens.get("prompt"), int):
            continue
        found = True
        cache = _count(tokens.get("cached"))
        uncached += max(0, _count(tokens.get("prompt")) - cache) + _count(tokens.get("tool"))
        cached += cache
        output += _count(tokens.get("candidates")) + _count(tokens.get("thoughts"))
    return TokenCounts(input_tokens=uncached, output_tokens=output, cache_read_tokens=cached) if found else None


def gemini_tokens(log_text: str) -> TokenCounts | None:
    """The usage of Gemini CLI's `--output-format json` result: one object {session_id, response, stats}
    whose `stats.models` holds each model's token counts (google-gemini.github.io/gemini-cli/docs/
    headless.html, "JSON Output"; geminicli.com/docs/cli/headless). The last such object counts: a
    resumed session (`--resume`) reports this invocation's requests only."""
    for value in reversed(_json_values(log_text)):
        stats = value.get("stats") if isinstance(value, dict) else None
        counts = model_stats_tokens(stats.get("models")) if isinstance(stats, dict) else None
        if counts is not None:
            return counts
    return None


def qwen_tokens(log_text: str) -> TokenCounts | None:
    """The usage of Qwen Code's `--output-format json`: an array of messages ending with a `result`
    message (qwenlm.github.io/qwen-code-docs/en/users/features/headless, "JSON Output"). Its `stats`
    (Gemini CLI's per-model counts, thinking included) when present, else its `usage`, whose
    `input_tokens` is the whole prompt with `cache_read_input_tokens` the cached part of it (qwen-code
    packages/cli/src/nonInteractive/types.ts, Usage; computeUsageFromMetrics)."""
    for value in reversed(_json_values(log_text)):
        messages = value if isinstance(value, list) else [value]
        for message in reversed(messages):
            if not isinstance(message, dict) or message.get("type") != "result":
                continue
            stats = message.get("stats")
            counts = model_stats_tokens(stats.get("models")) if isinstance(stats, dict) else None
            if counts is not None:
                return counts
            usage = message.get("usage")
            if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
                cache = _count(usage.get("cache_read_input_tokens"))
                return TokenCounts(input_tokens=max(0, _count(usage["input_tokens"]) - cache),
                                   output_tokens=_count(usage.get("output_tokens")), cache_read_tokens=cache,
                                   cache_creation_tokens=_count(usage.get("cache_creation_input_tokens")))
    return None


def harness_from_spec(spec: str) -> Harness:
    """`script:PATH` or a preset name; HarnessError naming the choices otherwise."""
    text = spec.strip()
    if text.startswith(SCRIPT_PREFIX) and text[len(SCRIPT_PREFIX) :].strip():
        return ScriptHarness(Path(text[len(SCRIPT_PREFIX) :].strip()))
    if text in PRESETS:
        return PresetHarness(PRESETS[text])
    choices = ", ".join(PRESETS)
    raise HarnessError(
        f"unknown harness {spec!r}: use script:PATH (a script run once per subtask) or a preset: "
        f'{choices} (docs/runs.md, "Harnesses")'
    )
