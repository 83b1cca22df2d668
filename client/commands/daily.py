"""Play today's daily challenge: one certified deal per variant per UTC day, the same for all.

Shows the day's commitment (the sha256 of the secret seed, published before anyone plays) and
par (the length of the solver's winning line: every daily can be won), then plays your one
ranked attempt exactly like ``solrace play`` — same board, same move notation, same resume
after a crash or a dropped connection (running ``solrace daily`` again resumes an unfinished
attempt). When the attempt ends, your rank on the day's leaderboard is printed. After it,
``--practice`` plays the same deal again, never ranked (there, and only there, typing ``hint``
asks the server's solver for a move). Yesterday's seed is revealed, checked against
yesterday's commitment, so anyone can recompute that deal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Mapping
from typing import Any

from solrace.client.commands import CommandError, use_color, variant_name
from solrace.client.commands.leaderboard import RANK_RULE, fetch, versus_par
from solrace.client.commands.play import RaceTerminal, interrupted
from solrace.client.commands.profile import you_lines
from solrace.client.library import Client, ClientError
from solrace.client.render import paint
from solrace.client.session import login, refusal, who
from solrace.client.tui import (
    add_server_arguments,
    clock,
    interactive,
    options_text,
    resolve_name,
    resolve_server,
    result_word,
    seed_lines,
)
from solrace.shared.protocol.requests import DIFFICULTIES
from solrace.shared.variants import VARIANTS

NAME = "daily"
HELP = "play today's daily challenge (one ranked attempt; --practice after it)"

DEFAULT_VARIANT = "unlimited"
RANK_WAIT = 3.0  # seconds to wait for the finished attempt to appear on the leaderboard


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("variant", nargs="?", type=variant_name, default=None, metavar="VARIANT",
                        help=f"whose daily (default {DEFAULT_VARIANT}): " + ", ".join(VARIANTS))
    parser.add_argument("--difficulty", choices=DIFFICULTIES, default=None,
                        help="the daily of that difficulty (default: the day's first daily, "
                        "whatever its difficulty)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--practice", action="store_true",
                      help="play today's deal unranked (allowed after your ranked attempt)")
    mode.add_argument("--info", action="store_true",
                      help="show today's daily and yesterday's revealed seed, do not play")
    add_server_arguments(parser)


def info_lines(info: Mapping[str, Any], *, color: bool = False) -> list[str]:
    """Today's daily as the server publishes it, and yesterday's seed checked."""
    variant = str(info.get("variant"))
    title = VARIANTS[variant].title if variant in VARIANTS else variant
    opts = options_text(info.get("options"))
    lines = [
        paint(f"daily challenge · {title}", "1", color) + (f" ({opts})" if opts else "")
        + f" · {info.get('date')} (UTC)" + difficulty_text(info),
        f"commitment {info.get('commitment')} (sha256 of the seed; the seed is revealed "
        "tomorrow)",
        f"par {info.get('par')} moves (the solver's winning line: this deal can be won)",
    ]
    lines.append(attempt_line(info))
    lines += you_lines(info.get("you"), variant, color=color)
    yesterday = info.get("yesterday")
    if yesterday and yesterday.get("seed") is not None:
        lines.append(f"yesterday ({yesterday.get('date')}):")
        lines += ["  " + line for line in seed_lines(
            yesterday, yesterday.get("commitment"), variant, yesterday.get("options"))]
    return lines


def difficulty_text(info: Mapping[str, Any]) -> str:
    """`` · hard`` — the deal's difficulty, and what players' results make of it once
    enough have played (docs/leaderboards.md, "Difficulty")."""
    level = info.get("difficulty")
    if not level:
        return ""
    rating = info.get("rating") or {}
    now = rating.get("now")
    if rating.get("players") and now and now != level:
        return f" · {level} (players so far find it {now})"
    return f" · {level}"


def difficulty_flag(info: Mapping[str, Any]) -> str:
    """The ``--difficulty`` that reaches this daily again (empty for the day's first)."""
    asked = info.get("asked")
    return f" --difficulty {asked}" if asked else ""


def attempt_line(info: Mapping[str, Any]) -> str:
    """Where the caller's ranked attempt of the day stands (``attempt_state``)."""
    attempt, state = info.get("attempt"), info.get("attempt_state")
    variant = info.get("variant")
    if not attempt:
        return "your ranked attempt: not played yet (one per day; its clock starts when you do)"
    if state in ("finished", "closed") and info.get("attempt_review") == "held":
        return (f"your ranked attempt: finished (race {attempt}), under review — it is listed "
                "once a moderator clears it")
    if state in ("finished", "closed") and info.get("attempt_review") == "pending":
        return (f"your ranked attempt: finished (race {attempt}), being checked — it is "
                "listed in a few seconds when the check clears it")
    if state in ("finished", "closed"):
        return (f"your ranked attempt: finished (race {attempt}); see your rank: "
                f"solrace leaderboard {variant}{difficulty_flag(info)} --around-me; replay the "
                f"deal unranked: solrace daily {variant}{difficulty_flag(info)} --practice")
    return (f"your ranked attempt: in progress (race {attempt}), its clock running; "
            f"'solrace daily {variant}{difficulty_flag(info)}' resumes it")


def confirm_start(info: Mapping[str, Any], practice: bool) -> bool:
    """A new ranked attempt starts its clock at once: on a terminal, ask for enter first (as
    a race's lobby does). Resuming, practising and scripts are not asked."""
    if practice or info.get("attempt") or not interactive():
        return True
    print("press enter to start your ranked attempt — its clock starts then and there is "
          "one per day (Ctrl-C or end of input: not now)> ", end="", flush=True)
    return bool(sys.stdin.readline())


class DailyTerminal(RaceTerminal):
    """The play terminal, titled with the day and whether the game is ranked."""

    def __init__(self, client: Client, url: str, info: Mapping[str, Any], *, color: bool
                 ) -> None:
        super().__init__(client, url, color=color, auto_ready=True)
        self.info = info
        self.ranked = True

    def title(self) -> str:
        kind = "ranked attempt" if self.ranked else "practice (unranked)"
        level = [str(self.info["difficulty"])] if self.info.get("difficulty") else []
        return " · ".join([paint("solrace daily", "1", self.color), self.variant_label(),
                           str(self.info.get("date")), *level, kind,
                           f"par {self.info.get('par')}",
                           f"you: {who(self.client)}"])


async def my_rank(client: Client, variant: str, date: str | None,
                  difficulty: str | None = None) -> dict[str, Any] | None:
    """The caller's leaderboard row for that day, waiting briefly for it to be written (the
    server writes it just after it sends the end of the race)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RANK_WAIT
    while True:
        board = await fetch(client, variant, date=date, limit=1, around_me=True,
                            difficulty=difficulty)
        if board.get("my_review") in ("held", "removed") and board.get("my_row"):
            return {**board["my_row"], "review": board["my_review"]}  # not listed
        if board.get("my_rank") is not None:
            for row in board["rows"]:
                if row.get("player") == client.player:
                    return {**row, "total": board["total"]}
        if loop.time() > deadline:  # still being checked (the solver's analysis): say so
            if board.get("my_review") == "pending" and board.get("my_row"):
                return {**board["my_row"], "review": "pending"}
            return None
        await asyncio.sleep(0.2)


def par_text(row: Mapping[str, Any], par: Any) -> str:
    vs = versus_par(row, par)
    return f" ({vs} against par {par})" if vs and vs != "par" else (" (par)" if vs else "")


def rank_lines(row: Mapping[str, Any] | None, variant: str, *, color: bool = False,
               par: Any = None) -> list[str]:
    if row is None:
        return [f"your result will appear on 'solrace leaderboard {variant}'"]
    if row.get("review") == "held":
        return [paint("your result is under review", "1", color)
                + f" ({result_word(row.get('result'), color)}, "
                f"{clock(row.get('time', 0), tenths=True)}): it appears on the leaderboard "
                "once a moderator clears it (docs/fairplay.md)"]
    if row.get("review") == "pending":
        return [f"your result ({result_word(row.get('result'), color)}, "
                f"{clock(row.get('time', 0), tenths=True)}) is being checked: it appears on "
                f"'solrace leaderboard {variant}' when the check clears it (docs/fairplay.md)"]
    if row.get("review") == "removed":
        return ["your result was removed by a moderator"]
    return [
        paint(f"today's leaderboard: you are #{row['rank']} of {row['total']}", "1", color)
        + f" ({result_word(row.get('result'), color)}, {row.get('home')} home, "
        f"{row.get('moves')} moves{par_text(row, par)}, "
        f"{clock(row.get('time', 0), tenths=True)})",
        RANK_RULE,
        f"see it: solrace leaderboard {variant} --around-me",
    ]


async def daily_main(args: argparse.Namespace) -> int:
    url, name = resolve_server(args), resolve_name(args)
    variant = args.variant or DEFAULT_VARIANT
    level = {"difficulty": args.difficulty} if args.difficulty else {}
    color = use_color(args)
    client = await login(url, name)
    try:
        try:
            info = await client.request("daily", variant=variant, **level)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
        info = {**info, "asked": args.difficulty}
        print("\n".join(info_lines(info, color=color)), flush=True)
        if args.info:
            return 0
        if not await asyncio.to_thread(confirm_start, info, args.practice):
            print("not started: your ranked attempt is still to play")
            return 0
        term = DailyTerminal(client, url, info, color=color)

        flag = difficulty_flag(info)

        async def enter() -> dict[str, Any]:
            try:
                reply = await client.request("daily.start", variant=variant,
                                             practice=args.practice, **level)
            except ClientError as exc:
                if exc.code == "already_played":
                    raise CommandError(
                        f"you have played today's ranked {variant} daily; "
                        f"'solrace daily {variant}{flag} --practice' plays the deal again, "
                        f"unranked; 'solrace leaderboard {variant}{flag} --around-me' shows "
                        "your rank") from None
                raise CommandError(refusal(exc)) from None
            term.ranked = bool(reply.get("ranked"))
            rid = reply["race"]["race"]
            client.versions.setdefault(rid, 0)
            synced = await client.sync(rid)  # the board as it is (a resumed attempt has moves)
            if term.ranked and synced["board"] and synced["board"]["seq"]:
                term.message(f"resuming your ranked attempt ({synced['board']['seq']} moves "
                             "made; its clock kept running)")
            return dict(synced["race"])

        code = await term.run(enter)
        if term.end is not None:
            if term.ranked:
                row = await my_rank(client, variant, info.get("date"), args.difficulty)
                print("\n".join(rank_lines(row, variant, color=color, par=info.get("par"))))
                with contextlib.suppress(ClientError):  # the streak and badge it earned
                    after = await client.request("daily", variant=variant, **level)
                    print("\n".join(you_lines(after.get("you"), variant, color=color)))
            else:
                print("practice game: not ranked")
        return code
    finally:
        await client.close()


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(daily_main(args))
    except KeyboardInterrupt:
        return interrupted()
