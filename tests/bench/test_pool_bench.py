"""bench/pool.py certifies seeds as the winnable pool does and prints a row per variant."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest
from solrace.shared.solver import Budget, Outcome, solve

_spec = importlib.util.spec_from_file_location(
    "bench_pool", Path(__file__).resolve().parents[2] / "bench" / "pool.py")
assert _spec is not None and _spec.loader is not None
bench_pool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_pool)


def test_main_counts_the_candidates_up_to_each_win(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_pool.main(["--seeds", "2", "--only", "unlimited", "--budget", "2000",
                            "--rng", "5"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("unlimited|"))
    rng, tried, wins = random.Random(5), 0, 0
    while wins < 2:  # the same candidates, solved here
        tried += 1
        result = solve(("unlimited", {}, rng.getrandbits(64)), Budget(nodes=2000))
        wins += result.outcome is Outcome.WON
    cells = row.split()
    assert float(cells[1]) == pytest.approx(tried / 2)
