"""Quick play at the terminal: a pile for a move, ``f`` for autoplay, ``finish``, auto mode.

The server decides everything (``shared/pointing.py``): typing ``t3`` sends ``t3`` and the ack
says which move it made; ``f`` sends ``autoplay``, ``finish`` sends ``finish``; in auto mode
every move carries ``auto`` so the safe cards follow it home in the same batch. This module only
maps words to requests and says what happened; :class:`~solrace.client.commands.play.
RaceTerminal` calls it from its typed-line loop.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solrace.client.commands.play import RaceTerminal

AUTOPLAY_WORDS = frozenset({"f"})
FINISH_WORDS = frozenset({"finish"})
AUTO_WORDS = frozenset({"auto"})
HELP = ("or a pile: t3 (its best move) · t3:2 (two cards) · w · s (draw/redeal) · "
        "f (safe cards home) · finish · auto (on/off)")
SHOWN = 8  # moves of a batch listed in its message


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--auto", action="store_true",
                        help="auto-play: after every move the server plays each provably safe "
                        "card home ('auto' toggles it while playing)")


def toggle(term: RaceTerminal) -> None:
    """``auto``: switch auto mode and say so (the prompt shows it too)."""
    term.auto_play = not term.auto_play
    state = "on: safe cards go home after every move" if term.auto_play else "off"
    term.message(f"auto-play {state}")
    if term.screen.tty:
        term.redraw()


def prompt(term: RaceTerminal, base: str) -> str:
    """``move> `` — ``move (auto)> `` in auto mode."""
    return base.replace(">", " (auto)>", 1) if term.auto_play and base.startswith("move") \
        else base


async def request(term: RaceTerminal, text: str, seq: int) -> dict[str, Any]:
    """The request a typed word stands for, sent with ``seq``; the ack."""
    assert term.rid is not None
    word = text.lower()
    if word in AUTOPLAY_WORDS:
        return await term.client.autoplay(term.rid, seq)
    if word in FINISH_WORDS:
        return await term.client.finish(term.rid, seq)
    return await term.client.move(term.rid, text, seq, auto=term.auto_play)


def report(term: RaceTerminal, text: str, ack: dict[str, Any]) -> None:
    """Say what a word did when the typed text does not: the move a pile resolved to, the
    cards that went home after it, the moves of ``f`` and ``finish``."""
    moves = list(ack.get("moves") or [])
    word = text.lower()
    listed = " ".join(moves[:SHOWN]) + (f" … (+{len(moves) - SHOWN})" if len(moves) > SHOWN
                                        else "")
    if word in AUTOPLAY_WORDS:
        term.message(f"f: {len(moves)} safe card{'s' if len(moves) != 1 else ''} home: "
                     f"{listed}" if moves else "f: no card is safe to play home yet")
    elif word in FINISH_WORDS:
        term.message(f"finish: {len(moves)} moves played: {listed}")
    elif moves and (moves[0] != word or len(moves) > 1):
        then = f" · then home: {' '.join(moves[1:SHOWN + 1])}" if len(moves) > 1 else ""
        term.message(f"{text} → {moves[0]}{then}")
