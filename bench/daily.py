"""What certifying a daily costs: candidates tried and solver time per variant and day.

Run ``python bench/daily.py [--days D] [--start YYYY-MM-DD] [--only VARIANT ...]
[--budget NODES] [--secret TEXT]``. For each of D consecutive days and each variant it walks the
candidate seeds exactly as the server does (``server/game/daily.py``: HMAC candidates, the daily's
options, the per-variant node budget of ``DAILY_BUDGETS`` unless ``--budget`` sets one for all)
until the solver wins one, and prints per variant: the candidates tried (mean and worst), how
the skipped ones ended (proved lost / undecided), the seconds one certification took (median
and worst, single core — the server certifies in one worker process) and par.

Why it matters: an undecided candidate costs the whole node budget, so the budget trades the
chance of winning one candidate against the time spent on those that stay undecided; this is
the measurement behind ``DAILY_BUDGETS``. The secret is a fixed test value, so two runs give
the same candidates, outcomes and node counts on any machine (times differ).

``--difficulties`` certifies each day's three dailies as the server does (docs/leaderboards.md,
"Dailies by difficulty"): the first won candidate is the daily of its own difficulty; each of
the two others is the first won candidate after it that is rated so, every won candidate
rated by a second search. It prints per variant the last candidate each day needed and the CPU
seconds of the day's three certifications in one process (which solves each candidate once).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import time

from solrace.server.game.daily import (
    DAILY_BUDGETS,
    DEFAULT_BUDGET,
    MAX_CANDIDATES,
    DailyService,
    candidate_seed,
    certify_one,
)
from solrace.server.game.dailylevels import rate_one
from solrace.shared.rules import options_text
from solrace.shared.variants import VARIANTS


def certify(secret: bytes, day: str, variant: str, budget: int) -> dict[str, object]:
    """One day's certification of one variant, as the server runs it (in-process here)."""
    name, opts = DailyService.variant_name(variant)
    t0 = time.process_time()
    skipped = {"lost": 0, "unknown": 0}
    for index in range(MAX_CANDIDATES):
        seed = candidate_seed(secret, day, name, options_text(opts), index)
        outcome, par, _ = certify_one(name, opts, seed, budget)
        if outcome == "won":
            return {"candidates": index + 1, "seconds": time.process_time() - t0, "par": par,
                    **skipped}
        skipped[outcome] += 1
    return {"candidates": MAX_CANDIDATES, "seconds": time.process_time() - t0, "par": None,
            **skipped}


def certify_levels(secret: bytes, day: str, variant: str, budget: int) -> dict[str, object]:
    """One day's three dailies of one variant: candidates scanned and the server's CPU."""
    name, opts = DailyService.variant_name(variant)
    cost: list[float] = []
    found: dict[str, int] = {}
    first = None
    for index in range(MAX_CANDIDATES):
        t0 = time.process_time()
        seed = candidate_seed(secret, day, name, options_text(opts), index)
        outcome, _, _ = certify_one(name, opts, seed, budget)
        level = rate_one(name, opts, seed)[0] if outcome == "won" else None
        cost.append(time.process_time() - t0)
        if level is not None:
            first = index if first is None else first
            found.setdefault(level, index)
        if len(found) == 3:
            break
    assert first is not None, f"no won candidate for {variant} on {day}"
    return {"first": first, "last": max(found.values(), default=MAX_CANDIDATES),
            "found": len(found), "seconds": sum(cost)}


def levels_table(secret: bytes, days: list[str], variants: list[str], budget_all: int) -> None:
    print("| variant | days | all three found | last candidate mean / max | CPU s median / max |")
    print("|---|---:|---:|---:|---:|")
    for variant in variants:
        budget = budget_all or DAILY_BUDGETS.get(variant, DEFAULT_BUDGET)
        runs = [certify_levels(secret, day, variant, budget) for day in days]
        last = [int(r["last"]) for r in runs]  # type: ignore[call-overload]
        secs = [float(r["seconds"]) for r in runs]  # type: ignore[arg-type]
        print(f"| {variant} | {len(runs)} | {sum(r['found'] == 3 for r in runs)} | "
              f"{statistics.mean(last):.1f} / {max(last)} | "
              f"{statistics.median(secs):.1f} / {max(secs):.1f} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--days", type=int, default=10, help="consecutive days per variant (10)")
    p.add_argument("--start", default="2030-01-01", help="first day (2030-01-01)")
    p.add_argument("--only", nargs="+", metavar="VARIANT", default=None,
                   help="variants to certify (default: all five)")
    p.add_argument("--budget", type=int, default=0,
                   help="node budget per candidate for every variant (default: DAILY_BUDGETS)")
    p.add_argument("--secret", default="solrace-bench-daily", help="the HMAC secret (text)")
    p.add_argument("--difficulties", action="store_true",
                   help="the day's three dailies (easy, medium, hard) instead of the first")
    args = p.parse_args(argv)
    variants = args.only or list(VARIANTS)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variant(s) {unknown}; known: {list(VARIANTS)}")
    first = dt.date.fromisoformat(args.start)
    days = [(first + dt.timedelta(days=i)).isoformat() for i in range(args.days)]
    secret = args.secret.encode()
    print(f"daily certification: {args.days} days from {args.start}, Python "
          f"{platform.python_version()} on {platform.machine()}, one core", flush=True)
    if args.difficulties:
        levels_table(secret, days, variants, args.budget)
        return 0
    head = ("variant", "options", "budget", "days", "cands mean", "cands max", "lost",
            "undecided", "median s", "max s", "median par")
    rows = []
    for variant in variants:
        budget = args.budget or DAILY_BUDGETS.get(variant, DEFAULT_BUDGET)
        runs = []
        for day in days:
            runs.append(certify(secret, day, variant, budget))
            print(f"  {variant} {day}: {runs[-1]}", file=sys.stderr, flush=True)
        secs = [float(r["seconds"]) for r in runs]
        pars = [int(r["par"]) for r in runs if r["par"] is not None]
        cands = [int(r["candidates"]) for r in runs]
        rows.append((
            variant, options_text(DailyService.variant_name(variant)[1]), f"{budget:,}",
            str(len(runs)), f"{statistics.mean(cands):.1f}", str(max(cands)),
            str(sum(int(r["lost"]) for r in runs)), str(sum(int(r["unknown"]) for r in runs)),
            f"{statistics.median(secs):.1f}", f"{max(secs):.1f}",
            f"{statistics.median(pars):g}" if pars else "-",
        ))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print()
    print("  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in
                    enumerate(zip(head, widths))))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                        enumerate(zip(r, widths))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
