"""The arenas' and events' rules as the server stores them: a tournament's state at a time,
a stored deal result as the scoring sees it, and an entrant's totals with their rank key (the
pure scoring is :mod:`solrace.shared.tournaments.arena` and ``.event``; the store's standings
sort by the keys made here, :mod:`solrace.server.store.tournament_lua`). Kept apart from the
services so that the trophies, knockouts and tests read the same rules without them.
"""

from __future__ import annotations

import secrets
from typing import Any

from solrace.server.store.tournaments import Totals
from solrace.shared.tournaments import arena as scoring
from solrace.shared.tournaments import event, machine

KIND = "arena"
BANNED_LAST = 10**13 - 1  # the largest tiebreak the standings' 13 digits hold: ranked last
HOME_MAX = 999_999  # an event's tiebreak is HOME_MAX − cards home: more cards first
EVENT_WON_WEIGHT = 2**40  # an event's score: −won × this + total time (ms), exact in a double
EVENT_GRACE_MS = 5_000  # after an event's end, for its last deals' ends to be recorded
TOP = 10  # rows of the top of the standings every entrant sees
AROUND = 2  # rows either side of the entrant's own
MIN_DEAL_S, MAX_DEAL_S = 30, 1800
MAX_LEAD_MS = 7 * 24 * 3600 * 1000  # a tournament starts within a week of its creation
F, S = machine.Format, machine.TournamentState


def new_id() -> str:
    return secrets.token_hex(8)


def state_at(meta: dict[str, str], now: int) -> machine.TournamentState:
    """The tournament's state at ``now``: open before its start; then running — an arena
    until every deal started before its end has run out of time, an event until its end (its
    deals end with it), a knockout until its final is decided — then finished (a knockout
    with too few entrants: cancelled), and final once its podium is cleared
    (server/game/trophies.py)."""
    if meta.get("final") == "1":
        return S.FINAL
    if meta["format"] == F.KNOCKOUT:  # its bracket says (server/game/knockout.py)
        state = S(meta.get("ko_state", S.OPEN.value))
        return S.RUNNING if state is S.OPEN and now >= int(meta["starts_at"]) else state
    if now < int(meta["starts_at"]):
        return S.OPEN
    tail = int(meta["deal_ms"]) if meta["format"] == F.ARENA else EVENT_GRACE_MS
    if now < int(meta["ends_at"]) + tail:
        return S.RUNNING
    return S.FINISHED


def deal_result(stored: dict[str, Any]) -> scoring.DealResult:
    """A stored result as the scoring sees it: a held deal counts as nothing (no points, no
    win) until a moderator clears it, and so does every deal of a banned entrant."""
    held = stored.get("review", "clear") != "clear" or bool(stored.get("banned"))
    won = bool(stored["won"]) and not held
    return scoring.DealResult(
        int(stored["k"]), won, int(stored["elapsed"]), int(stored["limit"]),
        int(stored["dealt_home"]) if held else int(stored["best_home"]),
        int(stored["dealt_home"]), int(stored["total"]), bool(stored["berserk"]),
        bool(stored["resigned"]), int(stored["ended_at"]))


def totals(stored: list[dict[str, Any]], meta: dict[str, str] | None = None) -> Totals:
    """An entrant's totals and rank key from their results in order, by the tournament's
    format (``meta``; none: an arena)."""
    results = [deal_result(r) for r in stored]
    banned = any(r.get("banned") for r in stored)
    if meta is not None and meta["format"] == F.EVENT:
        deals, limit = int(meta["deals"]), int(meta["deal_ms"])
        counted = results[:deals]
        won = sum(1 for r in counted if r.won)
        time_ms = event.total_time(counted, deals, limit)
        home = sum(r.best_home - r.dealt_home for r in counted)
        tiebreak = BANNED_LAST if banned else HOME_MAX - home
        return Totals(won, won, len(results), False, tiebreak, time_ms,
                      -won * EVENT_WON_WEIGHT + time_ms)
    points = scoring.deal_points(results)
    reached = max((r.ended_at for r, p in zip(results, points) if p > 0), default=0)
    if banned:
        reached = BANNED_LAST  # after every entrant with as many points (none)
    won = sum(1 for r in results if r.won)
    return Totals(sum(points), won, len(results), scoring.on_fire(results), reached, 0,
                  -(sum(points) * 4096 + won))
