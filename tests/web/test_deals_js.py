"""The browser's deal verifier (client/web/deals.js) is a second implementation of
docs/deals.md: node's own test runner checks it against the document's vectors, and here its
deals are compared with the Python engine's on seeds and options the vectors do not cover.
Every ES module of the page must also parse (``node --check``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from solrace.shared.engine import Game
from solrace.shared.prng import commitment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None and os.environ.get("CI") != "true", reason="node is not installed")


def test_node_test_runner_passes_on_the_documented_vectors() -> None:
    assert NODE is not None, "CI needs node for the JavaScript deal verifier"
    proc = subprocess.run([NODE, "--test", str(HERE / "deals.test.mjs")], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout and "# pass 20" in proc.stdout, proc.stdout


CASES = [
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}, 12345678901234567890),
    ("unlimited", {"draw": "3", "foundation_takeback": "no"}, 2**63 + 7),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}, 99),
    ("sixes-and-sevens", {"empty_fill": "manual"}, 2**64 - 2),
    ("forty-and-eight", {"foundation_takeback": "yes"}, 31337),
]


def test_javascript_deals_equal_the_engine_on_other_options_and_seeds() -> None:
    assert NODE is not None
    script = (
        "import { positionText, commitment } from './client/web/deals.js';\n"
        "const cases = JSON.parse(process.argv[1]);\n"
        "const out = [];\n"
        "for (const [v, o, s] of cases) out.push([await positionText(s, v, o), "
        "await commitment(s)]);\n"
        "console.log(JSON.stringify(out));\n"
    )
    args = json.dumps([[v, o, str(s)] for v, o, s in CASES])
    proc = subprocess.run([NODE, "--input-type=module", "-e", script, args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    for (variant, options, seed), (text, digest) in zip(CASES, got, strict=True):
        game = Game(variant, options, seed)
        assert text == game.position_text(), (variant, options, seed)
        assert digest == commitment(seed)


def test_every_browser_module_parses() -> None:
    """``node --check`` on every ES module of the page (a syntax error would only show in a
    browser's console otherwise)."""
    assert NODE is not None
    for path in sorted((ROOT / "client" / "web").rglob("*.js")):
        proc = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True,
                              timeout=30)
        assert proc.returncode == 0, f"{path.name}: {proc.stderr}"
