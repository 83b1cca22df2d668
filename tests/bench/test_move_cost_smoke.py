"""``bench/move_cost.py --smoke`` as CI runs it, so the per-move benchmark never rots: every row
and step is measured and positive (the sizes depend on the machine), and a run against another
copy of the shared package (``--shared``) measures that copy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = ROOT / "bench" / "move_cost.py"
ROWS = ("sixes-and-sevens", "seven-by-five", "double-aces-and-kings", "unlimited",
        "forty-and-eight", "loadgen")


def _table(*args: str) -> tuple[str, dict[str, list[float]]]:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--smoke", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("variant"))
    assert lines[head].split()[2:] == ["decode", "push", "status", "view", "event", "legal",
                                       "ack", "rival", "total", "mask"]
    rows = {}
    for line in lines[head + 1:]:
        label, *cells = line.split()
        rows[label] = [float(c.replace(",", "")) for c in cells]
    return proc.stdout, rows


def test_every_row_and_step_is_measured(tmp_path: Path) -> None:
    out, rows = _table()
    assert tuple(rows) == ROWS
    for label, (moves, *steps) in rows.items():
        assert moves > 0, label
        assert all(t > 0 for t in steps), (label, steps)
        total = steps[8]
        assert abs(total - sum(steps[:8])) <= 0.1 * 8, (label, steps)  # rounding only
    copy = tmp_path / "shared"
    shutil.copytree(ROOT / "shared", copy, ignore=shutil.ignore_patterns("__pycache__"))
    out, rows = _table("--shared", str(copy), "--variants", "unlimited")
    assert f"shared: {copy}" in out and tuple(rows) == ("unlimited",)
