"""Show a player's profile: Glicko-2 ratings per variant, daily streaks and best times.

Asks the server's ``profile`` (yourself when NAME is omitted). A rating marked provisional has
a deviation above 110: too few rated races to trust it yet. The daily streak counts won dailies
on consecutive UTC days; the server stores it as of the player's last won daily, so a streak
whose last day is before yesterday (on the server's clock) is shown as broken.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from collections.abc import Mapping
from typing import Any

from solrace.client.commands import CommandError, print_json, use_color
from solrace.client.library import ClientError
from solrace.client.render import paint
from solrace.client.session import SessionStore, login, spectate
from solrace.client.tui import (
    add_server_arguments,
    clock,
    display_name,
    resolve_name,
    resolve_server,
    table,
)
from solrace.shared.variants import VARIANTS

NAME = "profile"
HELP = "a player's ratings, daily streaks and best times"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", nargs="?", type=display_name, default=None, metavar="NAME",
                        help="the player to show (default: you)")
    parser.add_argument("--json", action="store_true", help="print the server's reply as JSON")
    add_server_arguments(parser)


def _title(variant: str) -> str:
    return VARIANTS[variant].title if variant in VARIANTS else variant


def current_streak(stats: Mapping[str, Any], today: str | None) -> int:
    """The streak still alive ``today``: the stored one if its last won daily is today or
    yesterday, else 0 (a day passed without a won daily)."""
    streak = int(stats.get("streak", 0))
    last = stats.get("last_daily")
    if not streak or today is None or not last:
        return streak
    yesterday = (dt.date.fromisoformat(today) - dt.timedelta(days=1)).isoformat()
    return streak if str(last) >= yesterday else 0


def server_day(server_time_ms: int | None) -> str | None:
    if not server_time_ms:
        return None
    return dt.datetime.fromtimestamp(server_time_ms / 1000, dt.UTC).date().isoformat()


def profile_lines(reply: Mapping[str, Any], *, today: str | None = None, color: bool = False
                  ) -> list[str]:
    lines = [paint(f"profile · {reply.get('name')}", "1", color)
             + f" (player {reply.get('player')})"]
    ratings: Mapping[str, Any] = reply.get("ratings") or {}
    if ratings:
        rows = [["variant", "rating", "±", "races", ""]]
        for variant in sorted(ratings):
            r = ratings[variant]
            rows.append([_title(variant), str(r.get("rating")), str(r.get("rd")),
                         str(r.get("games", 0)),
                         paint("provisional", "33", color) if r.get("provisional") else ""])
        lines += ["ratings (Glicko-2, rated races):",
                  *("  " + line for line in table(rows, right=(1, 2, 3)))]
    else:
        lines.append("ratings: none yet (no rated race finished)")
    stats: Mapping[str, Any] = reply.get("stats") or {}
    if stats:
        rows = [["variant", "races", "wins", "best time", "races won", "dailies",
                 "daily wins", "streak", "best streak", "last won daily"]]
        for variant in sorted(stats):
            s = stats[variant]
            best = s.get("best_time")
            rows.append([
                _title(variant), str(s.get("races", 0)), str(s.get("wins", 0)),
                clock(best, tenths=True) if best is not None else "-",
                str(s.get("races_won", 0)), str(s.get("dailies", 0)),
                str(s.get("daily_wins", 0)), str(current_streak(s, today)),
                str(s.get("best_streak", 0)), str(s.get("last_daily") or "-"),
            ])
        lines += ["all time:", *("  " + line for line in table(rows, right=tuple(range(1, 9))))]
    else:
        lines.append("all time: no race or daily finished yet")
    lines.append("(practice games and practice races count nowhere)")
    return lines


async def profile_main(args: argparse.Namespace) -> int:
    url, name = resolve_server(args), resolve_name(args)
    if args.player and name is None and SessionStore().current(url) is None:
        client = await spectate(url)  # someone else's profile needs no session of one's own
    else:
        client = await login(url, name)
    try:
        fields = {"name": args.player} if args.player else {}
        reply = await client.request("profile", **fields)
        pong = await client.request("ping")
    except ClientError as exc:
        raise CommandError(f"{exc.code}: {exc.reason}") from None
    finally:
        await client.close()
    if args.json:
        print_json({k: v for k, v in reply.items() if k not in ("t", "re")})
        return 0
    today = server_day(pong.get("server_time"))
    print("\n".join(profile_lines(reply, today=today, color=use_color(args))))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(profile_main(args))
