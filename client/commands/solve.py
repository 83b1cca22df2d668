"""Solve a deal: is it winnable, and how (the solver sees every card, hidden ones included).

``solrace solve unlimited --seed 7`` prints the outcome, the solver's move list and its cost;
``--batch 1-100`` solves many seeds with a progress bar on stderr and prints a summary table.
The solver is "thoughtful" — it knows the face-down and stock cards — so its answers are for
certifying deals and computing par, never for a player in a running race.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from typing import Any

from solrace.client.commands import (
    CommandError,
    add_deal_arguments,
    option_dict,
    parse_seed,
    print_json,
)
from solrace.shared.engine import Game
from solrace.shared.solver import (
    Budget,
    Outcome,
    SolveResult,
    fastcore,
    fortyeight,
    onepass,
    poporder,
    solve,
)

NAME = "solve"
HELP = "solve a deal (won with moves / lost / unknown within a budget)"

# 200k nodes or 9 s of search, whichever comes first: with start-up and the replay check every
# variant's deal answers within 10 s at a terminal (a node budget alone, given with --budget,
# is the deterministic one); ``unknown`` says how to search further.
DEFAULT_BUDGET = Budget(nodes=200_000, seconds=9.0)
# a variant searched by a compiled core: ten times the nodes in the same 9 s cap
CORE_BUDGET = Budget(nodes=2_000_000, seconds=9.0)
# Forty and Eight on its core: about 10 s of one idle core's nodes (the bench's stand-in for
# 10 s, docs/solver.md), since its portfolio's shares scale with the budget and seed 1 is won
# at 7.5M (1.3M nodes, under a second) but not at 2M
FORTY_EIGHT_BUDGET = Budget(nodes=7_500_000, seconds=9.0)
BATCH_MAX = 100_000
TICK = 1.0  # seconds between progress updates on a terminal


def parse_budget(text: str) -> Budget:
    try:
        return Budget.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_seeds(text: str) -> list[int]:
    """``1-100``, ``1,5,9`` or a mix (``1-10,20,30-32``), in the order given, no repeats."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise argparse.ArgumentTypeError(f"empty item in seed list {text!r}")
        lo, sep, hi = part.partition("-")
        first = parse_seed(lo)
        last = parse_seed(hi) if sep else first
        if last < first:
            raise argparse.ArgumentTypeError(f"empty seed range {part!r}")
        if len(seeds) + last - first + 1 > BATCH_MAX:
            raise argparse.ArgumentTypeError(f"at most {BATCH_MAX} seeds per batch")
        seeds.extend(range(first, last + 1))
    return list(dict.fromkeys(seeds))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_deal_arguments(parser)
    parser.add_argument(
        "--budget",
        type=parse_budget,
        default=None,
        metavar="B",
        help="nodes (50000, 50k, 2m) or seconds (10s) per deal (default: "
        f"{DEFAULT_BUDGET.text()}, whichever comes first; {CORE_BUDGET.text()} for Sixes and "
        "Sevens, and for Unlimited and Double Aces and Kings with a compiled solver core; "
        f"{FORTY_EIGHT_BUDGET.text()} for Forty and Eight with its compiled core; a node "
        "budget gives the same answer on every machine "
        "with the same core)",
    )
    parser.add_argument(
        "--batch",
        type=parse_seeds,
        metavar="SEEDS",
        help="solve many seeds (1-100, 1,5,9) and print a summary table instead of moves",
    )
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON (one document per seed with --batch)")


def _document(game: Game, result: SolveResult) -> dict[str, Any]:
    return {
        "variant": game.variant.name,
        "options": dict(game.options),
        "seed": game.seed,
        **result.wire(),
    }


def _solve_one(args: argparse.Namespace, options: dict[str, str], seed: int
               ) -> tuple[Game, SolveResult]:
    game = Game(args.variant, options, seed)
    return game, solve(game, args.budget)


def default_budget(game: Game) -> Budget:
    """The capped default: more nodes where a compiled core or the pop-order search (Sixes
    and Sevens) searches (same 9 s cap)."""
    if fortyeight.handles(game) and fortyeight.library():
        return FORTY_EIGHT_BUDGET
    compiled = poporder.handles(game) or (fastcore.handles(game) and fastcore.library()) or (
        onepass.handles(game) and onepass.library())
    return CORE_BUDGET if compiled else DEFAULT_BUDGET


