"""The server benchmark's smoke mode, run as CI runs it, so the harness never rots.

``bench/server.py --smoke`` starts an echo server, a private Redis, the solrace server and its
load generators, plays real races for about a second per row and prints the report. The
figures depend on the machine, so this checks their sanity, not their size: every row measured
something, no move was refused (an illegal or stale move would mean the load generator's
engine replica and the server disagree), latencies are ordered, costs are positive, and the
printed tables carry the rows the JSON has.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from solrace.server.ops.config import DEFAULT_LOOP

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "server.py"


def _run_smoke(tmp_path: Path) -> tuple[str, dict]:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke", "--json", str(out)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    return proc.stdout, json.loads(out.read_text())


def _sane_window(m: dict, *, pipeline: bool) -> None:
    where = f"{m['target']} N={m['n']} x{m['servers']}"
    assert m["count"] > 0, f"{where}: nothing measured"
    assert m["rate"] > 0, where
    assert m["errors"] == {}, f"{where}: refused requests {m['errors']}"
    assert 0 < m["p50"] <= m["p99"] <= m["max"], f"{where}: latencies {m}"
    assert m["max"] < 10_000, f"{where}: a reply took {m['max']} ms"
    assert m["loadgen_cpu"] > 0, f"{where}: load generator CPU not measured"
    if pipeline:
        # Every acknowledged move was appended in Redis: at least one command per move.
        assert m["cmds_per"] >= 1, f"{where}: {m['cmds_per']} Redis commands per move"
        # Each move fans out: the mover's ack, then a progress event for the rival (a few
        # events still in flight when the window closes are not counted, hence not 2). With
        # batch frames (the default) several messages share a frame: at least the ack's.
        assert m["msgs_per"] >= 1.5, f"{where}: {m['msgs_per']} messages per move"
        assert 1 <= m["frames_per"] <= m["msgs_per"], f"{where}: {m['frames_per']} frames"
        assert m["redis_cpu"] >= 0 and math.isfinite(m["server_us"]), where


def test_smoke_mode_runs_and_reports_sane_figures(tmp_path: Path) -> None:
    stdout, report = _run_smoke(tmp_path)

    rows = report["rows"]
    assert [r["solrace"]["n"] for r in rows] == [1, 10]
    for row in rows:
        _sane_window(row["echo"], pipeline=False)
        _sane_window(row["solrace"], pipeline=True)
        assert row["solrace"]["n"] == row["echo"]["n"]

    one, two, homed = report["processes"]
    assert (one["servers"], two["servers"], homed["servers"]) == (1, 2, 2)
    for m in (one, two, homed):
        _sane_window(m, pipeline=True)
    for m in (two, homed):
        assert len(m["server_cpu"]) == 2 and all(c > 0 for c in m["server_cpu"])
    # Race homes: every joiner landed on the process that did not create its race, and the
    # race-affine row moved each of them there (N=10: 5 races); the other row moved none.
    assert (two["affine"], two["moved"]) == (False, 0)
    assert (homed["affine"], homed["moved"]) == (True, 5)

    memory = {m["target"]: m for m in report["memory"]}
    assert set(memory) == {"echo", "solrace"}
    for m in memory.values():
        assert m["conns"] == 50 and m["before"] > 0 and m["after"] > 0

    # The printed report has the machine header and one table line per measured N.
    assert "machine: cpu " in stdout and "websockets" in stdout
    # echo and the servers on one event loop, by default the server's (uvloop where it can be
    # imported): the ratio compares like with like
    assert report["machine"]["loop"] == f"{DEFAULT_LOOP} (servers and echo)"
    assert "| N | echo msg/s | solrace moves/s |" in stdout
    for row in rows:
        n, rate = row["solrace"]["n"], row["solrace"]["rate"]
        assert f"| {n} | " in stdout and f"{rate:,.0f}" in stdout
    assert "## 1 vs 2 server processes" in stdout
    assert "## Memory per idle connection" in stdout
