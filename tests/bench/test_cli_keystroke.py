"""``solrace practice`` at a (pseudo-)terminal, through ``bench/cli_keystroke.py``: the benchmark
runs and times every keystroke, and the prompt behaves as a player needs it to — a half-typed
move stays on screen while the clocks tick — also on a terminal shorter than the frame, where
the clock waits for the next real change rather than wipe the typed text — Ctrl-D is end of
input, ``quit`` exits."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # cli_keystroke imports its sibling children
import cli_keystroke  # noqa: E402


def test_the_benchmark_times_every_keystroke(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    proc = subprocess.run([sys.executable, str(BENCH / "cli_keystroke.py"), "--keys", "3",
                           "--rounds", "1", "--gap", "0.05", "--json", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "median ms" in proc.stdout
    [row] = json.loads(out.read_text())
    assert row["label"] == "this tree" and row["keys"] == 3
    assert 0 < row["median_ms"] <= row["p95_ms"] <= row["max_ms"]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with cli_keystroke.serving(tmp_path_factory.mktemp("serve")) as url:
        yield url


def _last_line(term: cli_keystroke.Terminal) -> str:
    return term.text().splitlines()[-1]


@pytest.mark.parametrize("rows", [50, 24])
def test_typing_survives_redraws(url: str, tmp_path: Path, rows: int) -> None:
    term = cli_keystroke.practice(url, tmp_path, f"tty{rows}", rows=rows)
    try:
        term.type("s\r")
        term.until(lambda: term.moves() == 1, 10)
        term.type("t1")
        term.drain(1.5)  # the clocks tick: the frame is redrawn at least once
        assert "elapsed" in term.text()
        assert _last_line(term) == "move> t1"
        term.type("\x15quit\r")  # Ctrl-U empties the line
        term.drain(0.5)
        assert term.proc.wait(10) == 0
        assert "your seat and game stay open" in term.text()
    finally:
        term.close()


def test_ctrl_d_is_end_of_input(url: str, tmp_path: Path) -> None:
    term = cli_keystroke.practice(url, tmp_path, "ttyeof")
    try:
        term.type("\x04")
        term.until(lambda: "end of input: watching until the race ends" in term.text(), 10)
        assert term.proc.poll() is None  # still watching the race
    finally:
        term.close()
