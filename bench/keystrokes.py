"""Keystrokes for a whole won game at ``solrace play``: full notation vs pile moves + autoplay.

Run ``python bench/keystrokes.py [--json FILE]``. For one solver-won deal per variant (fixed
seeds: the same figures on every machine) it types the game two ways and counts every key,
Enter included:

* **before** — every move of the solver's winning line in full notation (``t3f1⏎``), the only
  way before pile moves existed;
* **after** — ``auto⏎`` once (auto-play: every provably safe card goes home after each move),
  then each move of the line as the shortest click that makes it (``t3⏎``, ``t3:2⏎``, ``s⏎``)
  or in full notation when no click makes it, skipping the moves auto-play already made, and
  ``finish⏎`` as soon as the rest plays itself. When auto-play has changed the position so
  that the line's next move no longer applies, the solver is asked again from there.

The moves are computed by ``solrace.shared.pointing`` — the code the server runs for those
requests — so the count is what a player typing the same game would type. ``requests`` counts
the typed lines (each one request to the server).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from solrace.shared.engine import Game
from solrace.shared.errors import CannotFinish
from solrace.shared.notation import Move
from solrace.shared.pointing import click_for, finish, plan
from solrace.shared.solver import Budget, Outcome, solve

DEALS = [  # (variant, options, seed): deals the solver wins within BUDGET
    ("sixes-and-sevens", {}, 1),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}, 8),
    ("double-aces-and-kings", {}, 30),
    ("unlimited", {}, 5),
    ("unlimited", {"draw": "3"}, 10),
    ("forty-and-eight", {}, 10),
]
BUDGET = Budget(nodes=50_000)


def _line(game: Game) -> list[Move]:
    result = solve(game.copy() if game.moves else game, BUDGET)
    if result.outcome is not Outcome.WON:
        raise SystemExit(f"the solver did not win {game!r} within {BUDGET}")
    return list(result.moves)


def before(variant: str, options: dict[str, str], seed: int) -> tuple[list[str], Game]:
    """The typed lines of the solver's line in full notation, and the game they win."""
    game = Game(variant, options, seed)
    lines = [m.text() for m in _line(game)]
    game.replay(lines)
    assert game.status.value == "won"
    return lines, game


def after(variant: str, options: dict[str, str], seed: int) -> tuple[list[str], Game]:
    """The typed lines with auto mode, clicks and finish, and the game they win."""
    game = Game(variant, options, seed)
    lines = ["auto"]
    line = _line(game)
    while game.status.value != "won":
        try:
            finish(game.copy())
        except CannotFinish:
            pass
        else:
            lines.append("finish")
            finish(game)
            break
        if not line or not game.is_legal(line[0]):
            line = _line(Game.from_position(variant, options, game.position_text()))
        move = line.pop(0)
        click = click_for(game, move)
        typed = click if click is not None and len(click) <= len(move.text()) else move.text()
        lines.append(typed)
        made = plan(game, "move", typed, auto=True)
        assert made[0] == move, (typed, made, move)
        for extra in made[1:]:  # auto-play's moves: drop them from the line when it has them
            if extra in line:
                line.remove(extra)
    assert game.status.value == "won"
    return lines, game


def keys(lines: list[str]) -> int:
    return sum(len(x) + 1 for x in lines)  # + Enter


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = ap.parse_args(argv)
    rows = []
    for variant, options, seed in DEALS:
        b_lines, b_game = before(variant, options, seed)
        a_lines, a_game = after(variant, options, seed)
        label = variant + (" " + ",".join(f"{k}={v}" for k, v in options.items())
                           if options else "")
        rows.append({
            "deal": label, "seed": seed,
            "before_moves": len(b_game.moves), "before_requests": len(b_lines),
            "before_keys": keys(b_lines),
            "after_moves": len(a_game.moves), "after_requests": len(a_lines),
            "after_keys": keys(a_lines),
        })
    head = (f"{'deal':<40} {'seed':>4} | {'full notation':>22} | {'piles+auto+finish':>22} |"
            f" {'saved':>5}")
    sub = f"{'':<40} {'':>4} | {'moves':>6} {'lines':>6} {'keys':>8} | " \
          f"{'moves':>6} {'lines':>6} {'keys':>8} | {'keys':>5}"
    print(head)
    print(sub)
    print("-" * len(sub))
    for r in rows:
        saved = 1 - r["after_keys"] / r["before_keys"]
        print(f"{r['deal']:<40} {r['seed']:>4} | {r['before_moves']:>6} "
              f"{r['before_requests']:>6} {r['before_keys']:>8} | {r['after_moves']:>6} "
              f"{r['after_requests']:>6} {r['after_keys']:>8} | {saved:>5.0%}")
    tb = sum(r["before_keys"] for r in rows)
    ta = sum(r["after_keys"] for r in rows)
    print("-" * len(sub))
    print(f"{'total':<40} {'':>4} | {'':>6} {'':>6} {tb:>8} | {'':>6} {'':>6} {ta:>8} | "
          f"{1 - ta / tb:>5.0%}")
    print("keys include Enter; 'moves' are the moves logged (auto-play's and finish's count).")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
