"""How often the fair-play score holds each kind of attacker, and how often a person.

Run ``python bench/fairplay.py [--deals N] [--accounts A] [--games G] [--seed S] [--json FILE]``.

Offline: no server. Each deal is the ranked Seven by Five daily's preset (``cells=5,
empty_fill=any``: every card face up, the easiest board to script) on seeds 1..N, solved once
with the server's certification budget; its line and par are what the attackers play. Every
simulated account plays ``G`` ranked games in a row (deal ``g mod N``); each game becomes the
:class:`~solrace.shared.fairplay.GameRecord` the server would build from its event stream, and
is scored exactly as the server scores it (:func:`~solrace.shared.fairplay.evidence`,
:func:`~solrace.shared.fairplay.score`, the account's earlier totals as its history). The table
gives, per attacker, the share of accounts held at least once within their first 1, 5 and 20
games, the share of all games held, and the CPU time one screening takes.

The attackers (docs/fairplay.md, "Threat model"):

* ``instant solver bot`` — the issue's script: the solver's line as fast as the server takes it
  (a few ms a move), first move at once.
* ``paced solver bot`` — the same line with a random wait of 0.8–2.5 s before each move.
* ``paced + noisy bot`` — waits drawn like a person's (the synthetic model below) and
  harmless extra moves (10–40 % over par: draws and shuffles a solver never needs).
* ``random-legal bot`` — random legal moves at machine speed (it loses; held anyway).
* ``solver-assisted person`` — a person's waits, the solver's line (moves = par).

The **synthetic human** is a model, not data: think times lognormal (median 2.2 s, σ 0.85 in
log space: quick obvious moves, long pauses), one move in eight a "hard" one with a pause four
times longer, a first move after 4–25 s of reading, 15–70 % more moves than par (detours),
one game in three ended with ``finish`` (the last 10–30 moves in one instant), account ages
from a day to two years. Real play would move every one of these numbers; a false-positive
figure from real players needs their server logs, which this project does not have yet.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from solrace.shared.engine import Game
from solrace.shared.fairplay import GameRecord, History, evidence, score
from solrace.shared.solver import Budget, solve

VARIANT, OPTIONS = "seven-by-five", {"cells": "5", "empty_fill": "any"}
BUDGET = 200_000  # nodes: the daily certification's default (server/daily.py)
MILESTONES = (1, 5, 20)


class Deal:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        result = solve((VARIANT, OPTIONS, seed), Budget(nodes=BUDGET, seconds=None))
        self.won = result.outcome.value == "won"
        self.line = [m.text() for m in result.moves]
        self.par = len(self.line)


def human_gap(rng: random.Random) -> int:
    gap = rng.lognormvariate(math.log(2200), 0.85)
    if rng.random() < 1 / 8:  # a hard move: the player stops to think
        gap *= 4
    return max(250, int(gap))


def times_for(gaps: list[int], first: int, finish_tail: int = 0) -> list[int]:
    """Move times from a first move and the gaps after it; the last ``finish_tail`` moves in
    one instant (``finish``)."""
    out, t = [], first
    for i, g in enumerate(gaps):
        out.append(t)
        if i < len(gaps) - finish_tail:
            t += g
    return out


def random_legal(deal: Deal, rng: random.Random) -> list[str]:
    game = Game(VARIANT, OPTIONS, deal.seed)
    moves = []
    while not game.is_over() and len(moves) < 300:
        legal = list(game.legal_moves())
        if not legal:
            break
        move = rng.choice(legal)
        game.push(move)
        moves.append(move.text())
    return moves


Attacker = Callable[[Deal, random.Random], tuple[int, list[int], str]]


def instant(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    return deal.par, times_for([rng.randint(2, 8) for _ in range(deal.par)], 40), "won"


def paced(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    gaps = [rng.randint(800, 2500) for _ in range(deal.par)]
    return deal.par, times_for(gaps, rng.randint(2000, 5000)), "won"


def noisy(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    n = int(deal.par * rng.uniform(1.10, 1.40))
    return n, times_for([human_gap(rng) for _ in range(n)], rng.randint(4000, 25_000)), "won"


def random_bot(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    n = len(random_legal(deal, rng))
    return n, times_for([rng.randint(2, 8) for _ in range(n)], 40), "lost"


def assisted(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    gaps = [human_gap(rng) for _ in range(deal.par)]
    return deal.par, times_for(gaps, rng.randint(4000, 25_000)), "won"


def human(deal: Deal, rng: random.Random) -> tuple[int, list[int], str]:
    n = int(deal.par * rng.uniform(1.15, 1.70))
    tail = rng.randint(10, 30) if rng.random() < 1 / 3 else 0
    gaps = [human_gap(rng) for _ in range(n)]
    won = rng.random() < 0.8
    return n, times_for(gaps, rng.randint(4000, 25_000), tail if won else 0), \
        "won" if won else "resigned"


ATTACKERS: dict[str, tuple[Attacker, tuple[float, float]]] = {
    # name: (play, account age range in days)
    "instant solver bot": (instant, (0.0, 0.2)),
    "paced solver bot": (paced, (0.0, 30.0)),
    "paced + noisy bot": (noisy, (1.0, 60.0)),
    "random-legal bot": (random_bot, (0.0, 1.0)),
    "solver-assisted person": (assisted, (1.0, 700.0)),
    "synthetic human": (human, (1.0, 700.0)),
}


def play_account(attacker: Attacker, ages: tuple[float, float], deals: list[Deal],
                 games: int, rng: random.Random, cpu: list[float]) -> list[bool]:
    """One account's ranked games: held or not, in order."""
    age = rng.uniform(*ages)
    recent: list[float] = []
    held = []
    for g in range(games):
        deal = deals[g % len(deals)]
        n, times, result = attacker(deal, rng)
        record = GameRecord(variant=VARIANT, options=OPTIONS, seed=deal.seed,
                            moves=tuple(["m"] * n), times_ms=tuple(times), result=result,
                            elapsed_ms=times[-1] if times else 0, par=deal.par, kind="daily")
        t0 = time.process_time()
        result_score = score(evidence(record),
                             History(age + g, g, 0, tuple(recent[-20:])))
        cpu.append(time.process_time() - t0)
        recent.append(result_score.total)
        held.append(result_score.held)
    return held


