"""How often the analysis finds the move that lost a game, and what it costs.

Run ``python bench/lostmove.py [--seeds N] [--nodes K]``.

Offline: no server. Lost lines are the practice bots' (``weak`` and ``medium``; a bot plays
until the game is lost or it gives up) on seeds 1..N of Seven by Five (the daily preset
``cells=5, empty_fill=any``: every card face up) and Unlimited draw 3 (face-down cards and a
stock); each line that did not win gets :func:`~solrace.shared.learning.lost.find_losing_move`
with ``K`` nodes per probe (the server's budget by default). The table counts each answer and
gives the median and largest probes and CPU per analysis. ``found`` / (``found`` +
``undecided``) is the share of lost games whose losing move is named; ``lost_from_start``
deals had no win at all, ``winnable_at_end`` lines were given up while a win still existed.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from solrace.shared.engine import Game, Status
from solrace.shared.learning.lost import NODES, find_losing_move, solver_probe
from solrace.shared.solver import Bot

CONFIGS = [("seven-by-five", {"cells": "5", "empty_fill": "any"}), ("unlimited", {"draw": "3"})]
KINDS = ("found", "undecided", "winnable_at_end", "lost_from_start")


def bot_line(variant: str, options: dict[str, str], seed: int, strength: str) -> Game:
    game, bot = Game(variant, options, seed), Bot(strength)  # type: ignore[arg-type]
    while game.status is Status.PLAYING and len(game.moves) < 1000:
        move = bot.choose(game)
        if move is None:
            break
        game.push(move)
    return game


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=NODES)
    args = ap.parse_args()
    print(f"budget: {args.nodes} nodes per probe; seeds 1..{args.seeds}")
    head = f"{'variant':<14} {'bot':<7} {'lost':>4} " + " ".join(f"{k:>15}" for k in KINDS)
    print(head + f" {'found %':>8} {'probes med/max':>15} {'cpu ms med/max':>15}")
    for variant, options in CONFIGS:
        for strength in ("weak", "medium"):
            counts = dict.fromkeys(KINDS, 0)
            probes, cpu = [], []
            for seed in range(1, args.seeds + 1):
                game = bot_line(variant, options, seed, strength)
                if game.status is Status.WON:
                    continue
                r = find_losing_move(variant, options, seed, [m.text() for m in game.moves],
                                     probe=solver_probe(args.nodes))
                counts[r["result"]] += 1
                probes.append(r["probes"])
                cpu.append(r["cpu_ms"])
            lost = sum(counts.values())
            named = counts["found"] + counts["undecided"]
            share = f"{100 * counts['found'] / named:.0f}" if named else "-"
            pm = f"{statistics.median(probes):g}/{max(probes)}" if probes else "-"
            cm = f"{statistics.median(cpu):g}/{max(cpu)}" if cpu else "-"
            print(f"{variant:<14} {strength:<7} {lost:>4} "
                  + " ".join(f"{counts[k]:>15}" for k in KINDS) + f" {share:>8} {pm:>15} {cm:>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
