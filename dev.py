#!/usr/bin/env python3
"""Set-up and everyday commands, needing nothing but Python 3.11+.

    python3 dev.py serve [server flags]   start a solrace server (embedded Redis if no URL)
    python3 dev.py test [pytest args]     install into .venv, lint, run the whole test suite
    python3 dev.py solrace [args]         run the client, .venv/bin/solrace (not on PATH)

The virtual environment lives in ``.venv``; solrace is installed into it in editable mode, which
compiles its hot modules (Cython) and the solver's C cores in place when a C compiler is here
(``setup.py``; the first time one to two minutes, later only what changed) and installs it pure
Python otherwise. It is installed again whenever ``pyproject.toml``, ``setup.py`` or the source
of a compiled part changes. ``SOLRACE_COMPILED=python`` runs everything from source. Debian splits
``ensurepip`` out of Python into the ``python3.X-venv`` package: when it is missing and we run
as root, it is installed with apt-get; otherwise the command says exactly what to install.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("SOLRACE_VENV", ROOT / ".venv"))
BIN = VENV / "bin"
PY = BIN / "python"
STAMP = VENV / ".solrace-installed"


def _run(*cmd: object, **kw: object) -> None:
    subprocess.run([str(c) for c in cmd], check=True, **kw)  # type: ignore[arg-type]


def _install_venv_support() -> None:
    """Debian's ``python3.X-venv`` carries ensurepip; install it when we may."""
    pkg = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise SystemExit(f"dev.py: Python lacks ensurepip; install it first: apt-get install {pkg}")
    print(f"dev.py: installing {pkg} (ensurepip) with apt-get", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run("apt-get", "update", "-q", env=env)
    _run("apt-get", "install", "-y", "-q", pkg, env=env)


def _install_key() -> str:
    """What an install depends on: the project's settings and every compiled part's source
    (listed in shared/accel.py, read here by its path); a change to any of them means
    installing again."""
    spec = importlib.util.spec_from_file_location("_solrace_accel", ROOT / "shared" / "accel.py")
    assert spec is not None and spec.loader is not None
    accel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(accel)
    files = [Path("pyproject.toml"), Path("setup.py"), Path("shared", "accel.py"),
             *(Path(*n.split(".")[1:]).with_suffix(".py") for n in accel.MODULES),
             *(Path("shared", "solver", f"{c}.c") for c in accel.CORES),
             Path("shared", "solver", accel.CORE_ENTRY)]
    h = hashlib.sha256()
    for f in files:
        h.update(f.as_posix().encode() + b"\0" + (ROOT / f).read_bytes() + b"\0")
    return h.hexdigest()


def ensure_env() -> None:
    if not PY.exists():
        print(f"dev.py: creating {VENV}", flush=True)
        try:
            import ensurepip  # noqa: F401
        except ImportError:
            _install_venv_support()
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    want = _install_key()
    if not STAMP.exists() or STAMP.read_text() != want:
        print("dev.py: installing solrace and its test tools (compiling its hot modules and "
              "solver cores when a C compiler is here; SOLRACE_COMPILED=python runs from source)",
              flush=True)
        _run(PY, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", f"{ROOT}[test]")
        STAMP.write_text(want)


def choose_compiled() -> None:
    """After an install that compiled every hot module, set ``SOLRACE_COMPILED=require`` for
    the child (unless the caller chose a mode): a module that failed to load compiled then
    fails loudly instead of quietly running slower, and the test suite proves it runs the
    compiled modules."""
    if os.environ.get("SOLRACE_COMPILED"):
        return
    check = [str(PY), "-m", "solrace.shared.accelstatus", "--check"]
    if subprocess.run(check, stdout=subprocess.DEVNULL).returncode == 0:
        os.environ["SOLRACE_COMPILED"] = "require"


def client_hint() -> str:
    """How to reach the client: the venv's ``bin`` is not on PATH after ``dev.py``."""
    exe = BIN / "solrace"
    try:
        shown = exe.relative_to(Path.cwd())
    except ValueError:
        shown = exe
    return (f"dev.py: the client is {shown} (not on PATH): run '{shown} variants', "
            f"'python3 {Path(__file__).name} solrace variants', or put {BIN} on PATH")


COMMANDS = ("serve", "test", "solrace")  # the usage above describes each


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 2
    ensure_env()
    cmd, rest = argv[0], argv[1:]
    if cmd == "solrace":
        exe = BIN / "solrace"
        os.execv(str(exe), [str(exe), *rest])
    choose_compiled()
    if cmd == "serve":
        print(client_hint(), flush=True)
        os.execv(str(PY), [str(PY), "-m", "solrace.server", *rest])
    _run(PY, "-m", "ruff", "check", ROOT, cwd=ROOT)
    code = subprocess.run([str(PY), "-m", "pytest", *rest], cwd=ROOT).returncode
    print(client_hint(), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
