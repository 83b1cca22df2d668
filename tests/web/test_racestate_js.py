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
