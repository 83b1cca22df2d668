"""Race in the terminal: join by invite code, quick-pair, or create a race, then play it.

The board is drawn from the views the server sends (the start view, then each ack's delta):
the client holds no game state of its own and judges no move, so what it shows is exactly what
the server believes. Moves are typed in the notation of ``docs/variants.md`` (``t3t5``, ``sw``,
``wf1``, ``t1t4:3``), several per line if you like; ``resign``, ``help``, ``board`` and ``quit``
are commands, and in practice games ``hint`` asks the server's solver for a move. Rivals'
progress (cards home, moves, finished) arrives live while you type.

A dropped connection is resumed with the saved session token and the missed events are synced;
a move in flight is re-sent with the same sequence number, which the server treats as a
duplicate if it had already applied it. ``quit`` in the lobby leaves the race (the seat is
freed); once the race runs it only exits: seat and game stay open on the server until the time
limit (rivals see you as disconnected), and ``solrace play`` (same server and name) resumes it
— so does re-running it after a crash, because the token is kept in ``session.json``. With
several open games ``solrace play`` asks which one (``--race ID`` / ``--new`` without a
terminal).

On a terminal the screen is redrawn in place; with stdout or stdin redirected every board and
event is printed as plain lines (moves can be piped in: lines typed before the start are held
and played once the race starts).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any

from solrace.client import opengames, quickplay
from solrace.client.commands import (
    CommandError,
    option_dict,
    parse_options,
    use_color,
    variant_name,
)
from solrace.client.library import ClientError
from solrace.client.raceterm import (  # re-exported: the other commands and the tests use them
    Racer,
    RaceTerminal,
    default_options_advice,
    hint_text,
    pile_summary,
)
from solrace.client.raceterm.model import DEFAULT_VARIANT
from solrace.client.session import login, refusal
from solrace.client.tui import (
    add_server_arguments,
    interactive,
    resolve_name,
    resolve_server,
)
from solrace.shared.protocol import CODE_RE
from solrace.shared.protocol.requests import DIFFICULTIES
from solrace.shared.variants import VARIANTS

__all__ = ["RaceTerminal", "Racer", "default_options_advice", "hint_text", "pile_summary"]

NAME = "play"
HELP = "race in the terminal: join by invite code, quick-pair, or create a race"


# ------------------------------------------------------------------------------ arguments


def invite_code(text: str) -> str:
    code = text.strip().upper()
    if not CODE_RE.match(code):
        raise argparse.ArgumentTypeError(f"not an invite code: {text!r} (six letters/digits)")
    return code


def bounded(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``lo..hi``, refused on the command line whether or
    not it ends up used (a resumed game takes no settings, but a typo is still a typo)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}")
        return value

    return parse


def add_race_settings(parser: argparse.ArgumentParser) -> None:
    """``--option``, ``--seats``, ``--time-limit``, ``--rated``: a new race's settings."""
    parser.add_argument("-o", "--option", dest="options", type=parse_options, action="append",
                        default=[], metavar="K=V",
                        help="variant option, repeatable (see 'solrace variants')")
    parser.add_argument("--seats", type=bounded(2, 8), default=2, metavar="N",
                        help="racers, 2..8 (default 2; new races only)")
    parser.add_argument("--time-limit", type=bounded(30, 7200), default=600, metavar="S",
                        help="time limit in seconds, 30..7200 (default 600; new races only)")
    parser.add_argument("--rated", action="store_true",
                        help="a rated race (spectators watch with a delay; new races only)")
    parser.add_argument("--winnable", action="store_true",
                        help="deal only a deal the server's solver has won (new races and "
                        "quick pairing only)")
    parser.add_argument("--difficulty", choices=DIFFICULTIES, default=None,
                        help="a deal the server's solver has won and rated so (implies "
                        "--winnable; quick pairing: only with players asking the same)")


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ready", action="store_true",
                        help="mark ready at once instead of asking you to press enter")
    quickplay.add_arguments(parser)
    add_server_arguments(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "variant", nargs="?", type=variant_name, default=None, metavar="VARIANT",
        help=f"variant to create or quick-pair for (default {DEFAULT_VARIANT}): "
        + ", ".join(VARIANTS),
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--invite", type=invite_code, metavar="CODE", help="join a race by code")
    how.add_argument("--quick", action="store_true",
                     help="be paired with the next player waiting for the same variant")
    how.add_argument("--race", metavar="ID", default=None,
                     help="resume this one of your open games (several are open: you choose)")
    how.add_argument("--new", action="store_true",
                     help="start or join a new race even though you have open games")
    add_race_settings(parser)
    add_play_arguments(parser)



# ------------------------------------------------------------------------------ the command


async def pick_open_game(welcome: dict[str, Any], args: argparse.Namespace,
                         now_ms: int) -> dict[str, Any] | None:
    """The open game to resume (:func:`solrace.client.opengames.choose`), or None."""
    games = opengames.open_games(welcome, lobbies=not (args.invite or args.quick))
    if args.invite:
        same = [g for g in games if g.get("code") == args.invite]
        if same:
            return same[0]
    asked_new = bool(args.invite or args.quick or args.variant)
    label = ("join the race " + args.invite if args.invite else
             "quick-pair for a new race" if args.quick else "create a new race")

    def ask(prompt: str) -> str:
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise CommandError("no choice made (end of input)")
        return line

    try:
        return await asyncio.to_thread(
            opengames.choose, games, race=args.race, new=args.new, asked_new=asked_new,
            ask=ask if interactive() else None, new_label=label, now_ms=now_ms)
    except opengames.Choice as exc:
        raise CommandError(str(exc)) from None


def settings_ignored(args: argparse.Namespace) -> list[str]:
    """Say so when new-race settings on the command line do not apply to a resumed game."""
    given = [flag for flag, on in (("VARIANT", args.variant), ("--option", args.options),
                                   ("--seats", args.seats != 2),
                                   ("--time-limit", args.time_limit != 600),
                                   ("--rated", args.rated),
                                   ("--winnable", args.winnable),
                                   ("--difficulty", args.difficulty)) if on]
    if not given:
        return []
    return [f"note: {', '.join(given)} apply to new races only; resuming an open game "
            "(--new starts a new race instead)"]


async def play_main(args: argparse.Namespace) -> int:
    if args.invite and (args.variant or args.options):
        raise CommandError("--invite joins an existing race: VARIANT and --option do not apply")
    url, name = resolve_server(args), resolve_name(args)
    variant = args.variant or DEFAULT_VARIANT
    options = option_dict(args)
    client = await login(url, name)
    term = RaceTerminal(client, url, color=use_color(args), auto_ready=args.ready)
    term.auto_play = args.auto

    async def enter() -> dict[str, Any] | None:
        found = await pick_open_game(client.welcome, args, term.server_now())
        if found is not None:
            for note in settings_ignored(args):
                term.message(note)
            return await term.resume(found)
        try:
            if args.invite:
                return await client.join(code=args.invite)
            if args.quick:
                term.summary = {"variant": variant, "options": options}
                reply = await client.quick(variant, options,
                                           winnable=args.winnable or bool(args.difficulty),
                                           difficulty=args.difficulty)
                return reply["race"] if reply["t"] == "race" else None
            return await client.create_race(variant, options, seats=args.seats,
                                            time_limit=args.time_limit, rated=args.rated,
                                            winnable=args.winnable or bool(args.difficulty),
                                            difficulty=args.difficulty)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None

    try:
        return await term.run(enter)
    finally:
        await client.close()


def interrupted() -> int:
    """Ctrl-C: say what became of the race (nothing: it goes on without us)."""
    print("\ninterrupted: a race you were in goes on; 'solrace play' resumes it",
          file=sys.stderr)
    return 130


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(play_main(args))
    except KeyboardInterrupt:
        return interrupted()
