"""The move that lost it: where a player's own line left the last position a win existed from.

Why: after a lost game a player is told the deal was winnable and left to wonder where they
went wrong. Along a line, "a win exists from here" is monotone: once a position is lost, every
position after it is lost too (a win from a later position would be a win from the earlier one).
So the positions p0 … pn of the line (pi is the position before move i) are winnable up to some
k and lost after it, and the move that lost it is move k. A bisection finds k with about log2(n)
solver calls instead of n.

Each probe is a solver call within a node budget (deterministic: the same line and budget always
give the same answer). A probe is only believed when it is proven: "won from here" needs a line
that replays to a win through ``Game.push`` (checked here again), "lost from here" needs the
solver's ``lost`` answer (a proof: every reachable position was searched). An ``unknown`` probe
is *undecided*; the bisection then tries the other positions between the proven bounds, nearest
to the middle first, and when none of them decides, the answer is ``undecided`` with the range
[last proven winnable, first proven lost] — never a guessed move.

The solver sees every card (docs/solver.md): for variants with face-down cards or a stock the
claim is "a win existed from here for the cards as they lay", not that the player could have
found it from what they saw; the ``claim`` text says so.

For a won game: ``over_par`` is the line's length minus the solver's par from the deal, and the
*longest detour* is the longest stretch of the line that comes back to a position already had
(from the first time the position was reached to the last time it came back); its start is the
ply where the player began going round in a circle.

Pure and synchronous; seconds of CPU for a long line: run it in a worker process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from solrace.shared.engine import Game, Status
from solrace.shared.solver import Budget, Outcome, solve

#: Node budget of one probe (the verdict's) and the most probes one analysis makes: a bisection
#: of a 200-move line needs 8-9 probes; the rest are for undecided probes. bench/lostmove.py:
#: 50k names the losing move on 75 % of the bots' lost lines against 54 % at 20k, at about the
#: same median CPU (about 0.2-0.4 s; at most about 7 s of one core).
NODES = 50_000
MAX_PROBES = 16

CLAIM_OPEN = "a win existed from here"
CLAIM_HIDDEN = "a win existed from here for the cards as they lay (the solver sees hidden cards)"

Probe = Callable[[Game], "tuple[str, list[str]]"]


def has_hidden_cards(game: Game) -> bool:
    """Whether the variant deals face-down cards or a stock (the player does not see them)."""
    r = game.rules
    return r.draw > 0 or any(down > 0 for down, _up in r.tableau.deal)


def solver_probe(nodes: int = NODES) -> Probe:
    """A probe that answers ``("won", line)``, ``("lost", [])`` or ``("undecided", [])`` for a
    position, believing only proofs: a won line is replayed through ``Game.push``."""

    def probe(game: Game) -> tuple[str, list[str]]:
        result = solve(game, Budget(nodes=nodes, seconds=None))
        if result.outcome is Outcome.WON:
            check = game.copy()
            texts = [m.text() for m in result.moves]
            for text in texts:
                check.push(text)
            if check.status is Status.WON:
                return "won", texts
            return "undecided", []
        if result.outcome is Outcome.LOST:
            return "lost", []
        return "undecided", []

    probe.nodes = nodes  # type: ignore[attr-defined]
    return probe


def positions(variant: str, options: Mapping[str, str] | None, seed: int,
              moves: Sequence[str]) -> list[Game]:
    """The games at p0 … pn along the line (pi before move i; pn after the last move)."""
    game = Game(variant, options, seed)
    out = [game.copy()]
    for text in moves:
        game.push(text)
        out.append(game.copy())
    return out


def _detour(games: Sequence[Game]) -> dict[str, int] | None:
    """The longest stretch from a position's first occurrence to its last return, or None."""
    first: dict[str, int] = {}
    best: tuple[int, int] | None = None
    for i, g in enumerate(games):
        key = g.position_text()
        start = first.setdefault(key, i)
        if i > start and (best is None or i - start > best[1] - best[0]):
            best = (start, i)
    if best is None:
        return None
    return {"from": best[0], "to": best[1], "moves": best[1] - best[0]}


def _won_report(games: Sequence[Game], moves: Sequence[str],
                answer: tuple[str, list[str]]) -> dict[str, Any]:
    verdict, line = answer
    par = len(line) if verdict == "won" else None
    return {"result": "won", "moves": len(moves), "par": par,
            "over_par": len(moves) - par if par is not None else None,
            "detour": _detour(games)}


def find_losing_move(variant: str, options: Mapping[str, str] | None, seed: int,
                     moves: Sequence[str], *, probe: Probe | None = None,
                     max_probes: int = MAX_PROBES) -> dict[str, Any]:
    """Analyse one player's line (see the module docstring). ``result`` is one of:

    * ``found`` — ``ply`` (index of the losing move in ``moves``), ``move``, ``continuation``
      (a winning line from the position before it) and ``claim``;
    * ``winnable_at_end`` — the last position of the line was still winnable (the player
      resigned or ran out of time there): ``continuation`` from it, ``ply`` = len(moves);
    * ``lost_from_start`` — the deal itself was proven lost: no move lost it;
    * ``undecided`` — no answer within the budget: ``between`` = [a, b], the proven bounds
      (``None`` where a bound is unproven); nothing is claimed about any move;
    * ``won`` — the game was won: ``par``, ``over_par``, ``detour`` (or None).

    Every result carries ``probes`` (solver calls made), ``nodes`` and ``cpu_ms``.
    """
    started = time.process_time()
    probe = probe or solver_probe()
    games = positions(variant, options, seed, moves)
    calls: dict[int, tuple[str, list[str]]] = {}

    def ask(i: int) -> str:
        if i not in calls:
            calls[i] = probe(games[i].copy())
        return calls[i][0]

    def done(out: dict[str, Any]) -> dict[str, Any]:
        out.update(probes=len(calls), nodes=getattr(probe, "nodes", NODES),
                   cpu_ms=round((time.process_time() - started) * 1000))
        return out

    if games[-1].status is Status.WON:
        calls[0] = probe(games[0].copy())
        return done(_won_report(games, moves, calls[0]))
    n = len(moves)
    claim = CLAIM_HIDDEN if has_hidden_cards(games[0]) else CLAIM_OPEN
    if ask(n) == "won":
        return done({"result": "winnable_at_end", "ply": n, "move": None,
                     "continuation": calls[n][1], "claim": claim})
    end_state = calls[n][0]
    if ask(0) == "lost":
        return done({"result": "lost_from_start", "ply": None, "move": None,
                     "continuation": [], "claim": "no win existed from the deal"})
    lo = 0 if calls[0][0] == "won" else None
    hi = n if end_state == "lost" else None
    if lo is None or hi is None:
        return done({"result": "undecided", "between": [lo, hi], "ply": None, "move": None,
                     "continuation": [], "claim": None})
    while hi - lo > 1:
        mid = (lo + hi) // 2
        open_ = sorted((i for i in range(lo + 1, hi) if i not in calls),
                       key=lambda i: (abs(i - mid), i))
        if not open_ or len(calls) >= max_probes:
            return done({"result": "undecided", "between": [lo, hi], "ply": None,
                         "move": None, "continuation": [], "claim": None})
        i = open_[0]
        answer = ask(i)
        if answer == "won":
            lo = i
        elif answer == "lost":
            hi = i
    return done({"result": "found", "ply": lo, "move": moves[lo],
                 "continuation": calls[lo][1], "claim": claim})


__all__ = ["CLAIM_HIDDEN", "CLAIM_OPEN", "MAX_PROBES", "NODES", "find_losing_move",
           "has_hidden_cards", "positions", "solver_probe"]
