"""Show a daily leaderboard: the top, any page of it, or the page around your own entry.

Asks the server's ``leaderboard`` for one variant's daily (today's on the server's UTC clock,
or ``--date``). Each row: rank, name, result, cards home, moves and the attempt's time; your
own row is marked. The ranking rule is printed under the table, because a ranking nobody can
read is one nobody trusts (``docs/leaderboards.md`` states the same rule).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from collections.abc import Mapping
from typing import Any

from solrace.client.commands import CommandError, print_json, use_color, variant_name
from solrace.client.library import Client, ClientError
from solrace.client.render import paint
from solrace.client.session import login
from solrace.client.tui import (
    add_server_arguments,
    clock,
    resolve_name,
    resolve_server,
    result_word,
    table,
)
from solrace.shared.protocol.requests import DIFFICULTIES
from solrace.shared.variants import VARIANTS

NAME = "leaderboard"
HELP = "a daily leaderboard: top, a page, or around your own entry"

#: The order of ``rank_key`` in ``server/game/daily.py``, in words.
RANK_RULE = (
    "order: winners first, by time, then fewer moves, then earlier finish; then the others "
    "by more cards home, who got them home first, more moves, shorter time, earlier finish; "
    "equal results by who finished first"
)


def day_text(text: str) -> str:
    try:
        return dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} (YYYY-MM-DD)") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("variant", type=variant_name, metavar="VARIANT",
                        help="one of: " + ", ".join(VARIANTS))
    parser.add_argument("--date", type=day_text, default=None, metavar="YYYY-MM-DD",
                        help="a past day's leaderboard (default: today, UTC)")
    parser.add_argument("--around-me", action="store_true",
                        help="the page centred on your own entry")
    parser.add_argument("--limit", type=int, default=20, metavar="N",
                        help="rows per page, 1..100 (default 20)")
    parser.add_argument("--offset", type=int, default=0, metavar="N",
                        help="rows to skip (default 0): the next page of the previous one")
    parser.add_argument("--difficulty", choices=DIFFICULTIES, default=None,
                        help="the board of that difficulty's daily (default: the day's first)")
    parser.add_argument("--json", action="store_true", help="print the server's reply as JSON")
    add_server_arguments(parser)


async def fetch(client: Client, variant: str, *, date: str | None = None, offset: int = 0,
                limit: int = 20, around_me: bool = False, difficulty: str | None = None
                ) -> dict[str, Any]:
    fields: dict[str, Any] = {"variant": variant, "offset": offset, "limit": limit,
                              "around_me": around_me}
    if date is not None:
        fields["date"] = date
    if difficulty is not None:
        fields["difficulty"] = difficulty
    return await client.request("leaderboard", **fields)


def versus_par(row: Mapping[str, Any], par: Any) -> str:
    """A winner's moves against par ("+12", "-3", "par"); blank for the others, whose move
    count measures no finished game."""
    if not par or row.get("result") != "won":
        return ""
    diff = int(row.get("moves", 0)) - int(par)
    return "par" if diff == 0 else f"{diff:+d}"


def board_lines(board: Mapping[str, Any], *, me: str | None = None, color: bool = False
                ) -> list[str]:
    """The reply as a titled table with the paging line and the ranking rule."""
    variant = str(board.get("variant", "?"))
    title = VARIANTS[variant].title if variant in VARIANTS else variant
    total = int(board.get("total", 0))
    level = f" · {board['difficulty']}" if board.get("difficulty") else ""
    head = paint(f"daily leaderboard · {title}{level} · {board.get('date')}", "1", color)
    par = board.get("par")
    lines = [f"{head} · {total} {'entry' if total == 1 else 'entries'}"
             + (f" · par {par} moves" if par else "")]
    rows = list(board.get("rows") or [])
    if not rows:
        lines.append("no entry on this page" if total else "nobody has finished this daily yet")
        return lines + review_lines(board)
    cells = [["#", "name", "result", "home", "moves", "vs par", "time"]]
    for r in rows:
        you = me is not None and r.get("player") == me
        name = str(r.get("name", "?")) + (" (you)" if you else "")
        cells.append([str(r.get("rank", "")), paint(name, "1", color) if you else name,
                      result_word(r.get("result"), color), str(r.get("home", 0)),
                      str(r.get("moves", 0)), versus_par(r, par),
                      clock(r.get("time", 0), tenths=True)])
    lines += ["  " + line for line in table(cells, right=(0, 3, 4, 5, 6))]
    first, last = int(rows[0]["rank"]), int(rows[-1]["rank"])
    paging = f"rows {first}–{last} of {total}"
    if board.get("my_rank"):
        paging += f" · your rank: {board['my_rank']}"
    if last < total:
        paging += f" · next page: --offset {last}"
    lines += [paging, *review_lines(board), RANK_RULE]
    return lines


def review_lines(board: Mapping[str, Any]) -> list[str]:
    """Fair play (docs/fairplay.md): whether the board may still change, and the caller's own
    result when it is not listed."""
    lines = []
    if board.get("provisional") and board.get("review_until"):
        until = dt.datetime.fromtimestamp(int(board["review_until"]) / 1000, dt.UTC)
        lines.append(f"provisional until {until:%Y-%m-%d %H:%M} UTC: results under review may "
                     "still be added, banned ones removed")
    mine, status = board.get("my_row"), board.get("my_review")
    if mine and status == "held":
        lines.append(f"your result ({mine.get('result')}, {clock(mine.get('time', 0))}) is "
                     "under review: it is listed once a moderator clears it")
    elif mine and status == "pending":
        lines.append(f"your result ({mine.get('result')}, {clock(mine.get('time', 0))}) is "
                     "being checked: it is listed in a few seconds when the check clears it")
    elif mine and status == "removed":
        lines.append("your result was removed by a moderator")
    return lines


async def leaderboard_main(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 100 or args.offset < 0:
        raise CommandError("--limit must be 1..100 and --offset >= 0")
    client = await login(resolve_server(args), resolve_name(args))
    try:
        board = await fetch(client, args.variant, date=args.date, offset=args.offset,
                            limit=args.limit, around_me=args.around_me,
                            difficulty=args.difficulty)
    except ClientError as exc:
        raise CommandError(f"{exc.code}: {exc.reason}") from None
    finally:
        await client.close()
    if args.json:
        print_json({k: v for k, v in board.items() if k not in ("t", "re")})
        return 0
    if args.around_me and board.get("my_rank") is None:
        print(f"you have no entry on this leaderboard yet: play it with "
              f"'solrace daily {args.variant}'")
    print("\n".join(board_lines(board, me=client.player, color=use_color(args))))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(leaderboard_main(args))
