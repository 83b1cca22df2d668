"""List the races running now, newest first, to pick one to watch.

Asks the server's ``races.live`` (anonymously: listing needs no name). Each row gives the race
id (what ``solrace watch`` takes), the variant and options, the number of racers, the time
since the start and the spectators. A page holds ``--limit`` races; when there are more, the
last line gives the ``--before`` cursor of the next page.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from solrace.client.commands import CommandError, print_json
from solrace.client.library import Client, ClientError
from solrace.client.session import spectate
from solrace.client.tui import add_server_arguments, clock, options_text, resolve_server, table
from solrace.shared.variants import VARIANTS

NAME = "races"
HELP = "list live races (to watch one)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=20, metavar="N",
                        help="races per page, 1..100 (default 20)")
    parser.add_argument("--before", type=int, default=None, metavar="CURSOR",
                        help="the next page: the cursor printed at the end of the previous one")
    parser.add_argument("--json", action="store_true",
                        help="print the server's reply {races, next} as JSON")
    add_server_arguments(parser, player=False)


def race_rows(races: list[dict[str, Any]]) -> list[str]:
    rows = [["race", "variant", "options", "racers", "elapsed", "spectators", "rated"]]
    for r in races:
        variant = r.get("variant") or "?"
        rows.append([
            str(r["race"]), VARIANTS[variant].title if variant in VARIANTS else variant,
            options_text(r.get("options")) or "-", str(r.get("racers", 0)),
            clock(r.get("elapsed", 0)), str(r.get("spectators", 0)),
            "rated" if r.get("rated") else "-",
        ])
    return table(rows, right=(3, 4, 5))


async def races_main(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 100:
        raise CommandError("--limit must be 1..100")
    client = await spectate(resolve_server(args))
    try:
        races, cursor = await live_page(client, args.limit, args.before)
    except ClientError as exc:
        raise CommandError(f"{exc.code}: {exc.reason}") from None
    finally:
        await client.close()
    if args.json:
        print_json({"races": races, "next": cursor})
        return 0
    if not races:
        print("no race is running right now" + (" before that cursor" if args.before else ""))
        return 0
    print("\n".join(race_rows(races)))
    print("watch one with: solrace watch RACE")
    if cursor is not None:
        print(f"more: solrace races --limit {args.limit} --before {cursor}")
    return 0


async def live_page(client: Client, limit: int, before: int | None
                    ) -> tuple[list[dict[str, Any]], int | None]:
    """One page of live races and the cursor of the next page, None when there is none.

    The server hands out a cursor whenever a page is full, even when nothing follows; asking
    for one race more than shown tells whether a next page really exists."""
    fields: dict[str, Any] = {"limit": min(limit + 1, 100)}
    if before is not None:
        fields["before"] = before
    reply = await client.request("races.live", **fields)
    races = list(reply["races"])
    if len(races) > limit:
        return races[:limit], int(races[limit - 1]["started_at"])
    return races, reply.get("next") if len(races) == limit == 100 else None


def run(args: argparse.Namespace) -> int:
    return asyncio.run(races_main(args))
