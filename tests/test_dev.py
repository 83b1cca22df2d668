"""Issue 10, item 1: after ``python3 dev.py serve``/``test`` the client is not on PATH, so
``dev.py`` says where it is and runs it (``python3 dev.py solrace …``); the README says so."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)  # the tests run inside the venv dev.py made

pytestmark = pytest.mark.skipif(not (VENV / "bin" / "solrace").exists(),
                                reason="needs the solrace console script of a venv")


def dev(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOLRACE_VENV": str(VENV)}
    return subprocess.run([sys.executable, str(ROOT / "dev.py"), *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)


def test_dev_py_runs_the_client() -> None:
    done = dev("solrace", "variants")
    assert done.returncode == 0, done.stderr
    assert "unlimited" in done.stdout and "forty-and-eight" in done.stdout


def test_dev_py_says_where_the_client_is() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    hint = mod.client_hint()
    assert "solrace" in hint and "not on PATH" in hint and "dev.py solrace" in hint
    assert "dev.py solrace" in dev().stdout  # the usage lists the passthrough


def test_readme_says_how_to_reach_the_client() -> None:
    readme = (ROOT / "README.md").read_text()
    playing = readme.split("## Playing", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/solrace" in playing and "python3 dev.py solrace" in playing
    assert "not on PATH" in playing
