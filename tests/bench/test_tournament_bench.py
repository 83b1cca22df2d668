"""bench/tournament.py runs end to end on a tiny load and prints both windows' rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "tournament.py"


def test_the_arena_bench_prints_both_windows() -> None:
    out = subprocess.run([sys.executable, str(BENCH), "--entrants", "3", "--seconds", "2",
                          "--pace", "full", "--servers", "2"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {line.split("|")[1].strip(): line for line in out.stdout.splitlines()
            if line.startswith("| plain |") or line.startswith("| arena |")}
    assert set(rows) == {"plain", "arena"}
    assert int(rows["arena"].split("|")[2]) > 0  # moves were played in the arena
    assert "arena/plain: server CPU per move" in out.stdout
    assert "3 players on 2 server process(es)" in out.stdout
