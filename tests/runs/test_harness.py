"""Harnesses: the script harness and the CLI-agent presets, run for real in containers of the test image."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from studio.runs.engine import ContainerSpec, DockerEngine, Mount
from studio.runs.harness import (
    PRESETS,
    Harness,
    HarnessError,
    HarnessStep,
    PresetHarness,
    ScriptHarness,
    TokenCounts,
    api_key,
    harness_from_spec,
    instruction_path,
)

SECRET = "sk-test-" + uuid.uuid4().hex


def _run(engine: DockerEngine, image: str, harness: Harness, step: HarnessStep, tmp_path: Path,
         extra: list[Mount] | None = None) -> tuple[int | None, str]:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    task = tmp_path / "task" / step.subtask
    task.mkdir(parents=True, exist_ok=True)
    (task / "instruction.md").write_text(f"Do {step.subtask} with care.\n")
    mounts = [Mount(workspace, "/workspace", read_only=False), Mount(tmp_path / "task", "/studio/task", read_only=True),
              *harness.mounts(), *(extra or [])]
    spec = ContainerSpec(image=image, command=harness.command(step), workdir="/workspace",
                         env=harness.environment(step), mounts=mounts, timeout_s=120.0,
                         labels={"org.dbstudio.test": uuid.uuid4().hex})
    log = tmp_path / "logs" / f"{step.subtask}.log"
    result = engine.run(spec, log=log)
    return result.exit_code, log.read_text()


def _step(subtask: str = "S2", first: bool = False) -> HarnessStep:
    return HarnessStep(subtask=subtask, first=first, instruction=instruction_path(subtask))


def test_a_shell_script_runs_in_the_workspace_with_the_studio_variables(docker_engine, test_image, tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text('pwd; echo "$STUDIO_SUBTASK|$STUDIO_INSTRUCTION|$HOME"; cat "$STUDIO_INSTRUCTION"; '
                      'echo done > "out-$STUDIO_SUBTASK.txt"\n')
    harness = harness_from_spec(f"script:{script}")
    assert harness.name == f"script:{script.resolve()}"
    code, log = _run(docker_engine, test_image, harness, _step("S2"), tmp_path)
    assert code == 0, log
    assert log == "/workspace\nS2|/studio/task/S2/instruction.md|/studio/home\nDo S2 with care.\n"
    assert (tmp_path / "workspace" / "out-S2.txt").read_text() == "done\n"
    assert harness.command(_step()) == ["sh", "/studio/harness/agent.sh"]


def test_a_python_script_runs_by_extension_and_a_shebang_wins(docker_engine, test_image, tmp_path):
    by_extension = tmp_path / "agent.py"
    by_extension.write_text("import os, pathlib\nprint('py', os.environ['STUDIO_SUBTASK'])\n")
    harness = harness_from_spec(f"script:{by_extension}")
    assert harness.command(_step()) == ["python3", "/studio/harness/agent.py"]
    code, log = _run(docker_engine, test_image, harness, _step("S1", first=True), tmp_path)
    assert (code, log) == (0, "py S1\n")

    with_shebang = tmp_path / "agent.tool"
    with_shebang.write_text("#!/usr/bin/env python3\nimport sys\nprint(sys.argv[0])\n")
    harness = harness_from_spec(f"script:{with_shebang}")
    assert harness.command(_step()) == ["/usr/bin/env", "python3", "/studio/harness/agent.tool"]
    code, log = _run(docker_engine, test_image, harness, _step("S1", first=True), tmp_path)
    assert (code, log) == (0, "/studio/harness/agent.tool\n")


def test_the_script_is_mounted_read_only(docker_engine, test_image, tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text('echo changed >> "$0"\n')
    code, log = _run(docker_engine, test_image, harness_from_spec(f"script:{script}"), _step(), tmp_path)
    assert code != 0
    assert "Read-only file system" in log
    assert script.read_text() == 'echo changed >> "$0"\n'


def test_a_missing_script_and_an_unknown_spec_are_clear_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HarnessError) as missing:
        harness_from_spec("script:agents/none.sh")
    assert f"harness script {tmp_path / 'agents' / 'none.sh'} does not exist" in str(missing.value)
    with pytest.raises(HarnessError) as unknown:
        harness_from_spec("claude")
    assert "unknown harness 'claude'" in str(unknown.value)
    for name in PRESETS:
        assert name in str(unknown.value)
    with pytest.raises(HarnessError, match="unknown harness"):
        harness_from_spec("script:")


def test_the_script_describes_itself_with_its_content_hash(tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text("echo a\n")
    first = ScriptHarness(script).describe()
    script.write_text("echo b\n")
    second = ScriptHarness(script).describe()
    assert first.startswith("sh /studio/harness/agent.sh  (script ") and first != second


EXPECTED_COMMANDS = {
    "claude-code": ("claude -p {P} --output-format json --dangerously-skip-permissions",
                    "claude --continue -p {P} --output-format json --dangerously-skip-permissions"),
    "codex": ("codex exec --json --skip-git-repo-check --sandbox danger-full-access {P}",
              "codex exec --json --skip-git-repo-check resume --last {P}"),
    "gemini": ("gemini --yolo -p {P} --output-format json", "gemini --yolo --resume latest -p {P} --output-format json"),
    "qwen": ("qwen --yolo -p {P} --output-format json", "qwen --yolo --continue -p {P} --output-format json"),
    "kimi": ("kimi --print -p {P}", "kimi --print --continue -p {P}"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_COMMANDS))
def test_each_preset_continues_its_session_from_the_second_subtask(name, monkeypatch):
    info = PRESETS[name]
    monkeypatch.setenv(info.key_variable, SECRET)
    harness = harness_from_spec(name)
    prompt = '"$(cat "$STUDIO_INSTRUCTION")"'
    first, later = (f"exec {text.format(P=prompt)}" for text in EXPECTED_COMMANDS[name])
    assert harness.command(_step("S1", first=True)) == ["sh", "-c", first]
    assert harness.command(_step("S2", first=False)) == ["sh", "-c", later]
    env = harness.environment(_step("S2"))
    assert env[info.key_variable] == SECRET
    assert env["STUDIO_SUBTASK"] == "S2" and env["HOME"] == "/studio/home"
    assert SECRET not in harness.describe()
    assert harness.mounts() == []


def test_a_preset_gets_its_key_and_the_instruction_as_prompt_in_the_container(docker_engine, test_image, tmp_path,
                                                                             monkeypatch):
    """A stand-in `claude` on the image's PATH prints what it received: the real command line of the preset."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-test-model")
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "claude"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "arg:$a"; done\necho "key:$ANTHROPIC_API_KEY"\n'
                    'echo "model:$ANTHROPIC_MODEL"\n')
    fake.chmod(0o755)
    harness = harness_from_spec("claude-code")
    code, log = _run(docker_engine, test_image, harness, _step("S3"), tmp_path,
                     extra=[Mount(tools, "/usr/local/bin", read_only=True)])
    assert code == 0, log
    assert log.splitlines() == ["arg:--continue", "arg:-p", "arg:Do S3 with care.", "arg:--output-format",
                                "arg:json", "arg:--dangerously-skip-permissions", f"key:{SECRET}",
                                "model:claude-test-model"]
    assert SECRET not in harness.describe()
    assert SECRET not in json.dumps(harness.command(_step("S3")))