def run(args: argparse.Namespace) -> int:
    options = option_dict(args)
    if args.budget is None:
        args.budget = default_budget(Game(args.variant, options, 0))
    if args.batch is not None:
        return _run_batch(args, options)
    if sys.stderr.isatty() or not args.json:
        print(f"solving {args.variant} seed {args.seed} (budget {args.budget.text()}) ...",
              file=sys.stderr, flush=True)
    game, result = _solve_with_progress(args, options, args.seed)
    if args.json:
        print_json(_document(game, result))
        return 0
    print(f"{game.variant.name} {_options_text(game)} seed {game.seed}: "
          f"{result.outcome.value}")
    if result.won:
        print(f"par {result.par}")
        print(" ".join(result.move_texts()))
    print(f"{result.nodes} nodes, {result.seconds:.2f} s (budget {args.budget.text()})")
    if result.outcome is Outcome.UNKNOWN:
        print(unknown_advice(args.budget))
    return 0


def unknown_advice(budget: Budget) -> str:
    """What to do after ``unknown``: a bigger budget (each ten times costs about ten times
    the time)."""
    bigger = f"{budget.nodes * 10 // 1000}k" if budget.nodes else "200k"
    return (f"unknown: neither a win nor a proof of loss within {budget.text()}; search "
            f"further with --budget {bigger} (about ten times longer) or a time budget such as "
            "--budget 60s")


def _solve_with_progress(args: argparse.Namespace, options: dict[str, str], seed: int
                         ) -> tuple[Game, SolveResult]:
    """One solve; on a terminal, a line on stderr says what runs and how long it has run."""
    if not sys.stderr.isatty():
        return _solve_one(args, options, seed)
    done = threading.Event()
    started = time.perf_counter()

    def tick() -> None:
        while not done.wait(TICK):
            print(f"\rsolving ({args.budget.text()} budget; --budget changes it)… "
                  f"{time.perf_counter() - started:.0f} s", end="", file=sys.stderr,
                  flush=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        return _solve_one(args, options, seed)
    finally:
        done.set()
        ticker.join()
        print("\r\x1b[2K", end="", file=sys.stderr, flush=True)


def _options_text(game: Game) -> str:
    """``draw=3 foundation_takeback=yes``: spaces, as every other command prints options."""
    return " ".join(f"{k}={v}" for k, v in game.options.items()) or "-"


def _progress(done: int, total: int, counts: dict[Outcome, int], started: float) -> None:
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - started
    bar = "#" * filled + "." * (width - filled)
    tally = " ".join(f"{o.value[0]}{counts[o]}" for o in Outcome)
    print(f"\r[{bar}] {done}/{total} {tally} {elapsed:.0f}s", end="", file=sys.stderr,
          flush=True)


def _run_batch(args: argparse.Namespace, options: dict[str, str]) -> int:
    seeds: list[int] = args.batch
    if not seeds:
        raise CommandError("no seeds to solve")
    counts = {o: 0 for o in Outcome}
    times: list[float] = []
    pars: list[int] = []
    started = time.perf_counter()
    show_bar = sys.stderr.isatty() or not args.json
    game = None
    for i, seed in enumerate(seeds, start=1):
        game, result = _solve_one(args, options, seed)
        counts[result.outcome] += 1
        times.append(result.seconds)
        if result.par is not None:
            pars.append(result.par)
        if args.json:
            print_json(_document(game, result))
        if show_bar:
            _progress(i, len(seeds), counts, started)
    if show_bar:
        print(file=sys.stderr)
    if args.json:
        return 0
    assert game is not None
    print(summary_table(game, counts, times, pars, args.budget))
    return 0


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary_table(game: Game, counts: dict[Outcome, int], times: list[float],
                  pars: list[int], budget: Budget) -> str:
    n = sum(counts.values())
    head = ["variant", "options", "deals", "won", "lost", "unknown", "median s", "p95 s",
            "median par"]
    row = [
        game.variant.name,
        _options_text(game),
        str(n),
        *(f"{counts[o]} ({100 * counts[o] / n:.1f}%)" for o in Outcome),
        f"{statistics.median(times):.3f}",
        f"{percentile(times, 95):.3f}",
        f"{statistics.median(pars):g}" if pars else "-",
    ]
    widths = [max(len(a), len(b)) for a, b in zip(head, row)]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(head, widths)),
        "  ".join("-" * w for w in widths),
        "  ".join(c.ljust(w) for c, w in zip(row, widths)),
        f"budget: {budget.text()} per deal",
    ]
    return "\n".join(lines)
