"""Entry point of `dbstudio`: with no command it opens the app on the sample project."""

from __future__ import annotations

import argparse
import os
import sys

from studio.cli import agreement_cmd, gui_cmd, history_cmd, review_cmd, schemas_cmd, score_cmd, validate_cmd

COMMANDS = [validate_cmd, review_cmd, history_cmd, schemas_cmd, score_cmd, agreement_cmd, gui_cmd]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbstudio",
        description="DeliverBench Studio: author, review, run and judge multi-stage project benchmarks.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if getattr(args, "run", None) is None:
        args = parser.parse_args(["gui"])
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("dbstudio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); point stdout at devnull so exit stays quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
