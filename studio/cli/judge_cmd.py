"""`dbstudio judge PROJECT (--run RUN [--scope SUBTASK|final|all] | --submission DIR --scope SUBTASK|final
| --costs | --trace SUBMISSION [--scope S] [--criterion ID])`: the LLM judge's verdicts on a run's checkpoints
and final package, or on any folder of files, stored in the project's verdict store with what each request
cost; `--costs` sums those costs, `--dry-run` estimates a judging without sending anything, `--agent` lets
the model read the files through tools and `--trace` prints what it read. The settings come from a judge profile (`--profile`, a
file of the project or a preset) and the flags; the API key from OPENAI_API_KEY or the OS keyring."""

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
from studio.judging.errors import JudgingError
from studio.judging.request_shape import DEFAULT_TIMEOUT_S, REASONING_EFFORTS

if TYPE_CHECKING:
    from studio.judging.judge import JudgeProgress, JudgeSettings
    from studio.judging.submission import Submission
    from studio.judging.verdict_store import VerdictStore
    from studio.model import Project
    from studio.store.loader import LoadedProject

ALL_SCOPES = "all"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "The endpoint is any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, llama.cpp "
        "server): --endpoint or OPENAI_BASE_URL, the model --model or OPENAI_MODEL; the key from "
        "OPENAI_API_KEY or `keyring set dbstudio OPENAI_API_KEY`, never stored. A profile (--profile NAME: "
        "judging/profiles/NAME.yaml in the project, or a preset: openai-reasoning, openai, anthropic, gemini, "
        "vllm, ollama, llama-cpp) pins the model and what the requests send; a flag beats the profile. "
        "Verdicts whose evidence, criterion, model and prompt are unchanged are reused (docs/judging.md)."
    )
    parser.add_argument("project", help="the project folder (its verdicts/ folder receives the verdicts)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", dest="run_id", metavar="RUN", help="a run id (or its folder) of the project")
    what.add_argument("--submission", metavar="DIR", help="a folder of submitted files, judged with --scope")
    what.add_argument("--costs", action="store_true",
                      help="show what judging has cost so far: tokens and requests per submission, judge and project")
    what.add_argument("--trace", metavar="SUBMISSION",
                      help="print the agent judge's tool calls on a submission (a run id or --id name), "
                      "each with what it returned and its tokens; --scope and --criterion narrow it")
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
        "--dry-run", action="store_true",
        help="estimate the requests and tokens of this judging and send nothing",
    )
    add_judge_options(parser)
    parser.add_argument("--criterion", metavar="ID", help="with --trace: only the conversation that decided ID")
    parser.set_defaults(run=run)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """The judge's settings as flags, over the profile: what `judge` and `mutate` both take."""
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="base URL of the chat-completions API, e.g. "
        "http://localhost:11434/v1 (default: OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    parser.add_argument(
        "--model", metavar="M", help="the judge model (default: the profile's, else OPENAI_MODEL, else gpt-4o-mini)"
    )
    parser.add_argument(
        "--profile", metavar="NAME",
        help="the judge profile: judging/profiles/NAME.yaml in the project, or a preset (docs/judging.md)",
    )
    parser.add_argument("--batch", type=_positive, metavar="N", help="criteria per request (default 8)")
    parser.add_argument("--parallel", type=_positive, metavar="N", help="requests at once (default 4)")
    parser.add_argument(
        "--attempts",
        type=_positive,
        metavar="N",
        help="attempts per batch, and per criterion alone after them (default 2)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds a whole request may take, time queued on the server and the answer's last byte included "
        "(default 1200)",
    )
    parser.add_argument(
        "--temperature", type=float, metavar="T",
        help="sampling temperature, 0 to 2 (default: not sent, the server's own; reasoning models refuse any other)",
    )
    parser.add_argument(
        "--reasoning-effort", choices=REASONING_EFFORTS, metavar="LEVEL",
        help=f"reasoning effort of a reasoning model: {', '.join(REASONING_EFFORTS)} (default: not sent)",
    )
    parser.add_argument(
        "--max-output-tokens", type=_positive, metavar="N",
        help="cap on the answer's tokens, reasoning included (sent as max_completion_tokens or max_tokens, as the "
        "profile says; default: not sent)",
    )
    parser.add_argument(
        "--context-window", type=_positive, metavar="N",
        help="the model's context window in tokens: a request estimated not to fit is not sent (default: the "
        "profile's, else unchecked)",
    )
    parser.add_argument("--images", action="store_true", help="give the submission's images to a multimodal model")
    parser.add_argument(
        "--agent", action="store_true",
        help="the agent judge: the model reads the submission through tools (list files, read lines, a sheet range, "
        "PDF pages, an image) and then judges (default: the profile's mode, else batch)",
    )
    parser.add_argument(
        "--agent-steps", type=_steps, metavar="N",
        help="agent judge: model turns that call tools per conversation before the answer is asked for (default 20)",
    )
    parser.add_argument(
        "--agent-tokens", type=_positive, metavar="N",
        help="agent judge: prompt and completion tokens per conversation before the answer is asked for "
        "(default 300000)",
    )

