"""What filling the winnable pool costs: candidates and solver seconds per certified seed.

Run ``python bench/pool.py [--seeds N] [--budget NODES] [--only VARIANT ...] [--rng SEED]``.
For every variant's pool configuration (``server/game/pool.py``: the daily's options) it certifies
N seeds exactly as the pool does — random candidates, ``certify_one`` within the pool's node
budget per candidate, the first win kept — and prints per configuration: candidates per
certified seed (mean, worst), how the skipped ones ended, and the CPU seconds one certified
seed cost (median, worst; one core, as the server's one worker process).

With ``--verdicts N`` it measures instead what the verdict after a race costs: N random deals
per configuration solved as ``server/game/verdicts.py`` does (``judge`` within ``--budget``, default
there the server's ``--verdict-budget`` default of 50 000 nodes): outcomes and CPU seconds.

The candidates come from ``random.Random(--rng)`` instead of ``secrets`` so that two runs try
the same deals (outcomes and node counts repeat on any machine; times differ).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from solrace.server.game.daily import certify_one
from solrace.server.game.pool import DEFAULT_BUDGET, MAX_CANDIDATES, default_configs
from solrace.server.game.verdicts import judge
from solrace.server.ops.config import Config

VERDICT_BUDGET: int = Config.__dataclass_fields__["verdict_budget"].default


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=5, help="certified seeds per variant (5)")
    p.add_argument("--budget", type=int, default=None,
                   help=f"nodes per candidate ({DEFAULT_BUDGET}, the pool's default) or per "
                   f"verdict ({VERDICT_BUDGET}, the server's default)")
    p.add_argument("--only", nargs="+", metavar="VARIANT", default=None)
    p.add_argument("--rng", type=int, default=1, help="candidate generator seed (1)")
    p.add_argument("--verdicts", type=int, default=0, metavar="N",
                   help="measure N verdicts per configuration instead (budget: --budget, "
                   "else the server's --verdict-budget default)")
    args = p.parse_args(argv)
    rng = random.Random(args.rng)
    if args.verdicts:
        return verdicts(rng, args.verdicts, args.budget or VERDICT_BUDGET, args.only)
    args.budget = args.budget or DEFAULT_BUDGET
    print(f"# python {platform.python_version()} {platform.machine()}, budget {args.budget} "
          f"nodes per candidate, {args.seeds} certified seeds per configuration", flush=True)
    head = (f"{'configuration':<48} {'cands/seed':>10} {'worst':>5} {'lost':>4} "
            f"{'unknown':>7} {'median s':>8} {'max s':>6} {'median par':>10}")
    print(head)
    print("-" * len(head), flush=True)
    for config in default_configs():
        name, _, text = config.partition("|")
        if args.only and name not in args.only:
            continue
        opts = dict(kv.split("=", 1) for kv in text.split(",") if kv)
        counts, seconds, pars, skipped = [], [], [], {"lost": 0, "unknown": 0}
        for _ in range(args.seeds):
            t0 = time.process_time()
            tried = 0
            while tried < MAX_CANDIDATES:
                tried += 1
                outcome, par, _ = certify_one(name, opts, rng.getrandbits(64), args.budget)
                if outcome == "won":
                    pars.append(par)
                    break
                skipped[outcome] += 1
            counts.append(tried)
            seconds.append(time.process_time() - t0)
        print(f"{config:<48} {statistics.mean(counts):>10.1f} {max(counts):>5} "
              f"{skipped['lost']:>4} {skipped['unknown']:>7} {statistics.median(seconds):>8.1f} "
              f"{max(seconds):>6.1f} {statistics.median(pars) if pars else '-':>10}", flush=True)
    return 0


def verdicts(rng: random.Random, n: int, budget: int, only: list[str] | None) -> int:
    print(f"# python {platform.python_version()} {platform.machine()}, verdicts within "
          f"{budget} nodes, {n} random deals per configuration", flush=True)
    head = (f"{'configuration':<48} {'won':>4} {'lost':>4} {'unknown':>7} {'median s':>8} "
            f"{'max s':>6}")
    print(head)
    print("-" * len(head), flush=True)
    for config in default_configs():
        name, _, text = config.partition("|")
        if only and name not in only:
            continue
        opts = dict(kv.split("=", 1) for kv in text.split(",") if kv)
        outcomes = {"won": 0, "lost": 0, "unknown": 0}
        seconds = []
        for _ in range(n):
            t0 = time.process_time()
            outcome, _, _ = judge(name, opts, rng.getrandbits(64), budget)
            seconds.append(time.process_time() - t0)
            outcomes[outcome] += 1
        print(f"{config:<48} {outcomes['won']:>4} {outcomes['lost']:>4} "
              f"{outcomes['unknown']:>7} {statistics.median(seconds):>8.2f} "
              f"{max(seconds):>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
