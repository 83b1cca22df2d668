"""Which compiled parts this installation has: ``python -m solrace.shared.accelstatus``.

Lists every hot module (``accel.MODULES``) and solver core (``accel.CORES``) with its current
build, or why it runs from source (not built at install; built from another source since
edited). ``--check`` prints nothing and exits 1 unless every part has a current build (dev.py
uses it to choose ``SOLRACE_COMPILED=require``). Building is installing: ``pip install -e .``
(or ``pip install .``) compiles whatever it can (setup.py).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from solrace.shared import accel


def sources(name: str) -> list[Path]:
    """The source files of the compiled part ``name``, as this installation has them."""
    package, _, tail = name.rpartition(".")
    folder = Path(importlib.import_module(package).__path__[0])
    if tail.startswith("_") and tail[1:] in accel.CORES:
        return [folder / f"{tail[1:]}.c", folder / accel.CORE_ENTRY]
    return [folder / f"{tail}.py"]


def parts() -> list[str]:
    return [*accel.MODULES, *(f"solrace.shared.solver._{c}" for c in accel.CORES)]


def status() -> dict[str, Path | None]:
    """Each compiled part -> its current build, or ``None``."""
    return {n: accel.compiled_path(n, sources(n)) for n in parts()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m solrace.shared.accelstatus",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="print nothing; exit 1 unless every part has a current build")
    args = ap.parse_args(argv)
    found = status()
    if args.check:
        return 0 if all(found.values()) else 1
    for name, built in found.items():
        if built is not None:
            print(f"{name}: {built}")
            continue
        there = accel.built_file(name, sources(name)[0].parent).is_file()
        print(f"{name}: source ({'its build is of an older source' if there else 'not built'})")
    done = sum(p is not None for p in found.values())
    print(f"{done} of {len(found)} compiled parts current (SOLRACE_COMPILED="
          f"{accel.mode() or 'unset'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
