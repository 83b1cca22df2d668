"""The ``solrace`` command line: a parser assembled from the command registry.

Each command lives in its own module under :mod:`solrace.client.commands` and is listed there by
name, so this file never changes when a command is added. :func:`main` returns the exit status
(the console-script wrapper passes it to ``sys.exit``):

* 0 — done;
* 1 — the request was understood but cannot be done: an option value the variant does not
  have, a move that does not parse or is illegal, a server that refuses. One line on stderr,
  no traceback;
* 2 — the command line itself is wrong (argparse's usage message): unknown command or variant,
  a malformed seed, a missing argument.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from types import ModuleType

from solrace.client.commands import COMMANDS, CommandError
from solrace.shared.errors import SolraceError

PROG = "solrace"


class _CommandParser(argparse.ArgumentParser):
    """A command's parser, taking positionals and options in any order.

    Plain argparse fills every positional from the first run of positionals it meets, so
    ``replay unlimited --seed 3 sw wf1`` would leave the moves unmatched. Intermixed parsing
    (standard argparse) reads the options first, then the positionals. Commands using a
    feature it does not support (``REMAINDER``, a positional in an exclusive group) get the
    plain behaviour.
    """

    _plain = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        if self._plain:  # parse_known_intermixed_args calls back in here for each pass
            return super().parse_known_args(args, namespace)
        self._plain = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        except TypeError:
            return super().parse_known_args(args, namespace)
        finally:
            self._plain = False


def load_commands() -> list[ModuleType]:
    """The command modules, in registry order."""
    return [importlib.import_module(f"solrace.client.commands.{name}") for name in COMMANDS]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("solrace")
    except PackageNotFoundError:
        return "unknown"


def plain(text: str) -> str:
    """A docstring paragraph as help text: reST ``literal`` markup becomes 'literal'."""
    return re.sub(r"``([^`]+)``", r"'\1'", text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="solrace: race each other at solitaire on the identical deal.",
        epilog="Run 'solrace COMMAND --help' for a command's options. "
        "Rules, pile ids and move notation: docs/variants.md.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", parser_class=_CommandParser
    )
    for mod in load_commands():
        cmd = sub.add_parser(
            mod.NAME,
            help=mod.HELP,
            description=plain((mod.__doc__ or mod.HELP).strip().split("\n\n")[0]),
        )
        mod.add_arguments(cmd)
        cmd.set_defaults(_run=mod.run)
    return parser


def _error(command: str | None, message: str) -> None:
    where = f"{PROG} {command}" if command else PROG
    print(f"{where}: error: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status (see the module docstring)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    if getattr(args, "no_follow_home", False):  # read where clients connect (session.py)
        os.environ["SOLRACE_FOLLOW_HOME"] = "0"
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code = int(run(args))
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except (CommandError, SolraceError) as exc:
        _error(args.command, str(exc))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``solrace deal … | head``): not an error worth a traceback.
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
