"""Quick pairing by skill against first-come pairing, on simulated arrivals.

Run ``python bench/pairing.py [--players N] [--rates R ...] [--spreads S ...] [--guests F]
[--rng SEED]``. Players arrive in one quick-pair queue as a Poisson process (``--rates``:
arrivals per second), ratings drawn from a normal law around 1500 (``--spreads``: its standard
deviation), deviations uniform in 40…120 — except a fraction ``--guests`` of unrated players
(1500 ± 350, as the server counts guests). The clock is simulated; each arrival is decided as
the server decides it (solrace.shared.skillpair, the rule itself): paired with the chosen
waiting player, or left waiting. As on the server, waiting players also look at the queue every
``RECHECK_S`` seconds and pair with each other once the longer of their two waits makes the
window wide enough (``choose_while_waiting``). Nobody gives up. For each rule and (rate, spread)
it prints the median and 95th-percentile wait of the player who waited in each pair (the one who
arrived second waits 0 s and is not counted), the median rating gap of the pairs, and how many
were still waiting when arrivals stopped.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence

from solrace.shared import skillpair
from solrace.shared.skillpair import Seeker

#: Seconds between a waiting player's looks at its queue (server/session/handlers/lobby.py).
RECHECK_S = 2.0

Rule = Callable[[Seeker, Sequence[Seeker], float], "int | None"]


def recheck(waiting: list[Seeker], waits: list[float], gaps: list[float], last: float,
            until: float) -> None:
    """The waiting players' looks at the queue at every multiple of RECHECK_S in
    (``last``, ``until``]: pairs of them the rule accepts by now, oldest first."""
    t = (math.floor(last / RECHECK_S) + 1) * RECHECK_S
    while t <= until and len(waiting) >= 2:
        for i, me in enumerate(waiting):
            others = waiting[:i] + waiting[i + 1:]
            j = skillpair.choose_while_waiting(me, others, t)
            if j is not None:
                other = others[j]
                waiting.remove(me)
                waiting.remove(other)
                waits.append(t - min(me.since, other.since))
                gaps.append(abs(me.rating - other.rating))
                break
        else:
            t += RECHECK_S


def simulate(rule: Rule, players: int, rate: float, spread: float, guests: float,
             seed: int) -> tuple[list[float], list[float], int]:
    """(waits, gaps, left waiting) of ``players`` arrivals under ``rule``."""
    rng = random.Random(seed)
    now = 0.0
    waiting: list[Seeker] = []
    waits: list[float] = []
    gaps: list[float] = []
    for _ in range(players):
        last, now = now, now + rng.expovariate(rate)
        recheck(waiting, waits, gaps, last, now)
        if rng.random() < guests:
            me = Seeker(since=now)
        else:
            me = Seeker(rng.gauss(1500, spread), rng.uniform(40, 120), now)
        pick = rule(me, waiting, now)
        if pick is None:
            waiting.append(me)
            continue
        other = waiting.pop(pick)
        waits.append(now - other.since)
        gaps.append(abs(me.rating - other.rating))
    return waits, gaps, len(waiting)


def p95(xs: list[float]) -> float:
    return sorted(xs)[min(len(xs) - 1, int(0.95 * len(xs)))] if xs else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=20000, help="arrivals per run (20000)")
    p.add_argument("--rates", type=float, nargs="+", default=[0.1, 1.0, 10.0],
                   help="arrivals per second (0.1 1 10)")
    p.add_argument("--spreads", type=float, nargs="+", default=[200.0, 400.0],
                   help="standard deviation of the ratings (200 400)")
    p.add_argument("--guests", type=float, default=0.2, help="fraction of unrated (0.2)")
    p.add_argument("--rng", type=int, default=1, help="random seed (1)")
    a = p.parse_args(argv)
    rules: list[tuple[str, Rule]] = [("first-come", skillpair.first_come),
                                     ("skill", skillpair.choose)]
    print(f"{a.players} arrivals, {a.guests:.0%} guests; window = {skillpair.BASE_GAP:g} + "
          f"{skillpair.RD_WEIGHT:g}*sqrt(rd_a^2+rd_b^2) + {skillpair.WIDEN_PER_S:g}/s * wait, "
          f"any rival after {skillpair.MAX_WAIT_S:g} s")
    print()
    print("| rate /s | spread | rule | median wait s | p95 wait s | median gap | left waiting |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    for rate in a.rates:
        for spread in a.spreads:
            for name, rule in rules:
                waits, gaps, left = simulate(rule, a.players, rate, spread, a.guests, a.rng)
                print(f"| {rate:g} | {spread:g} | {name} | {statistics.median(waits):.1f} | "
                      f"{p95(waits):.1f} | {statistics.median(gaps):.0f} | {left} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