def run(deals: list[Deal], accounts: int, games: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for name, (attacker, ages) in ATTACKERS.items():
        rng = random.Random(f"{seed}:{name}")
        cpu: list[float] = []
        results = [play_account(attacker, ages, deals, games, rng, cpu)
                   for _ in range(accounts)]
        row: dict[str, Any] = {"attacker": name}
        for k in MILESTONES:
            if k <= games:
                row[f"held_within_{k}"] = sum(any(r[:k]) for r in results) / accounts
        row["games_held"] = sum(sum(r) for r in results) / (accounts * games)
        row["cpu_ms"] = 1000 * statistics.fmean(cpu)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], games: int) -> str:
    ks = [k for k in MILESTONES if k <= games]
    head = ("| attacker | " + " | ".join(f"held within {k}" for k in ks)
            + " | games held | CPU ms / screening |")
    lines = [head, "|" + "---|" * (len(ks) + 3)]
    for r in rows:
        cells = [f"{100 * r[f'held_within_{k}']:.1f} %" for k in ks]
        lines.append(f"| {r['attacker']} | " + " | ".join(cells)
                     + f" | {100 * r['games_held']:.2f} % | {r['cpu_ms']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=6, help="Seven by Five seeds 1..N (won ones)")
    ap.add_argument("--accounts", type=int, default=100, help="accounts per attacker")
    ap.add_argument("--games", type=int, default=20, help="ranked games per account")
    ap.add_argument("--seed", type=int, default=1, help="the simulation's random seed")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    deals = [d for d in (Deal(s) for s in range(1, args.deals + 1)) if d.won]
    if not deals:
        print("no won deal among the seeds", file=sys.stderr)
        return 1
    print(f"deals: {VARIANT} {OPTIONS} seeds 1..{args.deals}, {len(deals)} won, "
          f"par {min(d.par for d in deals)}..{max(d.par for d in deals)} "
          f"(solved in {time.perf_counter() - t0:.1f} s)")
    print(f"{args.accounts} accounts x {args.games} ranked games per attacker, seed "
          f"{args.seed}\n")
    rows = run(deals, args.accounts, args.games, args.seed)
    print(table(rows, args.games))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
