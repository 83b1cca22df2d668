"""How often the fair-play score holds each kind of attacker, and how often a person.

Run ``python bench/fairplay.py [--deals N] [--accounts A] [--games G] [--lines L] [--seed S]
[--json FILE]``.

Offline: no server. Each deal is the ranked Seven by Five daily's preset (``cells=5,
empty_fill=any``: every card face up, the easiest board to script) on seeds 1..N, solved once
with the server's certification budget; its line and par are what the solver bots play. Every
simulated account plays ``G`` ranked games in a row (deal ``g mod N``); each game becomes the
:class:`~solrace.shared.fairplay.GameRecord` the server would build from its event stream, its
won lines get the worker pool's :func:`~solrace.shared.fairplay.analysis.analyse`, and it is
scored exactly as the server scores it (the account's earlier totals as its history). Lines
that differ per game (the noisy bot's, the humans') are drawn from ``L`` lines made per deal
and attacker, each analysed once; their times are drawn per game. The table gives, per
attacker, the share of accounts held at least once within their first 1, 5 and 20 games, the
share of all games held, the CPU time of one screening (timing) and of one solver analysis.

The attackers (docs/fairplay.md, "Threat model"):

* ``instant solver bot`` — the issue's script: the solver's line as fast as the server takes it
  (a few ms a move), first move at once.
* ``paced solver bot`` — the same line with a random wait of 0.8–2.5 s before each move.
* ``paced + noisy bot`` — waits drawn like a person's (the synthetic model below) and the
  solver's line padded with harmless extra moves (10–40 % over par: a card to a free cell and
  straight back).
* ``random-legal bot`` — random legal moves at machine speed (it loses; held anyway).
* ``solver-assisted person`` — a person's waits, the solver's line (moves = par).
* ``win-trading pair`` — two accounts meeting in rated races: one wins with a person's play,
  the other resigns after 2–8 moves. Held means the race's rating changes were held.

And two kinds of honest players, for the false-positive figures:

* ``synthetic human`` — a model, not data. Times: think times lognormal (median 2.2 s, σ 0.85
  in log space: quick obvious moves, long pauses), one move in eight a "hard" one with a pause
  four times longer, a first move after 4–25 s of reading, one won game in three ended with
  ``finish`` (the last 10–30 moves in one instant), account ages from a day to two years.
  Moves: a player who plans a little ahead (the strong practice bot's re-planning with a
  1,500-node search) and takes a plausible move of their own one move in eight (any move
  between tableau, cells and reserve); many of their games are lost.
* ``honest rivals`` — two people who race each other every time; one wins 85 % of the races,
  the other plays on to the end (a person's game either way).

Real play would move every one of these numbers; a false-positive figure from real players
needs their server logs, which this project does not have yet.
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
from typing import Any, ClassVar

from solrace.shared.engine import Game, Status
from solrace.shared.fairplay import GameRecord, History, evidence, pair_record, score
from solrace.shared.fairplay.analysis import analyse
from solrace.shared.solver import Budget, solve
from solrace.shared.solver.bots import Bot

VARIANT, OPTIONS = "seven-by-five", {"cells": "5", "empty_fill": "any"}
BUDGET = 200_000  # nodes: the daily certification's default (server/game/daily.py)
MILESTONES = (1, 5, 20)


class Deal:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        result = solve((VARIANT, OPTIONS, seed), Budget(nodes=BUDGET, seconds=None))
        self.won = result.outcome.value == "won"
        self.line = [m.text() for m in result.moves]
        self.par = len(self.line)
        self.pools: dict[str, list[Line]] = {}  # attacker -> its lines on this deal


class Line:
    """One line played on a deal, with its result and (when won) the solver's analysis."""

    _cache: ClassVar[dict[tuple[int, tuple[str, ...]], dict[str, Any]]] = {}
    cpu: ClassVar[list[float]] = []  # per analysed game of the current attacker: its CPU s

    def __init__(self, deal: Deal, moves: list[str], result: str) -> None:
        self.moves, self.result = moves, result
        self.analysis = None
        if result == "won":
            key = (deal.seed, tuple(moves))
            if key not in Line._cache:
                Line._cache[key] = analyse(VARIANT, OPTIONS, deal.seed, moves)
            self.analysis = Line._cache[key]


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


def padded(deal: Deal, rng: random.Random) -> list[str]:
    """The solver's line with out-and-back shuffles (a tableau card to a free cell and back)
    inserted at random places until it is 10–40 % over par."""
    target = int(deal.par * rng.uniform(1.10, 1.40))
    line = list(deal.line)
    for _ in range(10 * deal.par):
        if len(line) >= target:
            break
        at = rng.randrange(len(line))
        game = Game(VARIANT, OPTIONS, deal.seed)
        game.replay(line[:at])
        cells = [game.layout.ids[c] for c in game.layout.cells if not game.pos.piles[c]]
        tops = [game.layout.ids[t] for t in game.layout.tableau if len(game.pos.piles[t]) > 1]
        if not cells or not tops:
            continue
        src, cell = rng.choice(tops), cells[0]
        trial = [*line[:at], f"{src}{cell}", f"{cell}{src}", *line[at:]]
        try:
            check = Game(VARIANT, OPTIONS, deal.seed)
            check.replay(trial)
        except Exception:
            continue
        if check.status is Status.WON:
            line = trial
    return line


