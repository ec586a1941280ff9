"""Every `dbstudio` command by name and help text; a command's module is imported only when it runs.

Keeping the names and help here (and nothing heavier) lets `dbstudio --help` list every
command without importing numpy, pydantic, ruamel.yaml or GitPython.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable


class Command:
    """One subcommand: its name, its one-line help, and where its arguments and code live."""

    __slots__ = ("name", "help", "module", "function")

    def __init__(self, name: str, help: str, module: str, function: str = "configure") -> None:
        self.name = name
        self.help = help
        self.module = module  # under studio.cli
        self.function = function  # module function that adds the arguments and sets `run`

    def configure(self, parser: argparse.ArgumentParser) -> None:
        """Import the command's module and let it add its arguments and its `run` to `parser`."""
        module = importlib.import_module(f"studio.cli.{self.module}")
        configure: Callable[[argparse.ArgumentParser], None] = getattr(module, self.function)
        configure(parser)


COMMANDS = [
    Command("validate", "check a project folder for schema and reference problems", "validate_cmd"),
    Command("review", "alignment, availability, leak, propagation, weight and dependency rules",
            "review_cmd", "configure_review"),
    Command("impact", "everything downstream of a material, output or subtask", "review_cmd", "configure_impact"),
    Command("exposure", "points of each rubric and of the final score that hang on each material and output",
            "exposure_cmd"),
    Command("new", "create a project folder from a template, under git", "history_cmd", "configure_new"),
    Command("status", "list uncommitted changes in a project folder", "history_cmd", "configure_status"),
    Command("save", "commit the project's changes with a message", "history_cmd", "configure_save"),
    Command("history", "list saved revisions, newest first", "history_cmd", "configure_history"),
    Command("diff", "what changed in one subtask or criterion between revisions", "history_cmd", "configure_diff"),
    Command("comment", "comment threads on a subtask or criterion: comment PROJECT add TARGET TEXT | reply THREAD "
                       "TEXT | resolve THREAD | reopen THREAD | list", "comment_cmd"),
    Command("blame", "who changed each field of a subtask or criterion last", "comment_cmd", "configure_blame"),
    Command("restore", "put a file or folder back as it was at a revision", "history_cmd", "configure_restore"),
    Command("rename", "rename an id; every reference to it follows", "edit_cmd", "configure_rename"),
    Command("material", "import a file as a material, released at start or before a subtask; replace a "
                        "material's file", "edit_cmd", "configure_material"),
    Command("import-word", "a subtask's instruction or the brief from a Word file (.docx), as Markdown: "
                           "import-word PATH FILE.docx --instruction SUBTASK | --brief [--dry-run]", "edit_cmd",
            "configure_word"),
    Command("handoff", "the dependency map's handoffs: list, add, edit in place, remove", "edit_cmd",
            "configure_handoff"),
    Command("migrate", "bring a project written in an older format up to date (acceptance item ids)",
            "migrate_cmd"),
    Command("schemas", "regenerate the JSON Schemas of project files", "schemas_cmd"),
    Command("rubric", "rubrics to and from Excel: rubric export|import PROJECT FILE.xlsx [--dry-run]", "rubric_cmd"),
    Command("score", "score a verdict table (CSV or xlsx), checked against its project with --project; "
                     "without TABLE, the verdict store of --project", "score_cmd"),
    Command("edit-impact", "before re-judging: the scores a rubric edit makes stale (before -> after, exact ranges) "
                           "and the orders it can reverse: edit-impact PROJECT [--against REV] [--benchmark B]",
            "edit_impact_cmd"),
    Command("verdicts", "verdict tables: verdicts template PROJECT --system NAME OUT | export PROJECT --format "
                        "score|agreement OUT | calibration PROJECT", "verdicts_cmd"),
    Command("agreement", "agreement between a judge and experts (or any raters), from a table or --project's "
                         "verdict store", "agreement_cmd"),
    Command("assign", "review work: assign PROJECT RATER --subtask|--criterion|--decision ... [--remove] | --list",
            "review_work_cmd", "configure_assign"),
    Command("plan", "the double-coding plan: plan PROJECT --raters A B --width W [--expected P] [--seed N] | --status",
            "review_work_cmd", "configure_plan"),
    Command("run", "run an agent through the project's timeline in Docker, a checkpoint per subtask", "runs_cmd",
            "configure_run"),
    Command("runs", "trial runs: runs list|show|resume|cancel|export|diff", "runs_cmd", "configure_runs"),
    Command("export", "write a project for another tool: export harbor PROJECT OUT (a Harbor task, one step per subtask)",
            "harbor_cmd", "configure_export"),
    Command("import", "read another tool's results back as runs: import harbor JOB_DIR PROJECT", "harbor_cmd",
            "configure_import"),
    Command("draft", "rubric criteria drafted by an LLM as draft criteria in a reviewable diff: --subtask ID, "
                     "--propagation MATERIAL or --acceptance; --apply writes them", "draft_cmd"),
    Command("lineage", "what became of each failed checkpoint criterion of a judged run: persisted, repaired or "
                       "propagated downstream", "lineage_cmd"),
    Command("mutate", "test the rubrics on the expert's reference package: plant the project's failures and see "
                      "which criteria catch them", "mutate_cmd"),
    Command("judge", "the LLM judge's verdicts on a run's checkpoints or a folder of files, stored in the project",
            "judge_cmd"),
    Command("benchmark", "a benchmark of many projects and systems: benchmark new|validate|status|run|judge|report|robustness, export|import harbor", "benchmark_cmd"),
    Command("remote", "the shared repositories a project syncs with: remote PROJECT list|add NAME URL|remove NAME",
            "collab_cmd", "configure_remote"),
    Command("sync", "fetch, merge object by object and push the project's shared repository", "collab_cmd",
            "configure_sync"),
    Command("conflicts", "the conflicts a sync left, field by field (base, ours, theirs)", "collab_cmd",
            "configure_conflicts"),
    Command("resolve", "settle a sync's conflict: resolve PROJECT FILE FIELD --take ours|theirs|base | --value V | "
                       "--abort", "collab_cmd", "configure_resolve"),
    Command("merge-driver", "(run by git) merge one project file by object: merge-driver %O %A %B %P", "collab_cmd",
            "configure_merge_driver"),
    Command("gui", "open the desktop app (default: the sample project)", "gui_cmd"),
]

BY_NAME = {command.name: command for command in COMMANDS}
