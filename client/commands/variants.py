"""List the variants solrace plays, with their options.

Straight from the registry in :mod:`solrace.shared.variants`, so a new variant shows up here
without touching the CLI. ``--json`` gives ``[{"name", "title", "summary", "options":
[{"name", "values", "default", "help"}]}]`` (documented in ``docs/variants.md``).
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from solrace.client.commands import add_output_arguments, print_json, use_color
from solrace.client.render import paint
from solrace.shared.rules import Variant

NAME = "variants"
HELP = "list the variants and their options"

WIDTH = 88  # wrap summaries and option help here


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_output_arguments(parser, json_help="print the list as JSON")


def variant_json(v: Variant) -> dict[str, Any]:
    return {
        "name": v.name,
        "title": v.title,
        "summary": v.summary,
        "advice": v.advice or None,
        "options": [
            {"name": o.name, "values": list(o.values), "default": o.default, "help": o.help}
            for o in v.options
        ],
    }


def variant_text(v: Variant, color: bool) -> list[str]:
    lines = [f"{paint(v.name, '1', color)}  {v.title}"]
    lines += textwrap.wrap(v.summary, WIDTH, initial_indent="    ", subsequent_indent="    ")
    for o in v.options:
        values = " | ".join(
            f"{value} (default)" if value == o.default else value for value in o.values
        )
        lines.append(f"    --option {paint(o.name, '36', color)}={{{values}}}")
        lines += textwrap.wrap(o.help, WIDTH, initial_indent=" " * 8, subsequent_indent=" " * 8)
    if not v.options:
        lines.append("    no options")
    if v.advice:
        lines += textwrap.wrap("note: " + v.advice, WIDTH, initial_indent="    ",
                               subsequent_indent="          ")
    return lines


def run(args: argparse.Namespace) -> int:
    from solrace.shared.variants import VARIANTS

    if args.json:
        print_json([variant_json(v) for v in VARIANTS.values()])
        return 0
    color = use_color(args)
    blocks = [variant_text(v, color) for v in VARIANTS.values()]
    print("\n\n".join("\n".join(b) for b in blocks))
    return 0