def human_line(deal: Deal, rng: random.Random) -> tuple[list[str], str]:
    """The synthetic human's moves (see the module's docstring): won or lost."""
    game = Game(VARIANT, OPTIONS, deal.seed)
    bot = Bot("strong", seed=rng.randrange(1 << 30), budget=Budget(nodes=1_500, seconds=None))
    free = set(game.layout.foundations) | {game.layout.stock, game.layout.waste}
    moves: list[str] = []
    while game.status is Status.PLAYING and len(moves) < 600:
        move = None
        if rng.random() < 1 / 8:
            own = [t for t in game.legal_triples() if t[0] not in free and t[1] not in free]
            if own:
                move = bot._move(game, rng.choice(own))
        move = move or bot.choose(game)
        if move is None:
            break
        moves.append(game.push(move).text())
    return moves, "won" if game.status is Status.WON else "resigned"


def pooled(deal: Deal, name: str, make: Callable[[], Line], lines: int,
           rng: random.Random) -> Line:
    """One of ``lines`` lines made once per deal for an attacker whose lines vary."""
    pool = deal.pools.setdefault(name, [])
    if len(pool) < lines:
        pool.append(make())
        return pool[-1]
    return rng.choice(pool)


Attacker = Callable[[Deal, random.Random, int], tuple[Line, list[int]]]