def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _steps(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more (0: the model answers without reading)")
    return value


def _fail(message: str) -> int:
    print(f"dbstudio judge: {message}", file=sys.stderr)
    return ExitCode.UNUSABLE


def run(args: argparse.Namespace) -> int:
    from studio.judging.judge import JudgeSummary, judge_submission, open_client
    from studio.judging.verdict_store import VerdictStore
    from studio.store import layout
    from studio.store.loader import load_project

    project_dir = Path(args.project).resolve()
    if (problem := layout.not_a_project(project_dir)) is not None:
        return _fail(problem)
    if args.costs:
        return _show_costs(project_dir)
    if args.trace is not None:
        return _show_trace(project_dir, args.trace, args.scope, args.criterion)
    if args.criterion is not None:
        return _fail("--criterion narrows --trace; a judging judges every criterion of its scope")
    if args.timeout is not None and args.timeout <= 0:
        return _fail("--timeout must be more than 0 seconds")
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        return _fail("--temperature must be between 0 and 2")
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
    settings = settings_of(args, project_dir)
    store = VerdictStore(project_dir)
    if args.dry_run:
        return _dry_run(loaded, submissions, settings, store)
    total = JudgeSummary()
    print(f"judging with {settings.describe()}", flush=True)
    with cancel_on_interrupt() as cancelled, open_client(settings) as client:
        for submission in submissions:
            try:
                summary = judge_submission(
                    loaded, submission, settings, store, _show_progress, cancelled.is_set, client=client
                )
            except JudgingError:
                print(f"{submission.id} {submission.scope}: stopped; the verdicts received are stored", flush=True)
                raise
            print(f"{submission.id} {submission.scope}: {_counts(summary)}", flush=True)
            total.add(summary)
            if summary.cancelled:
                break
    raters = ", ".join(total.raters) or settings.rater
    print(
        f"judged {total.judged}, reused {total.reused}, missing {total.missing}, by checks {total.from_checks} "
        f"({total.requests} requests) as {raters}; verdicts in {store.path(submissions[0].id, settings.rater).parent}"
    )
    print(f"cost: {total.costs.line()}")
    for reason in total.refusals:
        # a prompt kept back before sending was never before the server
        heading = "kept back" if reason.startswith("not sent:") else "refused by the server, not retried"
        print(f"{heading}: {reason}", file=sys.stderr)
    for reason in total.budget_spent:
        print(f"budget spent, stored missing: {reason}; raise --agent-steps or --agent-tokens", file=sys.stderr)
    if total.missing_ids:
        print("missing (judge again to retry them): " + ", ".join(total.missing_ids))
    for cid, reason in total.not_judged.items():
        print(f"not judged, stored missing: {cid}: {reason}")
    if total.cancelled:
        print("interrupted: the verdicts received are stored; judge again to go on", file=sys.stderr)
        return ExitCode.INTERRUPTED
    return ExitCode.PROBLEMS if total.missing else ExitCode.OK


@contextmanager
def cancel_on_interrupt() -> Iterator[threading.Event]:
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


def settings_of(args: argparse.Namespace, project_dir: Path) -> JudgeSettings:
    """The judge's settings: the profile (a file of the project or a preset), then the flags over it; the
    endpoint and model from the environment where neither names one."""
    from studio.judging.client import default_base_url, default_model
    from studio.judging.judge import JudgeSettings
    from studio.judging.profiles import JudgeProfile, load_profile

    profile = load_profile(project_dir, args.profile) if args.profile else JudgeProfile(timeout_s=DEFAULT_TIMEOUT_S)
    profile = profile.with_changes(
        model=args.model, endpoint=args.endpoint, batch=args.batch, parallel=args.parallel, attempts=args.attempts,
        timeout_s=args.timeout, temperature=args.temperature, reasoning_effort=args.reasoning_effort,
        max_output_tokens=args.max_output_tokens, context_window=args.context_window,
        mode="agent" if args.agent else None, agent_steps=args.agent_steps, agent_tokens=args.agent_tokens,
    )
    return JudgeSettings.from_profile(
        profile, base_url=default_base_url(), model=default_model(), name=args.profile, images=args.images
    )


def _dry_run(loaded: LoadedProject, submissions: list[Submission], settings: JudgeSettings,
             store: VerdictStore) -> int:
    from studio.judging.judge import JudgeSummary, judge_submission

    print(f"dry run, nothing is sent: {settings.describe()}", flush=True)
    total = JudgeSummary()
    for submission in submissions:
        summary = judge_submission(loaded, submission, settings, store, dry_run=True)
        print(
            f"{submission.id} {submission.scope}: {_requests(summary.planned_requests)}, about "
            f"{summary.estimated_prompt_tokens:,} prompt tokens; reused {summary.reused}, by checks "
            f"{summary.from_checks}",
            flush=True,
        )
        total.add(summary)
    if settings.agent:  # the estimate is of each conversation's first request; the reads come on top
        count = total.planned_requests
        print(f"agent judge: {count} conversation{'' if count == 1 else 's'}, each of up to "
              f"{settings.agent_steps + 1} requests and {settings.agent_tokens:,} tokens; the estimate below is of "
              "their first requests only", flush=True)
    most = (f", at most {total.planned_requests * settings.max_output_tokens:,} output tokens"
            if settings.max_output_tokens else "")
    print(
        f"would send {_requests(total.planned_requests)} (more if some must be asked again: up to "
        f"{settings.attempts} attempts each), about {total.estimated_prompt_tokens:,} prompt tokens{most}"
    )
    if total.too_large:
        print(
            f"not sendable, too large for the context window of {settings.context_window:,} tokens: "
            + ", ".join(total.too_large), file=sys.stderr,
        )
        return ExitCode.PROBLEMS
    return ExitCode.OK


def _requests(count: int) -> str:
    return f"{count} request" + ("" if count == 1 else "s")


def _show_costs(project_dir: Path) -> int:
    from studio.judging.costs import cost_report, read_costs

    costs = read_costs(project_dir)
    if not costs:
        print(f"no judging recorded its costs yet in {project_dir}")
        return ExitCode.OK
    report = cost_report(costs)
    for (submission, scope), totals in sorted(report.by_scope.items()):
        print(f"{submission} {scope}: {totals.line()}")
    for submission, totals in sorted(report.by_submission.items()):
        print(f"{submission} (all scopes): {totals.line()}")
    for rater, totals in sorted(report.by_rater.items()):
        print(f"{rater}: {totals.line()}")
    print(f"project ({len(costs)} judgings): {report.project.line()}")
    return ExitCode.OK


def _show_trace(project_dir: Path, submission: str, scope: str | None, criterion: str | None) -> int:
    from studio.judging.traces import conversation_lines, traces_for

    traces = traces_for(project_dir, submission, scope)
    if criterion is not None:  # the last conversation that asked about it: the one whose answer stands
        traces = [trace for trace in traces if any(criterion in c.criteria for c in trace.conversations)][-1:]
    if not traces:
        narrowed = "".join(f" {name} {value}" for name, value in (("scope", scope), ("criterion", criterion)) if value)
        print(f"no agent judging of {submission}{narrowed} is recorded in {project_dir}: judge it with --agent")
        return ExitCode.PROBLEMS if criterion is not None else ExitCode.OK
    for trace in traces:
        print(f"{trace.submission} {trace.scope} by {trace.rater}, {trace.started:%Y-%m-%d %H:%M:%S} UTC")
        conversations = trace.conversations
        if criterion is not None:
            conversations = [c for c in conversations if criterion in c.criteria][-1:]
        for conversation in conversations:
            for line in conversation_lines(conversation):
                print(f"  {line}")
    return ExitCode.OK


def _counts(summary: object) -> str:
    return ", ".join(
        f"{name.replace('from_checks', 'by checks')} {getattr(summary, name)}"
        for name in ("judged", "reused", "missing", "from_checks")
    )


def _show_progress(progress: JudgeProgress) -> None:
    spent = f", {progress.tokens:,} tokens so far" if progress.tokens else ""
    print(f"  [{progress.done}/{progress.total}] {progress.submission} {progress.scope} ({progress.phase}{spent})",
          flush=True)


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
