"""Which open game ``solrace play`` picks up: never a silent guess among several.

A session can have several unfinished games at once (a race left with Ctrl-C, a ranked daily,
a practice race…); ``welcome.races`` lists them. :func:`choose` decides, in this order:

1. ``--race ID``: that game (it must be one of the session's open games);
2. ``--new``: none — the command line's new race;
3. no open game: none;
4. one open game and a command line that asks for no particular new race (no ``--invite``,
   ``--quick`` or VARIANT): that game;
5. otherwise (several games, or one and a new race asked for): on a terminal, a numbered menu
   with the new race as the last choice; elsewhere an error listing the games and how to
   choose (``--race ID`` or ``--new``), so a script never resumes the wrong game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from solrace.client.tui import clock

KIND_WORDS = {"race": "race", "daily": "ranked daily", "practice": "practice"}


def open_games(welcome: dict[str, Any], *, lobbies: bool = True) -> list[dict[str, Any]]:
    """The session's games that can be resumed, running ones first (lobbies only when
    ``lobbies``: joining another race by code leaves a lobby alone)."""
    states = ("running", "countdown") + (("lobby",) if lobbies else ())
    races = [r for r in welcome.get("races") or [] if r.get("state") in states]
    return sorted(races, key=lambda r: states.index(r["state"]))


def describe(race: dict[str, Any], now_ms: int | None = None) -> str:
    """``race 1f2e… · unlimited · running · 7:12 left · 2 racers`` — enough to tell apart."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    kind = KIND_WORDS.get(str(race.get("kind")), str(race.get("kind", "race")))
    parts = [f"{kind} {race['race']}", str(race.get("variant", "?")), str(race["state"])]
    if race.get("ends_at") and race["state"] == "running":
        parts.append(f"{clock(int(race['ends_at']) - now_ms)} left")
    racers = race.get("racers") or []
    parts.append(f"{len(racers)} racer" + ("s" if len(racers) != 1 else ""))
    if race.get("code") and race.get("kind") == "race":
        parts.append(f"code {race['code']}")
    return " · ".join(parts)


class Choice(Exception):
    """The player must choose: the message says how (the CLI prints it, status 1)."""


def choose(games: Sequence[dict[str, Any]], *, race: str | None, new: bool, asked_new: bool,
           ask: Callable[[str], str] | None, new_label: str,
           now_ms: int | None = None) -> dict[str, Any] | None:
    """The game to resume, or None for the new race (see the module docstring). ``ask``
    prompts the player and returns the typed line (None: not a terminal)."""
    if race is not None:
        for g in games:
            if g["race"] == race:
                return dict(g)
        known = ", ".join(g["race"] for g in games) or "none"
        raise Choice(f"race {race} is not one of your open games (open: {known})")
    if new or not games:
        return None
    if len(games) == 1 and not asked_new:
        return dict(games[0])
    lines = [f"  {i}. resume {describe(g, now_ms)}" for i, g in enumerate(games, 1)]
    lines.append(f"  {len(games) + 1}. {new_label}")
    if ask is None:
        raise Choice("you have open games; choose one with --race ID, or --new for "
                     f"{new_label}:\n" + "\n".join(
                         f"  solrace play --race {g['race']}   # {describe(g, now_ms)}"
                         for g in games))
    prompt = "you have open games:\n" + "\n".join(lines) + f"\nchoose 1-{len(games) + 1}: "
    while True:
        text = ask(prompt).strip()
        if text.isdigit() and 1 <= int(text) <= len(games) + 1:
            n = int(text)
            return dict(games[n - 1]) if n <= len(games) else None
        prompt = f"type a number from 1 to {len(games) + 1}: "
