"""The browser's race fold (client/web/pages/racestate.js) and the verdict it shows after a
race: node runs the page's own module on event lists as the server sends them (docs/protocol.md
7.1) — an ``end`` with a pending verdict then the ``verdict`` event, an ``end`` carrying the
final verdict, a server without verdicts — and on a summary that already has one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None and os.environ.get("CI") != "true", reason="node is not installed")

SUMMARY = {"race": "r1", "variant": "unlimited", "options": {}, "seats": 2, "state": "running",
           "racers": [], "kind": "race"}
END = {"k": "end", "v": 9, "reason": "done", "standings": []}
CASES = {
    "pending then verdict": (SUMMARY, [{**END, "verdict": {"outcome": "pending"}},
                                       {"k": "verdict", "v": 10,
                                        "verdict": {"outcome": "lost", "nodes": 51}}]),
    "pending only": (SUMMARY, [{**END, "verdict": {"outcome": "pending"}}]),
    "certified at the end": ({**SUMMARY, "winnable": True},
                             [{**END, "verdict": {"outcome": "won", "par": 97,
                                                  "certified": True}}]),
    "no verdicts": (SUMMARY, [END]),
    "stored in the summary": ({**SUMMARY, "state": "finished",
                               "verdict": {"outcome": "unknown", "nodes": 50000,
                                           "budget": 50000}}, []),
}


def run_fold() -> dict[str, list[object]]:
    assert NODE is not None
    script = (
        "import { fold, verdictText } from './client/web/pages/racestate.js';\n"
        "const cases = JSON.parse(process.argv[1]);\n"
        "const out = {};\n"
        "for (const [name, [summary, events]] of Object.entries(cases)) {\n"
        "  const s = fold(summary, events);\n"
        "  out[name] = [s.state, s.winnable, s.verdict, verdictText(s.verdict)];\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    proc = subprocess.run([NODE, "--input-type=module", "-e", script, json.dumps(CASES)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_fold_keeps_the_last_word_on_the_deal() -> None:
    got = run_fold()
    assert got["pending then verdict"] == [
        "finished", False, {"outcome": "lost", "nodes": 51},
        "Solver: this deal was proved lost — no sequence of moves wins it."]
    assert got["pending only"][2:] == [{"outcome": "pending"}, "Solver: checking this deal…"]
    assert got["certified at the end"] == [
        "finished", True, {"outcome": "won", "par": 97, "certified": True},
        "Solver: this deal was winnable in 97 moves (a certified deal)."]
    assert got["no verdicts"][2:] == [None, None]
    assert got["stored in the summary"][3] == "Solver: undecided within 50000 positions searched."


RACERS = {**SUMMARY, "racers": [{"player": "a", "name": "ann"}, {"player": "b", "name": "bo"},
                                 {"player": "c", "name": "cy"}]}
START = {"k": "start", "v": 1, "started_at": 0, "ends_at": 600_000,
         "view": {"home": 0, "total": 52}}


def progress(v: int, who: str, home: int, moves: int, elapsed: int, **extra: object) -> dict:
    return {"k": "progress", "v": v, "player": who, "home": home, "moves": moves,
            "elapsed": elapsed, **extra}


LIVE = {
    "before any move": [START],
    "more moves leads while no card is home": [START, progress(2, "b", 0, 1, 900)],
    "level: the seat does not make a leader": [START, progress(2, "a", 0, 1, 900),
                                               progress(3, "b", 0, 1, 950)],
    "a card home beats moves": [START, progress(2, "a", 0, 5, 900),
                                progress(3, "c", 1, 1, 1000)],
    "who got them home first": [START, progress(2, "b", 1, 2, 2000),
                                progress(3, "a", 1, 1, 3000), progress(4, "b", 1, 9, 4000)],
    "taken back and home again: the later move counts": [
        START, progress(2, "c", 1, 1, 1000), progress(3, "c", 0, 2, 1500),
        progress(4, "a", 1, 1, 1800), progress(5, "c", 1, 3, 2500)],
    "a winner first, whatever is home": [START, progress(2, "a", 40, 90, 50_000),
                                         progress(3, "b", 52, 120, 90_000, result="won")],
}


def run_live() -> dict[str, list[object]]:
    assert NODE is not None
    script = (
        "import { fold, leader, liveStandings } from './client/web/pages/racestate.js';\n"
        "const [summary, cases] = JSON.parse(process.argv[1]);\n"
        "const out = {};\n"
        "for (const [name, events] of Object.entries(cases)) {\n"
        "  const s = fold(summary, events);\n"
        "  out[name] = [leader(s), liveStandings(s).map((r) => [r.player, r.progress_at])];\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    proc = subprocess.run([NODE, "--input-type=module", "-e", script,
                           json.dumps([RACERS, LIVE])],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_who_leads_by_the_standings_rule_while_the_race_runs() -> None:
    """Section 11's order on the progress so far: winners by time; then more cards home,
    earlier last gain (progress_at), more moves; seats only order — they never make a leader."""
    got = run_live()
    assert got["before any move"][0] is None
    assert got["more moves leads while no card is home"][0] == "b"
    assert got["level: the seat does not make a leader"][0] is None
    assert got["a card home beats moves"][0] == "c"
    assert got["who got them home first"] == ["b", [["b", 2000], ["a", 3000], ["c", None]]]
    # c's card went home at 1 s, back at 1.5 s, home again at 2.5 s: the last gain is 2.5 s
    assert got["taken back and home again: the later move counts"][1][:2] == [["a", 1800],
                                                                         ["c", 2500]]
    assert got["a winner first, whatever is home"][0] == "b"
