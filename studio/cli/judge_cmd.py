"""`dbstudio judge PROJECT (--run RUN [--scope SUBTASK|final|all] | --submission DIR --scope SUBTASK|final)`:
the LLM judge's verdicts on a run's checkpoints and final package, or on any folder of files, stored in
the project's verdict store. The endpoint's API key comes from OPENAI_API_KEY or the OS keyring."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from studio.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from studio.judging.judge import JudgeProgress
    from studio.judging.submission import Submission
    from studio.model import Project

ALL_SCOPES = "all"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "The endpoint is any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, llama.cpp "
        "server): --endpoint or OPENAI_BASE_URL, the model --model or OPENAI_MODEL; the key from "
        "OPENAI_API_KEY or `keyring set dbstudio OPENAI_API_KEY`, never stored. Verdicts whose evidence, "
        "criterion, model and prompt are unchanged are reused (docs/judging.md)."
    )
    parser.add_argument("project", help="the project folder (its verdicts/ folder receives the verdicts)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", dest="run_id", metavar="RUN", help="a run id (or its folder) of the project")
    what.add_argument("--submission", metavar="DIR", help="a folder of submitted files, judged with --scope")
    parser.add_argument(
        "--scope",
        metavar="SUBTASK|final|all",
        help="the rubric to judge: a subtask id, final, or (with --run) all, the default",
    )
    parser.add_argument(
        "--id",
        dest="submission_id",
        metavar="NAME",
        help="with --submission: the name its verdicts are stored under (default: the folder's name)",
    )
    parser.add_argument("--runs-dir", metavar="DIR", help="where the runs live (default: the project's runs/ folder)")
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="base URL of the chat-completions API, e.g. "
        "http://localhost:11434/v1 (default: OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    parser.add_argument("--model", metavar="M", help="the judge model (default: OPENAI_MODEL, else gpt-4o-mini)")
    parser.add_argument("--batch", type=_positive, default=8, metavar="N", help="criteria per request (default 8)")
    parser.add_argument("--parallel", type=_positive, default=4, metavar="N", help="requests at once (default 4)")
    parser.add_argument(
        "--attempts",
        type=_positive,
        default=2,
        metavar="N",
        help="attempts per batch, and per criterion alone after them (default 2)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds a whole request may take, the answer's last byte included (default 120)",
    )
    parser.add_argument("--images", action="store_true", help="give the submission's images to a multimodal model")
    parser.set_defaults(run=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _fail(message: str) -> int:
    print(f"dbstudio judge: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run(args: argparse.Namespace) -> int:
    from studio.judging.client import default_base_url, default_model
    from studio.judging.judge import JudgeSettings, JudgeSummary, judge_submission, open_client
    from studio.judging.verdict_store import VerdictStore
    from studio.store import layout
    from studio.store.loader import load_project

    project_dir = Path(args.project).resolve()
    if (problem := layout.not_a_project(project_dir)) is not None:
        return _fail(problem)
    if args.timeout <= 0:
        return _fail("--timeout must be more than 0 seconds")
    loaded = load_project(project_dir)
    if loaded.problems:
        first = loaded.problems[0]
        line, column = loaded.locate(first)
        return _fail(
            f"{project_dir / first.file}:{line}:{column}: {first.message}; the project must load before "
            f"judging ({len(loaded.problems)} problem(s): `dbstudio validate` lists them)"
        )
    submissions = _submissions(args, loaded.project, project_dir)
    if isinstance(submissions, int):
        return submissions
    settings = JudgeSettings(
        base_url=args.endpoint or default_base_url(),
        model=args.model or default_model(),
        batch=args.batch,
        parallel=args.parallel,
        attempts=args.attempts,
        timeout_s=args.timeout,
        images=args.images,
    )
    store = VerdictStore(project_dir)
    total = JudgeSummary()
    print(
        f"judging with {settings.model} at {settings.base_url} (batches of {settings.batch}, "
        f"{settings.parallel} at once, {settings.attempts} attempts)",
        flush=True,
    )
    with _cancel_on_interrupt() as cancelled, open_client(settings) as client:
        for submission in submissions:
            summary = judge_submission(
                loaded, submission, settings, store, _show_progress, cancelled.is_set, client=client
            )
            print(f"{submission.id} {submission.scope}: {_counts(summary)}", flush=True)
            total.add(summary)
            if summary.cancelled:
                break
    print(
        f"judged {total.judged}, reused {total.reused}, missing {total.missing}, by checks {total.from_checks} "
        f"({total.requests} requests); verdicts in {store.path(submissions[0].id, settings.rater).parent}"
    )
    if total.missing_ids:
        print("missing (judge again to retry them): " + ", ".join(total.missing_ids))
    for cid, reason in total.not_judged.items():
        print(f"not judged, stored missing: {cid}: {reason}")
    if total.cancelled:
        print("interrupted: the verdicts received are stored; judge again to go on", file=sys.stderr)
        return ExitCode.INTERRUPTED
    return ExitCode.PROBLEMS if total.missing else ExitCode.OK


@contextmanager
def _cancel_on_interrupt() -> Iterator[threading.Event]:
    """While judging, the first Ctrl-C (or SIGTERM) lets the requests under way finish and stores their
    verdicts; a second Ctrl-C stops at once. The earlier handlers come back afterwards."""
    cancelled = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield cancelled
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if cancelled.is_set():
            raise KeyboardInterrupt
        cancelled.set()
        print("stopping after the requests under way (Ctrl-C again to stop at once)", file=sys.stderr, flush=True)

    before = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield cancelled
    finally:
        for number, previous in before.items():
            signal.signal(number, previous)


def _counts(summary: object) -> str:
    return ", ".join(
        f"{name.replace('from_checks', 'by checks')} {getattr(summary, name)}"
        for name in ("judged", "reused", "missing", "from_checks")
    )


def _show_progress(progress: JudgeProgress) -> None:
    print(f"  [{progress.done}/{progress.total}] {progress.submission} {progress.scope} ({progress.phase})", flush=True)


def _submissions(args: argparse.Namespace, project: Project, project_dir: Path) -> list[Submission] | int:
    from studio.judging.scope import scopes_of
    from studio.judging.submission import submission_of_folder

    known = scopes_of(project)
    if args.submission is not None:
        if not args.scope or args.scope == ALL_SCOPES:
            return _fail("--submission needs --scope SUBTASK or --scope final: the rubric the folder answers")
        if args.scope not in known:
            return _fail(f"the project has no rubric '{args.scope}': give one of {', '.join(known)}")
        return [submission_of_folder(Path(args.submission), args.scope, args.submission_id)]
    if args.submission_id:
        return _fail("--id names a --submission folder; a run's verdicts are stored under its run id")
    from studio.runs.record import find_run, load_run
    from studio.runs.runner import default_runs_dir

    runs_dir = Path(args.runs_dir) if args.runs_dir else default_runs_dir(project_dir)
    run_dir = Path(args.run_id) if Path(args.run_id).is_dir() else find_run(args.run_id, runs_dir)
    from studio.judging.errors import JudgingError
    from studio.judging.run_judging import run_submissions

    try:  # which rubrics a run can be judged on: the one rule the app's Judge… follows too
        submissions, skipped = run_submissions(project, run_dir, args.scope or ALL_SCOPES)
    except JudgingError as exc:
        return _fail(str(exc))
    if skipped:
        print(f"run {load_run(run_dir).run_id} has no checkpoint for {', '.join(skipped)}: not judged", flush=True)
    return submissions
