"""Bad input to `dbstudio benchmark status|run|judge|report`: a missing file or folder, broken YAML, a schema
error, an outcome naming an unknown system, each said at its file:line:column with exit 2 and nothing
written (the benchmark's folder, its projects' files and their git state as they were); a bad
--concurrency is refused by argparse, naming the option and its range, before anything is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.exit_codes import ExitCode
from tests.benchmark.test_benchmark_file import written_bench
from tests.helpers import column_of, git, line_of, run_cli

ACTIONS = ("status", "run", "judge", "report")


@pytest.fixture(autouse=True)
def no_judge_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    # judge must refuse before asking anyone: an endpoint that would answer is nowhere
    monkeypatch.setenv("OPENAI_API_KEY", "sk-bad-input-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")


@pytest.fixture
def bench(tmp_path: Path, capsys) -> Path:
    path = written_bench(tmp_path / "suite", capsys)
    git(path.parent, "add", "-A")
    git(path.parent, "commit", "-q", "-m", "systems and outcomes")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (git's own files left aside: their state is checked by `git status`)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def git_state(bench: Path) -> list[str]:
    folder = bench.parent
    return [git(root, "status", "--porcelain") + git(root, "rev-parse", "HEAD")
            for root in (folder, folder / "p01", folder / "p02")]


def refused(capsys, bench: Path, action: str, target: Path | None = None) -> str:
    """Runs `benchmark ACTION` on a broken `bench` and checks it wrote nothing; its stderr."""
    before, state = snapshot(bench.parent), git_state(bench)
    code, out, err = run_cli(capsys, "benchmark", action, str(target or bench))
    assert code == ExitCode.UNUSABLE, out + err
    assert out == "" and "Traceback" not in err
    assert snapshot(bench.parent) == before and git_state(bench) == state
    return err


@pytest.mark.parametrize("action", ACTIONS)
def test_a_missing_file_or_folder(bench: Path, capsys, action: str):
    err = refused(capsys, bench, action, bench.parent / "nothing.yaml")
    assert f"dbstudio benchmark {action}: {bench.parent / 'nothing.yaml'}: no such file" in err
    assert "`dbstudio benchmark new FOLDER` creates one" in err
    err = refused(capsys, bench, action, bench.parent / "p01")  # a folder without a benchmark.yaml
    assert f"{bench.parent / 'p01' / 'benchmark.yaml'}: no such file" in err
    err = refused(capsys, bench, action, bench.parent / "nowhere")
    assert f"{bench.parent / 'nowhere'}: no such file" in err


@pytest.mark.parametrize("action", ACTIONS)
def test_a_yaml_syntax_error_is_located(bench: Path, capsys, action: str):
    text = bench.read_text().replace("projects:\n- p01\n", "projects:\n- [p01\n")
    bench.write_text(text)
    err = refused(capsys, bench, action)
    first = err.splitlines()[0]
    assert first.startswith(f"{bench}:") and "YAML syntax" in first
    assert int(first.split(":")[1]) >= line_of(text, "- [p01")  # where the parser found the flow list unclosed
    assert err.splitlines()[-1] == (f"dbstudio benchmark {action}: {bench} has 1 problem(s): fix them first "
                                    "(`dbstudio benchmark validate`)")


@pytest.mark.parametrize("action", ACTIONS)
def test_a_schema_error_is_located_at_its_line_and_column(bench: Path, capsys, action: str):
    text = bench.read_text().replace("    harness_version: 2.1.278\n", "    harness_version: 2.1.278\n    cpus: 2\n")
    bench.write_text(text)
    err = refused(capsys, bench, action)
    # located as every schema problem of the project files is: a scalar's key at its value
    where = f"{bench}:{line_of(text, 'cpus: 2')}:{column_of(text, 'cpus: 2') + len('cpus: ')}"
    assert f"{where}: systems claude: unknown key 'cpus': remove it or check its spelling" in err.splitlines()


@pytest.mark.parametrize("action", ACTIONS)
def test_an_outcome_naming_an_unknown_system(bench: Path, capsys, action: str):
    text = bench.read_text() + "  - {system: gemini, project: kestrel-p02, submission: 20261201-000000-nothere}\n"
    bench.write_text(text)
    err = refused(capsys, bench, action)
    where = f"{bench}:{line_of(text, 'system: gemini')}:{column_of(text, 'gemini')}"
    assert (f"{where}: no system 'gemini' (systems: claude, codex): add it under systems or correct the id"
            in err.splitlines())


@pytest.mark.parametrize("value", ["0", "-1", "-3", "65", "two", "1.5", ""])
def test_run_refuses_a_concurrency_out_of_range(bench: Path, capsys, value: str):
    before, state = snapshot(bench.parent), git_state(bench)
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "benchmark", "run", str(bench), f"--concurrency={value}")
    assert exit_.value.code == ExitCode.UNUSABLE
    err = capsys.readouterr().err
    assert (f"argument --concurrency: give a whole number of pairs from 1 to 64 (got {value!r})"
            in err.splitlines()[-1])
    assert snapshot(bench.parent) == before and git_state(bench) == state


def test_concurrency_zero_is_refused_as_a_separate_word_too(bench: Path, capsys):
    for value in ("0", "-2"):
        with pytest.raises(SystemExit) as exit_:
            run_cli(capsys, "benchmark", "run", str(bench), "--concurrency", value)
        assert exit_.value.code == ExitCode.UNUSABLE
        assert f"from 1 to 64 (got '{value}')" in capsys.readouterr().err


def test_concurrency_goes_with_run_only(bench: Path, capsys):
    code, _, err = run_cli(capsys, "benchmark", "status", str(bench), "--concurrency", "4")
    assert code == ExitCode.UNUSABLE and "--concurrency goes with `benchmark run`" in err


def test_run_names_a_pair_it_cannot_start_and_writes_nothing(bench: Path, capsys):
    # codex on kestrel-p02 is the one pair without a run: first without an image, then with a harness
    # that is no preset; neither starts a run, so no outcome and no run folder are written
    given = bench.read_text()
    for harness, settings, why in (
            ("codex", "{reasoning_effort: high}", "system codex: no image to run it in: add `image: NAME:TAG` to its "
                                                  "settings in benchmark.yaml"),
            ("codexx", "{image: 'dbstudio/test-busybox:1'}", "unknown harness 'codexx': use script:PATH")):
        bench.write_text(given.replace("harness: codex\n    settings: {reasoning_effort: high}\n",
                                       f"harness: {harness}\n    settings: {settings}\n"))
        before, state = snapshot(bench.parent), git_state(bench)
        code, out, err = run_cli(capsys, "benchmark", "run", str(bench))
        assert code == ExitCode.PROBLEMS, out + err
        assert f"codex on kestrel-p02: not run: {why}" in out and "Traceback" not in err
        assert "0 of 1 pair(s) completed" in out
        assert snapshot(bench.parent) == before and git_state(bench) == state
