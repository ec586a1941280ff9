"""Entry point of `dbstudio`: with no command it opens the app on the sample project.

Only the chosen command's module is imported (see registry.py), and every way a command can
end is mapped here to one exit code: a `StudioError` is a message (exit 2), anything else is
a bug and gets a crash report with a log file (exit 70), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from studio import __version__
from studio.cli.exit_codes import ExitCode
from studio.cli.registry import BY_NAME, COMMANDS
from studio.errors import StudioError

DEFAULT_COMMAND = "gui"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command by name and help; only `command`'s module is imported, for its arguments."""
    return _build(command)[0]


def _build(command: str | None) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser | None]:
    # Only the chosen command gets a parser of its own: building all of them costs more than
    # the rest of `dbstudio --help` together. Without a command, the list of commands is text.
    parser = argparse.ArgumentParser(
        prog="dbstudio",
        description="DeliverBench Studio: author, review, run and judge multi-stage project benchmarks.",
        epilog=_command_list() + "\n\nExit codes: 0 ok, 1 problems found, 2 unusable input, 70 internal error "
               "(a bug).\n`dbstudio COMMAND --help` describes one command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dbstudio {__version__}")
    if command is None:
        parser.add_argument("command", nargs="?", choices=list(BY_NAME), metavar="COMMAND",
                            help="one of the commands below; none opens the app")
        return parser, None
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    entry = BY_NAME[command]
    sub = subparsers.add_parser(entry.name, help=entry.help, description=entry.help)
    entry.configure(sub)
    return parser, sub


def _command_list() -> str:
    width = max(len(entry.name) for entry in COMMANDS) + 2
    return "commands:\n" + "\n".join(f"  {entry.name:<{width}}{entry.help}" for entry in COMMANDS)


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """Parse `argv`; a command's own words may mix options and positionals in any order
    (`save P -m MSG FILE` as well as `save P FILE -m MSG`), which plain argparse refuses."""
    command = chosen_command(argv)
    parser, sub = _build(command)
    if command is None or sub is None:
        return parser.parse_args(argv)
    at = argv.index(command)
    parser.parse_args(argv[:at])  # top-level options only: --help and --version end here
    args = sub.parse_intermixed_args(argv[at + 1:])
    args.command = command
    return args


def chosen_command(argv: list[str]) -> str | None:
    """The command named in `argv`: the first word that is not an option (the top level has no valued options)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in BY_NAME else None
    return None


def names_a_folder(argv: list[str]) -> bool:
    """Whether the first word that is not an option is a path (not a mistyped command): a folder
    to open in the app, as `dbstudio gui PATH` would."""
    word = next((w for w in argv if not w.startswith("-")), None)
    return word is not None and word not in BY_NAME and (os.sep in word or Path(word).exists())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = chosen_command(argv)
    if command is None and names_a_folder(argv):  # `dbstudio PATH` is `dbstudio gui PATH`
        command, argv = DEFAULT_COMMAND, [DEFAULT_COMMAND, *argv]
    try:
        args = parse_arguments(argv)
        if args.command is None:  # no command at all: open the app
            command, argv = DEFAULT_COMMAND, [DEFAULT_COMMAND, *argv]
            args = parse_arguments(argv)
        return int(args.run(args))
    except KeyboardInterrupt:
        print("dbstudio: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); point stdout at devnull so exit stays quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except Exception as error:
        return _failure(command or DEFAULT_COMMAND, argv, error)


def _failure(command: str, argv: list[str], error: Exception) -> int:
    if isinstance(error, StudioError):
        print(f"dbstudio {command}: {error}", file=sys.stderr)
        return ExitCode.UNUSABLE
    try:
        from studio.cli.crash import report_crash  # only a crash pays for traceback & co.

        report_crash(command, argv, error)
    except Exception:  # the report itself failed: still no traceback, still not exit 1
        print(f"dbstudio {command}: internal error (a bug): {type(error).__name__}", file=sys.stderr)
    return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
