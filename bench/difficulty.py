"""Do the practice bots win the deals rated hard less often? The check of the difficulty rating.

Run ``python bench/difficulty.py [--seeds N] [--first S] [--only VARIANT] [--weak K]``.

Offline: no server. For each variant with its daily options, seeds S..S+N-1 are certified as
the winnable pool certifies them (the default search, 10 000 nodes: only won deals count),
rated by :mod:`solrace.shared.learning.difficulty` (effort alone: no players), then played by
the practice bots of ``solrace.shared.solver.Bot`` — ``weak`` K times (bot seeds 0..K-1: it
plays at random), ``medium`` and ``strong`` once (deterministic), and the strong bot once
more planning with 1 000 nodes instead of 5 000 (``strong@1k``). The table gives, per variant
and rating, the deals and each bot's win share, then the weak and medium bots' wins pooled and
the CPU seconds of the variant's whole row. The default seeds start at 1001, away from the
calibration's 1..300.

``--calibrate`` instead prints, per variant, the terciles of the work (nodes × par) of the
winnable deals among seeds 1..N: the thresholds of ``THRESHOLDS`` in the module.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping

from solrace.shared.engine import Game, Status
from solrace.shared.learning.difficulty import DIFFICULTIES, Effort, band, measure
from solrace.shared.solver import Bot, Budget, solve

CONFIGS: list[tuple[str, dict[str, str]]] = [
    ("unlimited", {}),
    ("double-aces-and-kings", {}),
    ("sixes-and-sevens", {}),
    ("forty-and-eight", {}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}),
]
POOL_NODES = 10_000  # the winnable pool's certification budget
MOVE_CAP = 1_500  # a bot game longer than this counts as not won
#: The strong bot plans with 5 000 nodes; "strong@1k" is the same bot planning with 1 000,
#: which still separates deals where the practice bots all win or all lose.
SHORT_PLAN = 1_000


def bot_wins(variant: str, options: Mapping[str, str], seed: int, strength: str,
             bot_seed: int = 0, plan_nodes: int | None = None) -> bool:
    budget = Budget(nodes=plan_nodes, seconds=None) if plan_nodes else None
    game = Game(variant, dict(options), seed)
    bot = Bot(strength, seed=bot_seed, budget=budget)
    while game.status is Status.PLAYING and len(game.moves) < MOVE_CAP:
        move = bot.choose(game)
        if move is None:
            break
        game.push(move)
    return game.status is Status.WON


def certified(variant: str, options: Mapping[str, str], first: int, count: int
              ) -> list[tuple[int, Effort]]:
    out = []
    for seed in range(first, first + count):
        if solve((variant, dict(options), seed), Budget(nodes=POOL_NODES, seconds=None)).won:
            out.append((seed, measure(variant, options, seed)))
    return out


def calibrate(configs: list[tuple[str, dict[str, str]]], seeds: int) -> None:
    print(f"work (nodes x par at the rating budget) of the winnable deals, seeds 1..{seeds}")
    print(f"{'variant':<22} {'won':>4} {'min':>8} {'1/3':>8} {'2/3':>8} {'max':>8}")
    for variant, options in configs:
        efforts = sorted(e.work or 0 for _, e in certified(variant, options, 1, seeds))
        if not efforts:
            print(f"{variant:<22} {0:>4}")
            continue
        n = len(efforts)
        print(f"{variant:<22} {n:>4} {efforts[0]:>8} {efforts[n // 3]:>8} "
              f"{efforts[2 * n // 3]:>8} {efforts[-1]:>8}", flush=True)


def check(configs: list[tuple[str, dict[str, str]]], first: int, seeds: int,
          weak_games: int) -> None:
    print(f"seeds {first}..{first + seeds - 1}, certified at {POOL_NODES} nodes; weak bot "
          f"x{weak_games}, medium and strong x1 per deal")
    print("| variant | rating | deals | weak won % | medium won % | strong won % |"
          f" strong@{SHORT_PLAN // 1000}k won % | weak+medium won % | s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for variant, options in configs:
        started = time.process_time()
        rows: dict[str, list[tuple[int, int, int, int]]] = {d: [] for d in DIFFICULTIES}
        for seed, effort in certified(variant, options, first, seeds):
            weak = sum(bot_wins(variant, options, seed, "weak", k) for k in range(weak_games))
            medium = int(bot_wins(variant, options, seed, "medium"))
            strong = int(bot_wins(variant, options, seed, "strong"))
            short = int(bot_wins(variant, options, seed, "strong", plan_nodes=SHORT_PLAN))
            rows[band(variant, effort).value].append((weak, medium, strong, short))
        took = time.process_time() - started
        for rating in DIFFICULTIES:
            got = rows[rating]
            if not got:
                print(f"| {variant} | {rating} | 0 | - | - | - | - | - | |")
                continue
            n = len(got)
            weak = 100 * sum(r[0] for r in got) / (n * weak_games)
            medium = 100 * sum(r[1] for r in got) / n
            strong = 100 * sum(r[2] for r in got) / n
            short = 100 * sum(r[3] for r in got) / n
            pooled = 100 * sum(r[0] + r[1] for r in got) / (n * (weak_games + 1))
            print(f"| {variant} | {rating} | {n} | {weak:.0f} | {medium:.0f} | {strong:.0f} |"
                  f" {short:.0f} | {pooled:.0f} | {took:.0f} |", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--first", type=int, default=1001)
    ap.add_argument("--weak", type=int, default=4, help="weak-bot games per deal")
    ap.add_argument("--only", default=None, help="one variant")
    ap.add_argument("--calibrate", action="store_true")
    args = ap.parse_args()
    configs = [c for c in CONFIGS if args.only in (None, c[0])]
    if not configs:
        ap.error(f"unknown variant {args.only}")
    if args.calibrate:
        calibrate(configs, args.seeds)
    else:
        check(configs, args.first, args.seeds, args.weak)
    return 0


if __name__ == "__main__":
    sys.exit(main())
