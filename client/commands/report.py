"""Report a player to the moderators: a category and a short note (docs/fairplay.md).

Needs an account. One open report per player you report, five an hour; you are not told
what a moderator decides.
"""

from __future__ import annotations

import argparse
import asyncio

from solrace.client.commands import CommandError
from solrace.client.library import ClientError
from solrace.client.session import account_client, refusal
from solrace.client.tui import add_server_arguments, display_name

NAME = "report"
HELP = "report a player to the moderators (cheating, sandbagging, boosting, abuse, other)"
CATEGORIES = ("cheating", "sandbagging", "boosting", "abuse", "other")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", type=display_name, metavar="NAME", help="who to report")
    parser.add_argument("--category", choices=CATEGORIES, default="cheating")
    parser.add_argument("--note", default="", help="what happened (at most 500 characters)")
    parser.add_argument("--race", default=None, metavar="ID", help="the race it is about")
    add_server_arguments(parser, player=False)


async def report_main(args: argparse.Namespace) -> int:
    if len(args.note) > 500:
        raise CommandError("the note is at most 500 characters")
    client, _url = await account_client(args, "reporting a player")
    try:
        fields = {"player": args.player, "category": args.category, "note": args.note}
        if args.race:
            fields["race"] = args.race
        try:
            reply = await client.request("report", **fields)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
    finally:
        await client.close()
    print(f"reported {reply['player']} ({args.category}); a moderator will look at it")
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(report_main(args))
