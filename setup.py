"""The compiled parts of solrace, built when it is installed; everything else is pyproject.toml.

Two kinds, both optional setuptools extensions (``optional=True``: one that does not build is
left out with a warning and the install goes on):

* the hot modules (``accel.MODULES`` in shared/accel.py): each ``.py`` cythonized, unchanged,
  with ``accel.DIRECTIVES``, to the extension module of the same name;
* the solver's C cores (``accel.CORES``): ``shared/solver/NAME.c`` with the small module entry
  ``coremodule.c`` as ``solrace.shared.solver._NAME`` (loaded with ctypes by fastcore.py).

Before cythonizing anything the build checks that a C compiler and Python's headers work
(one tiny compile): without them it says so once and installs the pure-Python package, which
runs everything from the ``.py`` files. It then writes ``compiled.json`` (``accel.MANIFEST``:
each built part's source hash) beside shared/accel.py, which loads a build only while that
hash still matches its source. An editable install builds in place, into the source folders.
Each build is also kept in ``build/solrace-compiled`` under a hash of its sources, settings and
compiler, so reinstalling after an edit compiles only what the edit changed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
CACHE = HERE / "build" / "solrace-compiled"  # builds by source hash, reused by the next build


def _accel():  # shared/accel.py by its path: the package is not importable while it builds
    spec = importlib.util.spec_from_file_location("_solrace_accel", HERE / "shared" / "accel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


accel = _accel()
CORE_FLAGS = ["-O3", "-std=c99"]  # the cores: plain C99
MODULE_FLAGS = ["-O2", "-fno-strict-aliasing"]  # cythonized modules
QUIET = ["-g0", "-w"]  # no debug info, no warnings of generated code


class _Extension(Extension):
    __hash__ = object.__hash__  # cythonize(exclude_failures=True) puts its copies in a set


def _sources(name: str) -> list[str]:
    """The source files (relative to this folder) of the extension ``name``."""
    parts = name.split(".")[1:]  # solrace.shared.x.y -> shared/x/y (package-dir in pyproject)
    if parts[-1].startswith("_") and parts[-1][1:] in accel.CORES:
        folder = "/".join(parts[:-1])
        return [f"{folder}/{parts[-1][1:]}.c", f"{folder}/{accel.CORE_ENTRY}"]
    return ["/".join(parts) + ".py"]


def extensions() -> list[Extension]:
    modules = [_Extension(name, _sources(name), optional=True) for name in accel.MODULES]
    cores = [_Extension(name, _sources(name), optional=True,
                        define_macros=[("_POSIX_C_SOURCE", "200809L")])
             for name in (f"solrace.shared.solver._{core}" for core in accel.CORES)]
    return modules + cores


def _is_core(ext: Extension) -> bool:
    return ext.name.rpartition(".")[2][1:] in accel.CORES


class BuildCompiled(build_ext):
    """build_ext that checks for a working compiler first, takes what it can from the cache of
    earlier builds, cythonizes the other hot modules in one go (in parallel, into the build
    folder), compiles in parallel and writes the manifest."""

    def finalize_options(self) -> None:
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        super().finalize_options()

    def build_extensions(self) -> None:
        self.hashes: dict[str, str] = {}
        self.keys = {e.name: accel.key(e.name, ((HERE / s).read_bytes() for s in e.sources))
                     for e in self.extensions}
        why = self._why_not()
        if why:
            self.warn(f"solrace: no compiled parts ({why}); everything runs from the .py files")
            return
        every = self.extensions
        self.extensions = self._cythonize([e for e in every if not self._from_cache(e)])
        for ext in self.extensions:
            if _is_core(ext):
                ext.sources = [ext.sources[0], self._entry(ext)]
            if self.compiler.compiler_type == "unix":
                ext.extra_compile_args = [*(CORE_FLAGS if _is_core(ext) else MODULE_FLAGS),
                                          *QUIET]
        super().build_extensions()
        self.extensions = every  # all of them, for the copy into the source folders

    def _cache_file(self, ext: Extension) -> Path:
        """Where a build of ``ext`` from these sources, settings and tools is kept (``build/``
        beside this file): an editable install rebuilds only the parts whose source changed."""
        try:
            cython = importlib.metadata.version("Cython")
        except importlib.metadata.PackageNotFoundError:
            cython = ""
        tools = " ".join([*self.compiler.compiler_so, *CORE_FLAGS, *MODULE_FLAGS, *QUIET,
                          cython])
        h = hashlib.sha256(f"{self.keys[ext.name]}\0{tools}".encode()).hexdigest()[:20]
        return CACHE / f"{ext.name}-{h}{accel.SUFFIX}"

    def _from_cache(self, ext: Extension) -> bool:
        cached = self._cache_file(ext)
        if not cached.is_file():
            return False
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, target)
        self.hashes[ext.name] = self.keys[ext.name]
        return True

    def _entry(self, ext: Extension) -> str:
        """A core's own copy of the module entry (coremodule.c with its CORE_NAME): a shared
        source would be one object file for all the cores, compiled at once."""
        name = ext.name.rpartition(".")[2]
        entry = Path(self.build_temp, "entries", f"{name}.c")
        entry.parent.mkdir(parents=True, exist_ok=True)
        shared = (HERE / ext.sources[1]).as_posix()
        entry.write_text(f'#define CORE_NAME {name}\n#include "{shared}"\n')
        return str(entry)

    def _why_not(self) -> str | None:
        """Why nothing can be compiled here (no compiler, no Python.h), or ``None``."""
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp, "probe.c")
            probe.write_text("#include <Python.h>\nint solrace_probe(void) { return 0; }\n")
            try:
                self.compiler.compile([str(probe)], output_dir=tmp)
            except Exception as e:  # CompileError, or a spawn error of a missing compiler
                return f"cannot compile C here: {str(e).strip()[:300]}"
        return None

    def _cythonize(self, exts: list[Extension]) -> list[Extension]:
        """``exts`` with every hot module's source now its generated C; without Cython, or
        where Cython fails, that module is left out (it runs from its ``.py``)."""
        py = [e for e in exts if not _is_core(e)]
        try:
            from Cython.Build import cythonize
        except ImportError:
            self.warn("solrace: Cython is not installed: the hot modules run from the .py files")
            return [e for e in exts if _is_core(e)]
        done = {e.name: e for e in cythonize(
            py, compiler_directives=dict(accel.DIRECTIVES), quiet=True,
            build_dir=os.path.join(self.build_temp, "cython"), nthreads=os.cpu_count() or 1,
            exclude_failures=True)}
        left = sorted({e.name for e in py} - set(done))
        if left:
            self.warn(f"solrace: Cython failed on {', '.join(left)}: they run from source")
        for ext in py:  # the extensions setuptools prepared, now from the generated C
            if ext.name in done:
                ext.sources = done[ext.name].sources
        return [e for e in exts if e.name not in left]

    def build_extension(self, ext: Extension) -> None:
        super().build_extension(ext)  # raises when it fails (then optional: left out)
        self.hashes[ext.name] = self.keys[ext.name]
        cached = self._cache_file(ext)
        try:  # atomic: builds running at once agree
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}")
            shutil.copyfile(self.get_ext_fullpath(ext.name), tmp)
            os.replace(tmp, cached)
        except OSError as e:
            self.warn(f"solrace: {ext.name} not kept in {CACHE}: {e}")

    def _drop_unlisted(self) -> None:
        """In place: delete the builds of modules compiled no more (no longer in
        ``accel.MODULES``) that an earlier install left beside their ``.py``. Python's import
        prefers such a file to the ``.py``, and the import hook answers for listed modules only."""
        listed = {e.name for e in self.extensions}
        for package in ("solrace.shared", "solrace.server"):
            root = Path(self.get_finalized_command("build_py").get_package_dir(package))
            for built in root.rglob(f"*{accel.SUFFIX}"):
                stem = built.name[: -len(accel.SUFFIX)]
                name = ".".join((package, *built.relative_to(root).parent.parts, stem))
                if name not in listed and built.with_name(stem + ".py").is_file():
                    built.unlink()

    def run(self) -> None:
        super().run()  # builds into build_lib, then copies into the source folders if in place
        if self.inplace:
            self._drop_unlisted()
            shared = Path(self.get_finalized_command("build_py").get_package_dir(
                "solrace.shared"))
        else:
            shared = Path(self.build_lib, "solrace", "shared")
        shared.mkdir(parents=True, exist_ok=True)
        manifest = shared / accel.MANIFEST.name
        manifest.write_text(json.dumps(getattr(self, "hashes", {}), indent=0, sort_keys=True)
                            + "\n")


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildCompiled})
