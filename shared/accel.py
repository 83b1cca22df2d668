"""Compiled copies of the hot pure-Python modules (Cython), used only when they match the source.

Why: the server is one process on one core, and most of its CPU per move is Python bytecode in
``shared/`` (engine, views, protocol) and on the server's move path. Cython compiles those same
``.py`` files, unchanged, to C extension modules that run the same code without the bytecode
interpreter's dispatch. They are an accelerator, never a requirement: on a machine with only
Python 3.11 (no C compiler, no ``Python.h``, no Cython) everything runs from the ``.py`` files.
A few hot functions carry Cython's pure-Python declarations (``@cython.locals``: the C types
of their locals, e.g. ``Game._legal``, ``views.advance``); the ``.py`` ignores them (without
Cython it imports ``shared/nocython.py``, whose declarations are no-ops), and each declared
local holds exactly that type, so both forms compute the same (docs/performance.md,
"Compiled hot modules").

How staleness is ruled out: a compiled module is never put next to its ``.py`` (Python would
prefer it there, edited source or not). It is built into a cache directory under a name that
carries a hash of the exact source bytes, the Python build and the compile settings
(:func:`key`), and the import hook (:class:`Finder`, installed by ``solrace.shared`` and
``solrace.server`` before any listed module is imported) loads it only when the hash of the
``.py`` as it is now names an existing file. Edit a module and its old build simply no longer
matches: that module runs from source until the next build. Building is a separate step
(``python -m solrace.shared.accelbuild``, run by ``dev.py serve`` and ``dev.py test``), never
done by an import, so a server never stalls compiling on start.

Switches (environment):

* ``SOLRACE_COMPILED=python``: never load a compiled module (and ``build`` does nothing).
* ``SOLRACE_COMPILED=require``: a listed module without a current build raises ImportError.
* ``SOLRACE_COMPILED_DIR=DIR``: the cache (default ``$XDG_CACHE_HOME/solrace/compiled``, else
  ``~/.cache/solrace/compiled``).

This module imports nothing from ``solrace``: it must run before any of it.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
import types
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

ENV = "SOLRACE_COMPILED"
DIR_ENV = "SOLRACE_COMPILED_DIR"

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
SERVER = ("session.outbox", "ops.metrics", "store.resp", "store.records")
MODULES: tuple[str, ...] = (
    *(f"solrace.shared.{m}" for m in SHARED),
    *(f"solrace.server.{m}" for m in SERVER),
)

# What the build does, part of every module's key: a change here rebuilds everything.
DIRECTIVES = {"language_level": "3", "annotation_typing": "False", "binding": "True"}
CFLAGS = ("-O2", "-fPIC", "-shared", "-fno-strict-aliasing", "-DNDEBUG")
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

loaded: dict[str, str] = {}  # module name -> the compiled file it was loaded from


def mode() -> str:
    return os.environ.get(ENV, "").strip().lower()


def cache_dir() -> Path:
    if os.environ.get(DIR_ENV):
        return Path(os.environ[DIR_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "solrace" / "compiled"


def key(name: str, source: bytes) -> str:
    """The cache file name for ``name`` built from ``source``: any change to the source, the
    Python build or the settings gives another name."""
    h = hashlib.sha256()
    for part in (name, sys.version, sysconfig.get_platform(), SUFFIX, repr(DIRECTIVES),
                 " ".join(CFLAGS)):
        h.update(part.encode() + b"\0")
    h.update(source)
    return f"{name}-{h.hexdigest()[:20]}{SUFFIX}"


def compiled_path(name: str, source: Path, where: Path | None = None) -> Path | None:
    """The current build of ``name`` (source at ``source``), or ``None`` if there is none."""
    try:
        target = (where or cache_dir()) / key(name, source.read_bytes())
    except OSError:
        return None
    return target if target.is_file() else None


class Finder(importlib.abc.MetaPathFinder):
    """Answers for the listed modules only, with the cached build that matches their source;
    for anything else, or without a current build, the ordinary import goes on."""

    def __init__(self, names: Iterable[str], where: Path | None = None) -> None:
        self.names = frozenset(names)
        self.where = where

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        source_spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        origin = getattr(source_spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            return None
        built = compiled_path(fullname, Path(origin), self.where)
        if built is None:
            if mode() == "require":
                raise ImportError(f"{ENV}=require but {fullname} has no current compiled "
                                  f"build in {self.where or cache_dir()}", name=fullname)
            return None
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
    """Put the finder first on ``sys.meta_path`` (once), unless ``SOLRACE_COMPILED=python``."""
    if mode() == "python" or any(isinstance(f, Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, Finder(MODULES))


install()  # on import: solrace.shared and solrace.server import this module first
