"""Create a race and get its invite code: ``solrace race create VARIANT``.

Prints the invite code (what others type: ``solrace play --invite CODE``) and the race id (what
spectators may use: ``solrace watch``), then stays in the lobby showing who joins and plays the
race like ``solrace play`` once everyone is ready. With ``--no-wait`` it only prints them and
exits: the creator keeps the seat (the session token is saved), and ``solrace play --invite
CODE`` later picks it up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from solrace.client.commands import CommandError, option_dict, use_color, variant_name
from solrace.client.commands.play import (
    RaceTerminal,
    add_play_arguments,
    add_race_settings,
    interrupted,
)
from solrace.client.library import ClientError
from solrace.client.session import login, refusal
from solrace.client.tui import resolve_name, resolve_server
from solrace.shared.variants import VARIANTS

NAME = "race"
HELP = "create a race and get its invite code (race create VARIANT; race rematch RACE)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="race_action", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create", help="create a race, print its invite code, wait in the lobby and play",
        description="Create a race, print its invite code and race id, wait in the lobby "
        "showing who joins, then play it once everyone is ready.",
    )
    create.add_argument("variant", type=variant_name, metavar="VARIANT",
                        help=f"one of: {', '.join(VARIANTS)}")
    add_race_settings(create)
    create.add_argument("--no-wait", action="store_true",
                        help="print the code and race id, then exit (you keep the seat)")
    create.add_argument("--json", action="store_true",
                        help="with --no-wait: print the race summary as JSON")
    add_play_arguments(create)
    rematch = actions.add_parser(
        "rematch", help="a new race with the settings of a finished one, offered to its racers",
        description="Ask for a rematch of a finished race: the first racer to ask creates a "
        "race with the same settings (the others asking get the same one); every other racer "
        "is offered it and joins with: solrace play --invite CODE. Then wait in the lobby and "
        "play, as with create.",
    )
    rematch.add_argument("race", metavar="RACE", help="the race id of the finished race")
    rematch.add_argument("--no-wait", action="store_true",
                         help="print the new race's code and id, then exit (you keep the seat)")
    rematch.add_argument("--json", action="store_true",
                         help="with --no-wait: print the race summary as JSON")
    add_play_arguments(rematch)


def created_lines(summary: dict[str, Any]) -> list[str]:
    code, rid = summary["code"], summary["race"]
    return [
        f"invite code: {code}",
        f"race id: {rid}",
        f"others join with: solrace play --invite {code}",
        f"spectators watch with: solrace watch {rid}",
    ]


async def create_main(args: argparse.Namespace) -> int:
    url, name = resolve_server(args), resolve_name(args)
    client = await login(url, name)
    try:
        try:
            if args.race_action == "rematch":
                summary = await client.rematch(args.race)
            else:
                summary = await client.create_race(
                    args.variant, option_dict(args), seats=args.seats,
                    time_limit=args.time_limit, rated=args.rated,
                    winnable=args.winnable or bool(args.difficulty), difficulty=args.difficulty)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
        if args.no_wait:
            if args.json:
                print(json.dumps(summary, separators=(",", ":")))
            else:
                print("\n".join(created_lines(summary)))
                print(f"you hold a seat; play it with: solrace play --invite {summary['code']}")
            return 0
        term = RaceTerminal(client, url, color=use_color(args), auto_ready=args.ready)
        term.auto_play = args.auto

        async def enter() -> dict[str, Any]:
            return summary

        return await term.run(enter)
    finally:
        await client.close()


def run(args: argparse.Namespace) -> int:
    if args.race_action in ("create", "rematch"):
        try:
            return asyncio.run(create_main(args))
        except KeyboardInterrupt:
            return interrupted()
    raise CommandError(f"unknown action {args.race_action!r}")  # argparse prevents this
