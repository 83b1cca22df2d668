"""Without a browser the browser tests skip on a developer's machine and FAIL in CI: a
browser test that silently skips in CI would test nothing (checked by running pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOLRACE_CHROMIUM": "/nonexistent/chromium", "CI": ci}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/web/test_browser.py", "-k", "masked"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_no_browser_fails_in_ci() -> None:
    proc = run("true")
    assert proc.returncode != 0, proc.stdout
    assert "browser tests must run in CI" in proc.stdout


def test_no_browser_skips_elsewhere() -> None:
    proc = run("")
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout
