"""bench/fairplay.py in a tiny run, so the harness never rots: it prints its table and the two
ends of the scale keep their meaning (the instant bot held on its first game, the synthetic
humans and honest rivals never in that run, the win-trading pair by its fifth race)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "fairplay.py"


def test_fairplay_bench_runs_and_separates_the_extremes(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--deals", "1", "--accounts", "4", "--games", "5",
         "--lines", "2", "--json", str(out)], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| attacker | held within 1 | held within 5 |" in proc.stdout
    rows = {r["attacker"]: r for r in json.loads(out.read_text())}
    assert rows["instant solver bot"]["held_within_1"] == 1.0
    assert rows["paced solver bot"]["held_within_1"] == 1.0
    assert rows["synthetic human"]["games_held"] == 0.0
    assert rows["win-trading pair"]["held_within_5"] == 1.0  # the feeder's 5th thrown race
    assert rows["honest rivals"]["games_held"] == 0.0
    assert all(r["cpu_ms"] > 0 for r in rows.values())
    assert rows["instant solver bot"]["analysis_s"] > 0  # its won line was analysed
