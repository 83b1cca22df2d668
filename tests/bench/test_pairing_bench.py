"""bench/pairing.py prints a row per (rate, spread, rule), skill pairs closer than first-come."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "bench_pairing", Path(__file__).resolve().parents[2] / "bench" / "pairing.py")
assert _spec is not None and _spec.loader is not None
bench_pairing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_pairing)


def test_skill_pairs_closer_ratings_than_first_come(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_pairing.main(["--players", "2000", "--rates", "1", "--spreads", "300"]) == 0
    rows = [line.split("|") for line in capsys.readouterr().out.splitlines()
            if line.startswith("| 1 |")]
    gaps = {r[3].strip(): float(r[6]) for r in rows}
    assert set(gaps) == {"first-come", "skill"}
    assert gaps["skill"] < gaps["first-come"] / 2