def test_a_missing_key_names_the_variable_and_the_keyring_command(monkeypatch):
    monkeypatch.delenv("KIMI_API_KEY", raising=False)
    # an empty keyring: the "fail" backend is what a machine without any keyring service has
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    harness = harness_from_spec("kimi")
    with pytest.raises(HarnessError) as missing:
        harness.environment(_step())
    message = str(missing.value)
    assert "KIMI_API_KEY" in message and "keyring set dbstudio KIMI_API_KEY" in message
    with pytest.raises(HarnessError):
        harness.check()


def test_a_key_in_the_keyring_is_used_when_the_environment_has_none(monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1
        stored: dict[tuple[str, str], str] = {("dbstudio", "GEMINI_API_KEY"): SECRET}

        def get_password(self, service: str, username: str) -> str | None:
            return self.stored.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.stored[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.stored.pop((service, username), None)

    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        monkeypatch.delenv("GEMINI_API_KEY", raising=False)
        assert api_key("GEMINI_API_KEY") == SECRET
        assert PresetHarness(PRESETS["gemini"]).environment(_step())["GEMINI_API_KEY"] == SECRET
        monkeypatch.setenv("GEMINI_API_KEY", "from-env")
        assert api_key("GEMINI_API_KEY") == "from-env"
    finally:
        keyring.set_keyring(previous)


def test_claude_json_usage_becomes_token_counts():
    result = {"type": "result", "subtype": "success", "result": "done", "session_id": "abc",
              "usage": {"input_tokens": 1200, "output_tokens": 340, "cache_read_input_tokens": 5000,
                        "cache_creation_input_tokens": 60}}
    log = "some stderr line\n" + json.dumps(result) + "\n"
    harness = harness_from_spec("claude-code")
    assert harness.tokens(log) == TokenCounts(1200, 340, 5000, 60)
    assert harness.tokens(log).as_dict() == {"input": 1200, "output": 340, "cache_read": 5000, "cache_creation": 60}
    assert harness.tokens("no json here\n{broken\n") is None
    assert harness_from_spec("gemini").tokens(log) is None


def test_codex_json_events_become_token_counts():
    """`codex exec --json` prints one JSON event per line; each turn.completed carries the turn's usage,
    its input including the cached part (openai/codex exec_events.rs: input_tokens, cached_input_tokens,
    output_tokens). Two turns: uncached 26,549 - 22,272 + 6,245 - 5,376 = 5,146; cached 27,648."""
    events = [{"type": "thread.started", "thread_id": "t1"}, {"type": "turn.started"},
              {"type": "item.completed", "item": {"type": "agent_message", "text": "usage of turn.completed"}},
              {"type": "turn.completed", "usage": {"input_tokens": 26549, "cached_input_tokens": 22272,
                                                   "output_tokens": 1590}},
              {"type": "turn.completed", "usage": {"input_tokens": 6245, "cached_input_tokens": 5376,
                                                   "output_tokens": 407}}]
    log = "Reading prompt from stdin...\n" + "\n".join(json.dumps(e) for e in events) + "\n{\"type\": \"turn.completed\"\n"
    counts = harness_from_spec("codex").tokens(log)
    assert counts == TokenCounts(5146, 1997, 27648, 0)
    assert harness_from_spec("codex").tokens("no events\n") is None


def test_gemini_json_stats_become_token_counts():
    """`gemini -p ... --output-format json` prints one object, pretty-printed, whose stats.models holds
    each model's tokens, shaped as google-gemini.github.io/gemini-cli/docs/headless.html shows it:
    prompt includes the cached part (gemini-cli uiTelemetry.ts: input = prompt - cached), thoughts
    are output. Two models: uncached 24,939 - 21,263 + 1,800 - 0 + 35 (tool) = 5,511; cached 21,263;
    output 20 + 154 + 310 + 0 = 484."""
    result = {
        "response": "The capital of France is Paris.",
        "stats": {
            "models": {
                "gemini-2.5-pro": {"api": {"totalRequests": 2, "totalErrors": 0, "totalLatencyMs": 5053},
                                   "tokens": {"prompt": 24939, "candidates": 20, "total": 25113, "cached": 21263,
                                              "thoughts": 154, "tool": 0}},
                "gemini-2.5-flash": {"api": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 1100},
                                     "tokens": {"prompt": 1800, "candidates": 310, "total": 2145, "cached": 0,
                                                "thoughts": 0, "tool": 35}},
            },
            "tools": {"totalCalls": 1, "totalSuccess": 1, "totalFail": 0, "totalDurationMs": 1881,
                      "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 1},
                      "byName": {"google_web_search": {"count": 1, "success": 1, "fail": 0, "durationMs": 1881}}},
            "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0},
        },
    }
    log = "YOLO mode is enabled. All tool calls will be automatically approved.\n" + json.dumps(result, indent=2) + "\n"
    harness = harness_from_spec("gemini")
    assert harness.tokens(log) == TokenCounts(5511, 484, 21263, 0)
    # the same object on one line counts the same; an error without stats, or no JSON, is unknown
    assert harness.tokens(json.dumps(result)) == TokenCounts(5511, 484, 21263, 0)
    failed = {"response": "", "error": {"type": "ApiError", "message": "quota", "code": 429}}
    assert harness.tokens(json.dumps(failed, indent=2)) is None
    assert harness.tokens("The capital of France is Paris.\n{not json\n") is None
    assert harness_from_spec("claude-code").tokens(log) is None


def test_qwen_json_result_becomes_token_counts():
    """`qwen -p ... --output-format json` prints an array of messages ending with a `result`, shaped as
    qwenlm.github.io/qwen-code-docs/en/users/features/headless shows it. Its `stats` (Gemini CLI's
    per-model counts) when given; else its `usage`, input_tokens the whole prompt with the cached
    part in cache_read_input_tokens (qwen-code nonInteractive/types.ts, computeUsageFromMetrics)."""
    usage = {"input_tokens": 18000, "output_tokens": 950, "cache_read_input_tokens": 12000, "total_tokens": 18950}
    messages = [
        {"type": "system", "subtype": "session_start", "uuid": "u1", "session_id": "s1", "model": "qwen3-coder-plus"},
        {"type": "assistant", "uuid": "u2", "session_id": "s1", "parent_tool_use_id": None,
         "message": {"id": "m1", "type": "message", "role": "assistant", "model": "qwen3-coder-plus",
                     "content": [{"type": "text", "text": "The capital of France is Paris."}],
                     "usage": {"input_tokens": 9000, "output_tokens": 400}}},
        {"type": "result", "subtype": "success", "uuid": "u3", "session_id": "s1", "is_error": False,
         "duration_ms": 1234, "duration_api_ms": 1100, "num_turns": 2, "result": "The capital of France is Paris.",
         "usage": usage, "permission_denials": []},
    ]
    harness = harness_from_spec("qwen")
    assert harness.tokens(json.dumps(messages, indent=2)) == TokenCounts(6000, 950, 12000, 0)
    messages[-1]["stats"] = {"models": {"qwen3-coder-plus": {"tokens": {
        "prompt": 18000, "candidates": 950, "total": 19150, "cached": 12000, "thoughts": 200, "tool": 0}}}}
    assert harness.tokens("warning on stderr\n" + json.dumps(messages)) == TokenCounts(6000, 1150, 12000, 0)
    assert harness.tokens(json.dumps(messages[:2])) is None  # stopped before its result: unknown

