"""Dailies in three difficulties: which board a (variant, difficulty) daily lives on, the
rating search run in a worker, and the players' results that refine a rating.

Why boards: a day's first certified deal of a variant — the daily as it always was, reached
without a difficulty — keeps its keys (``sr:daily:{<date>|<variant>}``…); it is the daily of
its own difficulty. The two other difficulties live on boards named ``<variant>:<difficulty>``
with the same keys otherwise (record, lock, attempts, leaderboard), so every store method of
the dailies serves them unchanged. The difficulty of the deal is measured once, in a worker
process, and stored in its record (docs/leaderboards.md, "Dailies by difficulty").
"""

from __future__ import annotations

from typing import Any

from solrace.server.store import Store
from solrace.shared.learning import difficulty as L

#: The text prefix of a winner's leaderboard key (daily.rank_key): winners sort first.
LOSERS_FROM = "1"


def board(variant: str, difficulty: str | None, plain: dict[str, str] | None) -> str:
    """The board of the ``difficulty`` daily of ``variant``: the variant's own board when no
    difficulty is asked or when the day's first certified deal (``plain``) has that
    difficulty; ``<variant>:<difficulty>`` otherwise."""
    if difficulty is None or (plain is not None and plain.get("difficulty") == difficulty):
        return variant
    return f"{variant}:{difficulty}"


def every_board(variant: str) -> list[str]:
    """Every board a variant's dailies of one day may use (for bans and their undoing)."""
    return [variant, *(f"{variant}:{d}" for d in L.DIFFICULTIES)]


def rate_one(variant: str, options: dict[str, str], seed: int) -> tuple[str, int, int | None]:
    """(difficulty, effort nodes, effort par) of a deal, by effort alone (in a worker)."""
    effort = L.measure(variant, options, seed)
    return L.band(variant, effort).value, effort.nodes, effort.par


def rating_fields(rated: tuple[str, int, int | None]) -> dict[str, str]:
    """The record fields that keep a deal's rating (stored with the daily)."""
    level, nodes, par = rated
    return {"difficulty": level, "effort": str(nodes),
            "effort_par": "" if par is None else str(par)}


def effort_of(record: dict[str, str]) -> L.Effort:
    par = record.get("effort_par") or ""
    return L.Effort(int(record.get("effort") or L.RATING_NODES), int(par) if par else None)


async def results(store: Store, day: str, name: str) -> L.Results:
    """The listed ranked results of a daily board: attempts, wins, median winning time."""
    attempts = await store.leaderboard_size(day, name)
    wins = await store.listed_before(day, name, LOSERS_FROM) if attempts else 0
    median = None
    if wins:
        rows = await store.leaderboard_range(day, name, (wins - 1) // 2, (wins - 1) // 2)
        median = int(rows[0]["time"]) if rows else None
    return L.Results(attempts, wins, median)


async def rating(store: Store, day: str, name: str, variant: str,
                 record: dict[str, str]) -> dict[str, Any]:
    """The ``rating`` of a daily reply: the effort, and once :data:`L.MIN_PLAYERS` ranked
    attempts are listed, the players' figures and the blended difficulty."""
    effort = effort_of(record)
    got = await results(store, day, name)
    players = L.player_score(got, int(record["par"]) if record.get("par") else effort.par)
    out: dict[str, Any] = {
        "effort": effort.nodes, "solver": L.band(variant, effort).value,
        "score": round(L.solver_score(variant, effort), 3), "attempts": got.attempts,
        "players": None, "now": L.band(variant, effort).value,
    }
    if players is not None:
        blended = L.blend(L.solver_score(variant, effort), players, got.attempts)
        out.update(players={"win_rate": round(got.wins / got.attempts, 3),
                            "median_time": got.median_ms, "score": round(players, 3)},
                   score=round(blended, 3), now=L.of_score(blended).value)
    return out
