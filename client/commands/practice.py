"""Practice against server bots: ``solrace practice VARIANT --bot medium --bot strong``.

Starts a practice race at once — you and the bots you ask for (``weak``, ``medium``,
``strong``; up to seven, repeats allowed; none is a solo game) — and plays it exactly like
``solrace play``: same board, same move notation, the bots' progress shown live like any
rival's, the standings at the end. ``hint`` asks the server's solver for a move. Bots see every
card, face-down ones included, so practice is never rated or ranked and counts nowhere; the
end reveals the deal's seed (``--seed`` replays a deal you liked). ``--winnable`` prints, from
the start and after your moves, whether a win still exists from your position (the server's
solver, practice games only): a line each time the answer changes. ``quit`` leaves the game
open until its time limit; ``solrace play`` resumes it.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from typing import Any

from solrace.client import quickplay
from solrace.client.commands import (
    CommandError,
    option_dict,
    parse_options,
    parse_seed,
    use_color,
    variant_name,
)
from solrace.client.commands.play import RaceTerminal, interrupted
from solrace.client.library import Client, ClientError
from solrace.client.raceterm.winnable import WinnableWatch
from solrace.client.render import paint
from solrace.client.session import login, who
from solrace.client.tui import add_server_arguments, resolve_name, resolve_server
from solrace.shared.protocol import BOT_STRENGTHS, MAX_BOTS
from solrace.shared.variants import VARIANTS

NAME = "practice"
HELP = "practice against server bots (weak, medium, strong): never ranked"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("variant", type=variant_name, metavar="VARIANT",
                        help=f"one of: {', '.join(VARIANTS)}")
    parser.add_argument("-o", "--option", dest="options", type=parse_options, action="append",
                        default=[], metavar="K=V",
                        help="variant option, repeatable (see 'solrace variants')")
    parser.add_argument("--bot", dest="bots", action="append", default=[],
                        choices=BOT_STRENGTHS,
                        help=f"a bot to race, repeatable (at most {MAX_BOTS}); "
                        "none: a solo practice game")
    quickplay.add_arguments(parser)
    parser.add_argument("--seed", type=parse_seed, default=None, metavar="N",
                        help="the deal, 0..2**64-1 (default: a random deal, revealed at the end)")
    parser.add_argument("--time-limit", type=int, default=600, metavar="S",
                        help="time limit in seconds, 30..3600 (default 600)")
    parser.add_argument("--winnable", action="store_true",
                        help="after each move, say whether a win still exists from your "
                        "position (winnable, lost — proved — or undecided), when it changes")
    add_server_arguments(parser)


def bots_text(strengths: list[str]) -> str:
    """``2 weak bots and a strong bot``-style words for the title line."""
    if not strengths:
        return "solo"
    counts = Counter(strengths)
    parts = [f"{n} {s} bots" if n > 1 else f"a {s} bot"
             for s in BOT_STRENGTHS if (n := counts.get(s, 0))]
    return "vs " + (" and ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1
                    else parts[0])


class PracticeTerminal(RaceTerminal):
    """The play terminal, titled as a practice race against its bots."""

    def __init__(self, client: Client, url: str, bots: list[str], *, color: bool) -> None:
        super().__init__(client, url, color=color, auto_ready=True)
        self.bots = bots

    async def adopt(self, summary: dict[str, Any]) -> None:
        await super().adopt(summary)
        if self.still is not None and self.state == "running":
            self.still.after_move()  # the deal as dealt: lost already, or winnable

    def title(self) -> str:
        return " · ".join([paint("solrace practice", "1", self.color), self.variant_label(),
                           bots_text(self.bots), "unranked",
                           f"you: {who(self.client)}"])


async def practice_main(args: argparse.Namespace) -> int:
    if len(args.bots) > MAX_BOTS:
        raise CommandError(f"at most {MAX_BOTS} bots (a race seats 8)")
    if not 30 <= args.time_limit <= 3600:
        raise CommandError("--time-limit must be 30..3600 seconds")
    url, name = resolve_server(args), resolve_name(args)
    options = option_dict(args)
    client = await login(url, name)
    try:
        term = PracticeTerminal(client, url, list(args.bots), color=use_color(args))
        term.auto_play = args.auto
        if args.winnable:
            term.still = WinnableWatch(term)

        async def enter() -> dict[str, Any]:
            try:
                return await client.practice_start(args.variant, options, bots=args.bots,
                                                   time_limit=args.time_limit, seed=args.seed)
            except ClientError as exc:
                raise CommandError(f"{exc.code}: {exc.reason}") from None

        code = await term.run(enter)
        if term.still is not None:
            await term.still.close()
        if term.end is not None:
            print("practice race: not ranked, counted nowhere")
        return code
    finally:
        await client.close()


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(practice_main(args))
    except KeyboardInterrupt:
        return interrupted()
