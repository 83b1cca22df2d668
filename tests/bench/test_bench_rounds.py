"""``bench/server.py --rounds K``: which round the report shows.

The host's speed can drift between windows, so the harness alternates echo and solrace windows
and reports the round whose ratio is the median: one round's own figures, never a mix.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "server.py"


def _bench():
    sys.path.insert(0, str(SCRIPT.parent))  # bench/server.py imports its sibling loadgen
    spec = importlib.util.spec_from_file_location("bench_server_rounds", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _window(target: str, count: int) -> object:
    return bench.Measure(target=target, n=100, servers=1, window=1.0, count=count, p50=1.0,
                         p99=2.0, max=3.0, server_cpu=[0.5], loadgen_cpu=0.1, loadgens=1)


def _pair(echo: int, solrace: int) -> tuple[object, object]:
    return _window("echo", echo), _window("solrace", solrace)


def test_the_median_ratio_round_is_chosen_whole() -> None:
    slow_echo = _pair(5_000, 2_000)  # 0.40x
    usual = _pair(10_000, 3_000)  # 0.30x
    fast_echo = _pair(20_000, 3_200)  # 0.16x
    chosen = bench.median_round([slow_echo, usual, fast_echo])
    assert chosen is usual
    assert chosen[0].rate == 10_000 and chosen[1].rate == 3_000


def test_an_even_count_takes_the_lower_middle_and_one_round_is_itself() -> None:
    a, b = _pair(10_000, 2_000), _pair(10_000, 4_000)  # 0.20x, 0.40x
    assert bench.median_round([b, a]) is a
    assert bench.median_round([b]) is b


def test_rounds_is_a_flag_defaulting_to_one() -> None:
    assert bench.parse_args(["--n", "100"]).rounds == 1
    assert bench.parse_args(["--n", "100", "--rounds", "3"]).rounds == 3


def test_no_rounds_is_refused() -> None:
    import pytest

    with pytest.raises(SystemExit):
        bench.parse_args(["--rounds", "0"])