def instant(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = pooled(deal, "solver", lambda: Line(deal, deal.line, "won"), 1, rng)
    return line, times_for([rng.randint(2, 8) for _ in range(deal.par)], 40)


def paced(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = pooled(deal, "solver", lambda: Line(deal, deal.line, "won"), 1, rng)
    gaps = [rng.randint(800, 2500) for _ in range(deal.par)]
    return line, times_for(gaps, rng.randint(2000, 5000))


def noisy(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = pooled(deal, "noisy", lambda: Line(deal, padded(deal, rng), "won"), lines, rng)
    n = len(line.moves)
    return line, times_for([human_gap(rng) for _ in range(n)], rng.randint(4000, 25_000))


def random_bot(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = Line(deal, random_legal(deal, rng), "lost")
    n = len(line.moves)
    return line, times_for([rng.randint(2, 8) for _ in range(n)], 40)


def assisted(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = pooled(deal, "solver", lambda: Line(deal, deal.line, "won"), 1, rng)
    gaps = [human_gap(rng) for _ in range(deal.par)]
    return line, times_for(gaps, rng.randint(4000, 25_000))


def human(deal: Deal, rng: random.Random, lines: int) -> tuple[Line, list[int]]:
    line = pooled(deal, "human", lambda: Line(deal, *human_line(deal, rng)), lines, rng)
    n = len(line.moves)
    tail = rng.randint(10, 30) if line.result == "won" and rng.random() < 1 / 3 else 0
    gaps = [human_gap(rng) for _ in range(n)]
    return line, times_for(gaps, rng.randint(4000, 25_000), tail)


ATTACKERS: dict[str, tuple[Attacker, tuple[float, float]]] = {
    # name: (play, account age range in days)
    "instant solver bot": (instant, (0.0, 0.2)),
    "paced solver bot": (paced, (0.0, 30.0)),
    "paced + noisy bot": (noisy, (1.0, 60.0)),
    "random-legal bot": (random_bot, (0.0, 1.0)),
    "solver-assisted person": (assisted, (1.0, 700.0)),
    "synthetic human": (human, (1.0, 700.0)),
}


def record_of(deal: Deal, line: Line, times: list[int], kind: str) -> GameRecord:
    return GameRecord(variant=VARIANT, options=OPTIONS, seed=deal.seed,
                      moves=tuple(line.moves), times_ms=tuple(times), result=line.result,
                      elapsed_ms=times[-1] if times else 0, par=deal.par, kind=kind)


def play_account(attacker: Attacker, ages: tuple[float, float], deals: list[Deal],
                 games: int, lines: int, rng: random.Random, cpu: list[float]) -> list[bool]:
    """One account's ranked games: held or not, in order."""
    age = rng.uniform(*ages)
    recent: list[float] = []
    held = []
    for g in range(games):
        deal = deals[g % len(deals)]
        line, times = attacker(deal, rng, lines)
        record = record_of(deal, line, times, "daily")
        t0 = time.process_time()
        result_score = score(evidence(record), History(age + g, g, 0, tuple(recent[-20:])),
                             line.analysis)
        cpu.append(time.process_time() - t0)
        if line.analysis is not None:  # what the worker pool spent on this game
            Line.cpu.append(line.analysis["cpu_ms"] / 1000)
        recent.append(result_score.game_total)
        held.append(result_score.held)
    return held


def play_pair(deals: list[Deal], races: int, lines: int, rng: random.Random,
              cpu: list[float], *, trading: bool) -> list[bool]:
    """Two accounts' rated races against each other: whether each race's rating changes were
    held (either racer's result held). Trading: the loser resigns after 2–8 moves; honest
    rivals: the stronger wins 85 % of the races and the loser plays a whole game."""
    ages = (rng.uniform(1, 700), rng.uniform(1, 700))
    recent: tuple[list[float], list[float]] = ([], [])
    log: list[dict[str, Any]] = []
    held = []
    for g in range(races):
        deal = deals[g % len(deals)]
        winner = 0 if trading or rng.random() < 0.85 else 1
        log.append({"ranks": {"a": 1 + (winner != 0), "b": 1 + (winner != 1)}})
        race_held = False
        for who, name in enumerate(("a", "b")):
            line, times = human(deal, rng, lines)
            if who == winner and line.result != "won":  # the winner's game is a won one
                line = next((x for x in deal.pools["human"] if x.result == "won"), line)
                times = times_for([human_gap(rng) for _ in line.moves], rng.randint(4000, 9000))
            if who != winner:
                if trading:
                    line = Line(deal, line.moves[:rng.randint(2, 8)], "resigned")
                    times = times[:len(line.moves)]
                elif line.result == "won":  # the loser finished second: still a whole game
                    line = Line(deal, line.moves, "lost")
            games, share = pair_record(log, name)
            t0 = time.process_time()
            result_score = score(evidence(record_of(deal, line, times, "race")),
                                 History(ages[who] + g, g, 0, tuple(recent[who][-20:]),
                                         pair_games=games, pair_share=share), line.analysis)
            cpu.append(time.process_time() - t0)
            if line.analysis is not None:
                Line.cpu.append(line.analysis["cpu_ms"] / 1000)
            recent[who].append(result_score.game_total)
            race_held = race_held or result_score.held
        held.append(race_held)
    return held


PAIRS = {"win-trading pair": True, "honest rivals": False}


def run(deals: list[Deal], accounts: int, games: int, lines: int, seed: int
        ) -> list[dict[str, Any]]:
    rows = []
    for name in [*ATTACKERS, *PAIRS]:
        rng = random.Random(f"{seed}:{name}")
        cpu: list[float] = []
        Line.cpu = []
        if name in PAIRS:
            results = [play_pair(deals, games, lines, rng, cpu, trading=PAIRS[name])
                       for _ in range(accounts)]
        else:
            attacker, ages = ATTACKERS[name]
            results = [play_account(attacker, ages, deals, games, lines, rng, cpu)
                       for _ in range(accounts)]
        row: dict[str, Any] = {"attacker": name}
        for k in MILESTONES:
            if k <= games:
                row[f"held_within_{k}"] = sum(any(r[:k]) for r in results) / accounts
        row["games_held"] = sum(sum(r) for r in results) / (accounts * games)
        row["cpu_ms"] = 1000 * statistics.fmean(cpu)
        row["analysis_s"] = statistics.fmean(Line.cpu) if Line.cpu else None
        row["games_analysed"] = len(Line.cpu) / (accounts * games * (2 if name in PAIRS else 1))
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], games: int) -> str:
    ks = [k for k in MILESTONES if k <= games]
    head = ("| attacker | " + " | ".join(f"held within {k}" for k in ks)
            + " | games held | games analysed | CPU ms / screening | CPU s / analysis |")
    lines = [head, "|" + "---|" * (len(ks) + 5)]
    for r in rows:
        cells = [f"{100 * r[f'held_within_{k}']:.1f} %" for k in ks]
        lines.append(f"| {r['attacker']} | " + " | ".join(cells)
                     + f" | {100 * r['games_held']:.2f} % | {100 * r['games_analysed']:.1f} % "
                     + f"| {r['cpu_ms']:.2f} | "
                     + (f"{r['analysis_s']:.2f} |" if r["analysis_s"] is not None else "— |"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=6, help="Seven by Five seeds 1..N (won ones)")
    ap.add_argument("--accounts", type=int, default=100, help="accounts per attacker")
    ap.add_argument("--games", type=int, default=20, help="ranked games per account")
    ap.add_argument("--lines", type=int, default=8,
                    help="lines made (and analysed) per deal for the noisy bot and the humans")
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
    print(f"{args.accounts} accounts (pairs) x {args.games} ranked games (races) per attacker, "
          f"{args.lines} lines per deal for the noisy bot and the humans, seed {args.seed}\n")
    rows = run(deals, args.accounts, args.games, args.lines, args.seed)
    print(table(rows, args.games))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
