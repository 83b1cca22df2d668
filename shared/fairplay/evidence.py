"""The evidence one ranked game leaves: what the server's clock saw of the player's moves.

Why from the server's clock only: a client can lie about when it moved, not about when the
server applied it. Every move of a race is applied by a script that stamps it with the Redis
time (the race's event stream keeps each progress event's ``elapsed``), so the evidence is
read *after* the game from what the move path writes anyway: gathering it costs the move path
nothing, and a bot learns nothing from the game itself (no move is ever refused for being
fast — docs/fairplay.md, "Probing").

Moves applied in the same millisecond came from one request (a batch, ``auto``, ``finish`` or
a pointing move that the server expanded): they form one *action*. Think times are measured
between actions, so a person who lets the server play the safe cards home is not taken for a
machine because of the moves the server made for them.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field
from typing import Any

from solrace.shared.engine import Game
from solrace.shared.views import view_of, visible_cards


@dataclass(frozen=True)
class GameRecord:
    """One player's ranked game as the server stored it."""

    variant: str
    options: dict[str, str]
    seed: int
    moves: tuple[str, ...]  # the player's move log, in order
    times_ms: tuple[int, ...]  # per move: server ms since the game's start when applied
    result: str  # "won" | "lost" | "resigned" | "timeout" | ""
    elapsed_ms: int
    par: int | None  # the deal's certified (or solved) par when known
    kind: str  # "daily" | "race"


@dataclass(frozen=True)
class History:
    """What the account's past says (read by the server, judged here)."""

    account_age_days: float
    ranked_games: int  # ranked games screened before this one (the server counts up to 20)
    open_reports: int = 0  # distinct reporters with an open report on the player
    recent_scores: tuple[float, ...] = field(default=())  # earlier games' totals, newest last
    # rated races against the one opponent met most often in the last RACES_KEPT (this one
    # included), and the share of them that the same side of the pair won (see pair_record)
    pair_games: int = 0
    pair_share: float = 0.0


#: Rated races of a player kept for :func:`pair_record` (newest last).
RACES_KEPT = 20


def pair_record(races: list[dict[str, Any]], me: str) -> tuple[int, float]:
    """Win trading shows as one pair of accounts meeting again and again with one side
    always winning. ``races`` are the player's last rated races, each ``{"ranks": {player:
    rank}}``; returns, for the opponent met most often (ties: the more lopsided), how many of
    those races the two played and the share won by whichever of the two won more."""
    met: dict[str, list[int]] = {}
    for race in races[-RACES_KEPT:]:
        ranks = race.get("ranks") or {}
        if me not in ranks:
            continue
        for other, rank in ranks.items():
            if other != me and rank != ranks[me]:
                met.setdefault(other, []).append(1 if ranks[me] < rank else 0)
    best = (0, 0.0)
    for wins in met.values():
        share = max(sum(wins), len(wins) - sum(wins)) / len(wins)
        best = max(best, (len(wins), share))
    return best[0], round(best[1], 4)


def actions(times_ms: tuple[int, ...] | list[int]) -> list[tuple[int, int]]:
    """The game's actions as ``(ms since the start, moves applied at that instant)``."""
    out: list[tuple[int, int]] = []
    for t in times_ms:
        if out and out[-1][0] == t:
            out[-1] = (t, out[-1][1] + 1)
        else:
            out.append((t, 1))
    return out


def face_up_at_start(variant: str, options: dict[str, str], seed: int) -> int:
    """How many cards the first screen shows: what a person must read before moving."""
    return len(visible_cards(view_of(Game(variant, options, seed)).wire()))


def _quantile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    i = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return float(ordered[i])


def evidence(game: GameRecord) -> dict[str, Any]:
    """The timing evidence of one game (pure, milliseconds of work).

    ``think_ms`` are the gaps between consecutive actions (the first one is the time to the
    first action, kept apart as ``first_ms``); the statistics describe the distribution, not
    only its middle: a machine pacing itself with random waits still shows a narrow spread.
    """
    if len(game.moves) != len(game.times_ms):
        raise ValueError("one time per move")
    acts = actions(game.times_ms)
    first_ms = acts[0][0] if acts else None
    think = [b[0] - a[0] for a, b in itertools.pairwise(acts)]
    mean = statistics.fmean(think) if think else 0.0
    cv = statistics.pstdev(think) / mean if len(think) >= 2 and mean > 0 else None
    sizes = [n for _, n in acts]
    won = game.result == "won"
    return {
        "moves": len(game.moves),
        "actions": len(acts),
        "batch_max": max(sizes, default=0),
        "batched_actions": sum(1 for n in sizes if n > 1),
        "first_ms": first_ms,
        "face_up_at_start": face_up_at_start(game.variant, game.options, game.seed),
        "think_ms": think,
        "think_median_ms": _quantile(think, 0.5) if think else None,
        "think_p10_ms": _quantile(think, 0.1) if think else None,
        "think_p90_ms": _quantile(think, 0.9) if think else None,
        "think_cv": round(cv, 4) if cv is not None else None,
        "won": won,
        "elapsed_ms": game.elapsed_ms,
        "par": game.par,
        "over_par": len(game.moves) - game.par if won and game.par is not None else None,
        "kind": game.kind,
        "variant": game.variant,
    }


__all__ = ["RACES_KEPT", "GameRecord", "History", "actions", "evidence", "face_up_at_start",
           "pair_record"]
