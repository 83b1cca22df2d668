"""Compiled copies of the hot pure-Python modules (Cython), used only when they match the source.

Why: the server is one process on one core, and most of its CPU per move is Python bytecode in
``shared/`` (engine, views, protocol) and on the server's move path. Cython compiles those same
``.py`` files, unchanged, to C extension modules that run the same code without the bytecode
interpreter's dispatch. They are an accelerator, never a requirement: on a machine with only
Python 3.11 (no C compiler, no ``Python.h``) everything runs from the ``.py`` files.
A few hot functions carry Cython's pure-Python declarations (``@cython.locals``: the C types
of their locals, e.g. ``Game._legal``, ``views.advance``); the ``.py`` ignores them (without
Cython it imports ``shared/nocython.py``, whose declarations are no-ops), and each declared
local holds exactly that type, so both forms compute the same (docs/performance.md,
"Compiled hot modules").

How they are built: when solrace is installed (``setup.py``: every listed module is an optional
setuptools extension, cythonized from its ``.py``; the solver's C cores, ``CORES``, likewise).
A wheel carries them beside the ``.py`` files; an editable install (``pip install -e``, what
``dev.py`` does) puts them into the source folders. Without a compiler the install still
succeeds, with nothing compiled. Nothing compiles at import or at run time.

How staleness is ruled out: Python's own import prefers an extension module to the ``.py``
beside it, edited source or not. So the build also writes ``compiled.json`` (``MANIFEST``,
beside this file): for each part it built, a hash of the exact source bytes and settings
(:func:`key`). The import hook (:class:`Finder`, installed by ``solrace.shared`` and
``solrace.server`` before any listed module is imported) answers for every listed module: its
compiled file when the manifest's hash matches the ``.py`` as it is now, else the ``.py``
itself. Edit a module of an editable install and it runs from source until the next install
(``dev.py`` reinstalls when a compiled part's source changed).

Switches (environment):

* ``SOLRACE_COMPILED=python``: never load a compiled module.
* ``SOLRACE_COMPILED=require``: a listed module without a current build raises ImportError.

``python -m solrace.shared.accelstatus`` lists which parts have a current build.
This module imports nothing from ``solrace`` (``setup.py`` loads it by its path).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

ENV = "SOLRACE_COMPILED"

# The modules compiled: the sans-I/O move path, the solver's Python search (the variants without
# a C core: hints and verdicts), and the server's synchronous per-move helpers.
# Every one passes the whole suite compiled (tests monkeypatch module globals, which compiled
# code reads at call time as the interpreter does). The server's async modules (connection,
# races, hub, feed, store/moves, store/batch, handlers/play) are left out on purpose: compiled,
# they cost the server more CPU per move, not less (Cython's coroutines resume from asyncio's
# Task through a slower path than native ones: a future awaited costs about 1 µs more;
# docs/performance.md, "Compiled hot modules").
SHARED = (
    "cards", "notation", "engine", "status", "views", "pointing", "masking",
    "protocol.wire", "protocol.requests", "protocol.accounts", "protocol.messages",
    "protocol.frames", "jsonwire",
    "solver.search", "solver.searcher", "solver.coreportfolio", "solver.moves",
    "solver.canonical", "solver.safe_moves", "solver.stock", "solver.poporder",
    "variants.unlimited", "variants.double_aces_and_kings", "variants.forty_and_eight",
    "variants.seven_by_five", "variants.sixes_and_sevens",
)
SERVER = ("session.outbox", "store.resp", "store.records")
MODULES: tuple[str, ...] = (
    *(f"solrace.shared.{m}" for m in SHARED),
    *(f"solrace.server.{m}" for m in SERVER),
)
# The solver's C cores (shared/solver/NAME.c, loaded by ctypes: solver/fastcore.py), each built
# with CORE_ENTRY as the extension module ``solrace.shared.solver._NAME``.
CORES = ("klondike", "onepass", "fortyeight")
CORE_ENTRY = "coremodule.c"

# What the build does, part of every module's key: a change here rebuilds everything.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
MANIFEST = Path(__file__).with_name("compiled.json")

loaded: dict[str, str] = {}  # module name -> the compiled file it was loaded from


def mode() -> str:
    return os.environ.get(ENV, "").strip().lower()


def key(name: str, sources: Iterable[bytes]) -> str:
    """The hash the manifest records for ``name`` built from ``sources`` (their bytes): any
    change to a source or to the settings gives another."""
    h = hashlib.sha256(f"{name}\0{DIRECTIVES!r}\0".encode())
    for source in sources:
        h.update(source + b"\0")
    return h.hexdigest()


def read_manifest(manifest: Path | None = None) -> dict[str, str]:
    """The build's manifest (name -> :func:`key`), empty when nothing was built."""
    try:
        data = json.loads((manifest or MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def built_file(name: str, folder: Path) -> Path:
    """Where the build puts extension module ``name`` whose package lives in ``folder``."""
    return folder / (name.rpartition(".")[2] + SUFFIX)


def compiled_path(name: str, sources: Sequence[Path], manifest: Path | None = None
                  ) -> Path | None:
    """The current build of ``name`` (beside ``sources[0]``), or ``None`` when there is none
    or it was built from other sources than these."""
    built = built_file(name, sources[0].parent)
    if not built.is_file():
        return None
    try:
        want = key(name, (s.read_bytes() for s in sources))
    except OSError:
        return None
    return built if read_manifest(manifest).get(name) == want else None


def _source(fullname: str, path: Sequence[str] | None) -> Path | None:
    tail = fullname.rpartition(".")[2] + ".py"
    for entry in sys.path if path is None else path:
        candidate = Path(entry or ".", tail)
        if candidate.is_file():
            return candidate
    return None


class Finder(importlib.abc.MetaPathFinder):
    """Answers for the listed modules only: with the build that matches their source, else
    with the ``.py`` itself (never a stale build beside it); for anything else the ordinary
    import goes on."""

    def __init__(self, names: Iterable[str], manifest: Path | None = None) -> None:
        self.names = frozenset(names)
        self.manifest = manifest

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        source = _source(fullname, path)
        if source is None:
            return None
        source_spec = importlib.util.spec_from_file_location(fullname, source)
        if mode() == "python":
            return source_spec
        built = compiled_path(fullname, [source], self.manifest)
        if built is None:
            if mode() == "require":
                raise ImportError(f"{ENV}=require but {fullname} has no current compiled "
                                  f"build (reinstall solrace with a C compiler)", name=fullname)
            return source_spec
        loader = _Loader(fullname, str(built))
        spec = importlib.util.spec_from_file_location(fullname, built, loader=loader)
        try:  # open it now: a build that does not load falls back to the source import
            loader.module = loader.ext.create_module(spec)
        except (ImportError, OSError) as e:
            if mode() == "require":
                raise
            warnings.warn(f"{fullname}: the compiled build {built} does not load ({e}); "
                          f"running from source", RuntimeWarning, stacklevel=2)
            return source_spec
        loaded[fullname] = str(built)
        return spec


class _Loader(importlib.abc.Loader):
    """The extension loader, with the module already created by :meth:`Finder.find_spec`."""

    def __init__(self, name: str, path: str) -> None:
        self.ext = importlib.machinery.ExtensionFileLoader(name, path)
        self.module: types.ModuleType | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        module, self.module = self.module, None
        return module if module is not None else self.ext.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.ext.exec_module(module)


def summary() -> str:
    """One line for the server's log: which listed modules run compiled, which from source."""
    if mode() == "python":
        return f"off ({ENV}=python): every module runs from source"
    imported = [n for n in MODULES if n in sys.modules]
    source = [n.removeprefix("solrace.") for n in imported if n not in loaded]
    line = f"{len(loaded)} of {len(imported)} imported hot modules compiled"
    if source:
        line += f"; from source (no current build): {', '.join(source)}"
    return line


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once). It stays there under
    ``SOLRACE_COMPILED=python`` too: it is what keeps a build beside a ``.py`` from loading."""
    if not any(isinstance(f, Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, Finder(MODULES))


if __name__ == "solrace.shared.accel":  # imported by solrace.shared and solrace.server first
    install()  # (not when setup.py loads this file by its path)
