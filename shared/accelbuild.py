"""Builds the compiled copies of the hot modules that :mod:`solrace.shared.accel` loads.

``python -m solrace.shared.accelbuild`` compiles every listed module (``accel.MODULES``) that
has no current build, in parallel, with Cython (pure-Python mode: the ``.py`` files as they
are) and the system's C compiler, into the cache directory; ``--status`` lists which modules
have a current build. When it cannot build (no Cython, no compiler, no ``Python.h``,
``SOLRACE_COMPILED=python``) it says why and exits 0: the modules then run from source. It
runs in its own process (``dev.py`` starts it before the server or the tests), so the process
that imports the modules never compiles anything.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from solrace.shared.accel import (
    CFLAGS,
    DIRECTIVES,
    ENV,
    MODULES,
    cache_dir,
    compiled_path,
    key,
    mode,
)


def compilers() -> list[str]:
    names = [os.environ["CC"]] if os.environ.get("CC") else []
    names += ["cc", "gcc", "clang"]
    return [p for p in dict.fromkeys(shutil.which(n) or "" for n in names) if p]


def missing_tools() -> str | None:
    """Why nothing can be built here, or ``None`` when Cython, a compiler and headers exist."""
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed"
    if not compilers():
        return "no C compiler found (cc, gcc, clang or $CC)"
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return f"no Python.h in {include} (Debian: apt-get install python3-dev)"
    return None


def source_of(name: str) -> Path:
    spec = importlib.machinery.PathFinder.find_spec(
        name, [str(Path(__file__).resolve().parent.parent / p) for p in _package_dir(name)])
    if spec is None or not spec.origin:
        raise ImportError(f"no source for {name}")
    return Path(spec.origin)


def _package_dir(name: str) -> list[str]:
    """The folders (relative to the repository) holding ``name``'s ``.py``."""
    parts = name.split(".")
    top = {"shared": "shared", "server": "server"}[parts[1]]
    return [os.path.join(top, *parts[2:-1])]


def build_one(name: str, source: Path, where: Path, cc: str) -> Path:
    """Cythonize ``source`` as module ``name`` and compile it into ``where`` (atomically)."""
    target = where / key(name, source.read_bytes())
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        c_file = Path(tmp) / (name.rsplit(".", 1)[-1] + ".c")
        so_file = Path(tmp) / target.name
        cmd = [sys.executable, "-m", "cython", "-3", "--module-name", name,
               *(x for k, v in DIRECTIVES.items() for x in ("-X", f"{k}={v}")),
               "-o", str(c_file), str(source)]
        _check(subprocess.run(cmd, capture_output=True, text=True), name)
        include = sysconfig.get_paths()["include"]
        cmd = [cc, *CFLAGS, f"-I{include}", "-o", str(so_file), str(c_file)]
        _check(subprocess.run(cmd, capture_output=True, text=True), name)
        os.replace(so_file, target)  # atomic: concurrent builders agree
    return target


def _check(run: subprocess.CompletedProcess[str], name: str) -> None:
    if run.returncode != 0:
        raise RuntimeError(f"building {name} failed: {(run.stderr or run.stdout).strip()[-800:]}")


def build(names: Iterable[str] = MODULES, where: Path | None = None, jobs: int | None = None,
          ) -> tuple[list[str], str | None]:
    """Build every listed module that has no current build; returns (built names, why not)."""
    if mode() == "python":
        return [], f"{ENV}=python"
    why = missing_tools()
    if why:
        return [], why
    where = where or cache_dir()
    where.mkdir(parents=True, exist_ok=True)
    todo = [(n, source_of(n)) for n in names]
    todo = [(n, s) for n, s in todo if compiled_path(n, s, where) is None]
    cc = compilers()[0]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        list(pool.map(lambda ns: build_one(ns[0], ns[1], where, cc), todo))
    return [n for n, _ in todo], None


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m solrace.shared.accelbuild",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="only these (default: every listed module)")
    ap.add_argument("--status", action="store_true", help="list the builds, build nothing")
    ap.add_argument("--dir", type=Path, help=f"the cache (default {cache_dir()})")
    ap.add_argument("--jobs", type=int, help="compilers at once (default: the CPU count)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when nothing can be built or a build fails")
    args = ap.parse_args(argv)
    names = args.modules or list(MODULES)
    if args.status:
        for n in names:
            print(f"{n}: {compiled_path(n, source_of(n), args.dir) or 'source (no current build)'}")
        return 0
    try:
        built, why = build(names, args.dir, args.jobs)
    except RuntimeError as e:
        print(f"solrace: compiled modules not built ({e}); running from source", file=sys.stderr)
        return 1 if args.strict else 0
    if why:
        print(f"solrace: compiled modules off ({why}); running from source", file=sys.stderr)
        return 1 if args.strict else 0
    if built:
        print(f"solrace: compiled {len(built)} module(s) into {args.dir or cache_dir()}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
