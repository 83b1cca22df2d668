"""The ``solrace`` commands: one module each, listed by name in :data:`COMMANDS`.

A command module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``
(synchronous; a command that talks to a server calls ``asyncio.run`` itself). Adding a command
is one file in this package plus one line in :data:`COMMANDS`; ``solrace.client.cli`` does the
rest. Modules are imported by name so this package never imports its own commands.

The helpers below spell the arguments every deal-based command shares — the variant, ``--seed``,
``--option k=v``, ``--json``, ``--color`` — so that all commands accept them the same way.
User mistakes surface as :class:`CommandError` (or a :class:`~solrace.shared.errors.SolraceError`
from the core): the CLI prints the message, without a traceback, and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

COMMANDS: tuple[str, ...] = (
    "variants",
    "deal",
    "replay",
    "solve",
    "play",
    "race",
    "watch",
    "races",
    "daily",
    "practice",
    "leaderboard",
    "profile",
    "register",
    "login",
    "logout",
    "sessions",
    "report",
    "mod",
    "tournament",
)

SEED_MAX = 2**64 - 1


class CommandError(Exception):
    """A user error: the message is printed as is, the exit status is 1."""


# ------------------------------------------------------------------------------ argument types


def parse_seed(text: str) -> int:
    """A u64 seed, decimal (``42``) or hexadecimal (``0x2a``); underscores allowed."""
    raw = text.strip().lower().replace("_", "")
    try:
        seed = int(raw, 16) if raw.startswith("0x") else int(raw, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a seed: {text!r} (a whole number, decimal or 0x hex)"
        ) from None
    if not 0 <= seed <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"seed {text} is outside 0..2**64-1")
    return seed


def parse_options(text: str) -> list[tuple[str, str]]:
    """``k=v`` or the canonical ``k=v,k=v`` (as printed in deal identities)."""
    pairs = []
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise argparse.ArgumentTypeError(f"not an option: {item!r} (expected name=value)")
        pairs.append((key.strip().lower(), value.strip().lower()))
    return pairs


def variant_name(text: str) -> str:
    """A registered variant name; ``Sixes_and_Sevens`` is accepted for ``sixes-and-sevens``."""
    from solrace.shared.variants import VARIANTS

    name = text.strip().lower().replace("_", "-").replace(" ", "-")
    if name not in VARIANTS:
        raise argparse.ArgumentTypeError(
            f"unknown variant {text!r} (known: {', '.join(VARIANTS)})"
        )
    return name


# ------------------------------------------------------------------------------ shared arguments


def add_deal_arguments(parser: argparse.ArgumentParser, *, seed_required: bool = False) -> None:
    """``VARIANT``, ``--seed`` and ``--option``: what identifies a deal."""
    from solrace.shared.variants import VARIANTS

    parser.add_argument(
        "variant", type=variant_name, metavar="VARIANT", help=f"one of: {', '.join(VARIANTS)}"
    )
    parser.add_argument(
        "--seed",
        type=parse_seed,
        required=seed_required,
        default=None if seed_required else 0,
        metavar="N",
        help="deal seed, 0..2**64-1, decimal or 0x hex" + ("" if seed_required else " (default 0)"),
    )
    parser.add_argument(
        "-o",
        "--option",
        dest="options",
        type=parse_options,
        action="append",
        default=[],
        metavar="K=V",
        help="variant option, repeatable (see 'solrace variants'); unset options take defaults",
    )


def add_output_arguments(parser: argparse.ArgumentParser, *, json_help: str) -> None:
    """``--json`` and the colour switches."""
    parser.add_argument("--json", action="store_true", help=json_help)
    colour = parser.add_mutually_exclusive_group()
    colour.add_argument(
        "--color",
        dest="color",
        action="store_const",
        const=True,
        default=None,
        help="colour even when stdout is not a terminal or NO_COLOR is set",
    )
    colour.add_argument(
        "--no-color", dest="color", action="store_const", const=False, help="no colour"
    )


def option_dict(args: argparse.Namespace) -> dict[str, str]:
    """The ``--option`` values as one dict; the same option twice is an error."""
    out: dict[str, str] = {}
    for pairs in args.options:
        for key, value in pairs:
            if key in out and out[key] != value:
                raise CommandError(f"option {key} given twice ({out[key]} and {value})")
            out[key] = value
    return out


def use_color(args: argparse.Namespace, stream: TextIO | None = None) -> bool:
    """``--color``/``--no-color`` when given; otherwise colour only on a terminal and only
    when ``NO_COLOR`` is unset or empty (https://no-color.org)."""
    if getattr(args, "color", None) is not None:
        return bool(args.color)
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def print_json(obj: Any) -> None:
    """One JSON document on one line (easy to pipe into ``jq`` or to read line by line)."""
    print(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


__all__ = [
    "COMMANDS",
    "CommandError",
    "add_deal_arguments",
    "add_output_arguments",
    "option_dict",
    "parse_options",
    "parse_seed",
    "print_json",
    "use_color",
    "variant_name",
]
