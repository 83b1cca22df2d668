"""bench/daily.py walks the candidates exactly as the server's certification does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from solrace.server.game.daily import DailyService, candidate_seed
from solrace.shared.rules import options_text
from solrace.shared.solver import Budget, Outcome, solve

_spec = importlib.util.spec_from_file_location(
    "bench_daily", Path(__file__).resolve().parents[2] / "bench" / "daily.py")
assert _spec is not None and _spec.loader is not None
bench_daily = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_daily)


def test_certify_returns_the_first_won_candidate() -> None:
    secret, day, budget = b"t", "2030-01-01", 20_000
    got = bench_daily.certify(secret, day, "seven-by-five", budget)
    name, opts = DailyService.variant_name("seven-by-five")
    outcomes = []
    for i in range(int(got["candidates"])):
        seed = candidate_seed(secret, day, name, options_text(opts), i)
        outcomes.append(solve((name, opts, seed), Budget(nodes=budget)))
    skipped = [r.outcome for r in outcomes[:-1]]
    assert skipped.count(Outcome.LOST) == got["lost"]
    assert skipped.count(Outcome.UNKNOWN) == got["unknown"]
    assert Outcome.WON not in skipped
    assert outcomes[-1].outcome is Outcome.WON and outcomes[-1].par == got["par"]


def test_main_prints_a_row_per_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_daily.main(["--days", "1", "--only", "seven-by-five", "--budget", "20000"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("seven-by-five"))
    assert "cells=5,empty_fill=any" in row and "20,000" in row
