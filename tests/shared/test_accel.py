"""The compiled hot modules (``shared/accel.py``, ``shared/accelbuild.py``): loaded when their
build matches the source, never when it does not, off with ``SOLRACE_COMPILED=python``, and
not needed at all (no compiler: every module runs from its ``.py``).

Under ``python3 dev.py test`` on a machine with a compiler, dev.py builds them first and sets
``SOLRACE_COMPILED=require``, so this whole suite runs against the compiled modules; the
first test checks that in this very process."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from solrace.shared import accel, accelbuild

TOOLS_MISSING = accelbuild.missing_tools()
needs_tools = pytest.mark.skipif(TOOLS_MISSING is not None,
                                 reason=f"cannot compile here: {TOOLS_MISSING}")

# Print, for each listed module: where it was loaded from.
WHERE = (
    "import importlib, json, sys\n"
    "import solrace.server.ops.app\n"
    "from solrace.shared import accel\n"
    "print(json.dumps({n: importlib.import_module(n).__file__ for n in accel.MODULES}))\n"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_COMPILED")}
    return {**env, **extra}


def _where(**extra: str) -> dict[str, str]:
    run = subprocess.run([sys.executable, "-c", WHERE], env=_env(**extra), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_this_suite_runs_the_modules_its_mode_says() -> None:
    """Under ``require`` (dev.py test after a good build) every listed module is its compiled
    build; under ``python`` none is; otherwise each is compiled exactly when a current build
    exists. Either way ``__file__`` tells the truth."""
    for name in accel.MODULES:
        module = importlib.import_module(name)
        source = accelbuild.source_of(name)
        if accel.mode() == "require":
            assert accel.loaded.get(name) == module.__file__, name
        if accel.mode() == "python":
            assert name not in accel.loaded and module.__file__ == str(source), name
        if name in accel.loaded:
            assert module.__file__ == accel.loaded[name]
            assert module.__file__.endswith(accel.SUFFIX)
        else:
            assert Path(module.__file__) == source


@needs_tools
def test_every_listed_module_loads_compiled_when_a_compiler_exists(tmp_path: Path) -> None:
    where = tmp_path / "cache"
    shared_only = [n for n in accel.MODULES if ".shared." in n]
    built = subprocess.run([sys.executable, "-m", "solrace.shared.accelbuild", "--strict",
                            "--dir", str(where), *shared_only[:2]],
                           env=_env(), capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    # the two built load compiled, the rest from source: a build is per module
    files = _where(SOLRACE_COMPILED_DIR=str(where))
    for name, file in files.items():
        if name in shared_only[:2]:
            assert file.startswith(str(where)) and file.endswith(accel.SUFFIX), (name, file)
        else:
            assert file.endswith(".py"), (name, file)
    # the real cache (dev.py test has filled it; built here otherwise): all, under require
    built = subprocess.run([sys.executable, "-m", "solrace.shared.accelbuild", "--strict"],
                           env=_env(), capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    files = _where(SOLRACE_COMPILED="require")
    assert set(files) == set(accel.MODULES)
    for name, file in files.items():
        assert file.endswith(accel.SUFFIX) and Path(file).parent == accel.cache_dir(), name


def test_python_switch_runs_every_module_from_source() -> None:
    files = _where(SOLRACE_COMPILED="python")
    for name, file in files.items():
        assert Path(file) == accelbuild.source_of(name)


def test_without_a_compiler_nothing_is_built_and_all_runs_from_source(tmp_path: Path) -> None:
    """A fresh machine with only Python: no ``cc`` on PATH (and no $CC). The build says why
    and exits 0 (1 with --strict); imports then find no build and use the ``.py`` files."""
    where = tmp_path / "cache"
    bare = tmp_path / "bin"
    bare.mkdir()
    env = _env(PATH=str(bare), SOLRACE_COMPILED_DIR=str(where))
    env.pop("CC", None)
    for strict, code in (([], 0), (["--strict"], 1)):
        run = subprocess.run([sys.executable, "-m", "solrace.shared.accelbuild", *strict],
                             env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == code, run.stderr
        assert "running from source" in run.stderr
    assert not where.exists() or not any(where.iterdir())
    files = _where(PATH=str(bare), SOLRACE_COMPILED_DIR=str(where))
    for name, file in files.items():
        assert Path(file) == accelbuild.source_of(name)
    # and require says so loudly rather than running slower without a word
    run = subprocess.run([sys.executable, "-c", WHERE], capture_output=True, text=True,
                         env=_env(SOLRACE_COMPILED_DIR=str(where), SOLRACE_COMPILED="require"))
    assert run.returncode != 0 and "no current compiled build" in run.stderr


@needs_tools
def test_a_stale_build_never_shadows_the_edited_source(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Build a module, edit its ``.py``: the finder no longer answers for it (the old build's
    name carries the old source's hash), so the import runs the edited source."""
    src_dir, where = tmp_path / "src", tmp_path / "cache"
    src_dir.mkdir()
    where.mkdir()
    source = src_dir / "accel_probe.py"
    source.write_text("def answer():\n    return 1\n")
    cc = accelbuild.compilers()[0]
    built = accelbuild.build_one("accel_probe", source, where, cc)
    assert built.is_file() and built.parent == where
    monkeypatch.syspath_prepend(str(src_dir))
    monkeypatch.delenv("SOLRACE_COMPILED", raising=False)  # "require" would refuse the edit
    finder = accel.Finder({"accel_probe"}, where)
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])

    sys.modules.pop("accel_probe", None)
    probe = importlib.import_module("accel_probe")
    assert probe.__file__ == str(built)
    assert probe.answer() == 1 and type(probe.answer).__name__ == "cython_function_or_method"

    source.write_text("def answer():\n    return 2\n")  # edited after the build
    assert accel.compiled_path("accel_probe", source, where) is None
    sys.modules.pop("accel_probe", None)
    probe = importlib.import_module("accel_probe")
    assert probe.__file__ == str(source) and probe.answer() == 2
    sys.modules.pop("accel_probe", None)


def test_the_key_covers_source_and_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    base = accel.key("solrace.shared.engine", b"x = 1\n")
    assert base == accel.key("solrace.shared.engine", b"x = 1\n")
    assert base != accel.key("solrace.shared.engine", b"x = 2\n")
    assert base != accel.key("solrace.shared.views", b"x = 1\n")
    monkeypatch.setitem(accel.DIRECTIVES, "annotation_typing", "True")
    assert base != accel.key("solrace.shared.engine", b"x = 1\n")


@needs_tools
def test_a_build_that_does_not_load_falls_back_to_source(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache entry with the right name that is not a loadable module (a truncated file, a
    disk error) warns and imports the ``.py``; under ``require`` it is an ImportError."""
    src_dir, where = tmp_path / "src", tmp_path / "cache"
    src_dir.mkdir()
    where.mkdir()
    source = src_dir / "accel_broken.py"
    source.write_text("VALUE = 3\n")
    (where / accel.key("accel_broken", source.read_bytes())).write_bytes(b"not an ELF file")
    monkeypatch.syspath_prepend(str(src_dir))
    monkeypatch.setattr(sys, "meta_path", [accel.Finder({"accel_broken"}, where), *sys.meta_path])
    monkeypatch.delenv("SOLRACE_COMPILED", raising=False)
    sys.modules.pop("accel_broken", None)
    with pytest.warns(RuntimeWarning, match="does not load"):
        module = importlib.import_module("accel_broken")
    assert module.__file__ == str(source) and module.VALUE == 3
    assert "accel_broken" not in accel.loaded
    sys.modules.pop("accel_broken", None)
    monkeypatch.setenv("SOLRACE_COMPILED", "require")
    with pytest.raises(ImportError):
        importlib.import_module("accel_broken")
    sys.modules.pop("accel_broken", None)


def test_without_cython_nothing_is_built(tmp_path: Path) -> None:
    """Cython absent (hidden here): the build says so and leaves the cache empty."""
    where = tmp_path / "cache"
    code = ("import sys; sys.modules['Cython'] = None\n"
            "from solrace.shared import accelbuild\n"
            f"sys.exit(accelbuild.main(['--strict', '--dir', {str(where)!r}]))\n")
    run = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1 and "Cython is not installed" in run.stderr, run.stderr
    assert not where.exists() or not any(where.iterdir())


# Without Cython installed: ``import cython`` fails, the declared modules take shared/nocython.py
# and run as written (the same moves, views, texts and requests as with Cython).
WITHOUT_CYTHON = (
    "import sys\n"
    "sys.modules['cython'] = None  # import cython raises ImportError\n"
    "import json, random\n"
    "from solrace.shared import protocol as P\n"
    "from solrace.shared.engine import Game\n"
    "from solrace.shared.pointing import legal_texts\n"
    "from solrace.shared.views import advance, view_of\n"
    "import solrace.shared.engine as E\n"
    "assert E.cython.__name__ == 'solrace.shared.nocython', E.cython\n"
    "g = Game('unlimited', {'draw': '1'}, 7)\n"
    "view, rng, out = view_of(g).wire(), random.Random(7), []\n"
    "for _ in range(60):\n"
    "    g.push(rng.choice(g.legal_moves()))\n"
    "    view, change = advance(g, view)\n"
    "    out.append([legal_texts(g), change, g.status.value])\n"
    "req = P.parse_request({'t': 'move', 'race': 'abcdefgh', 'seq': 1, 'move': 'w'})\n"
    "print(json.dumps([out, req.move, P.racer_event({'k': 'progress', 'move': 'w'})]))\n"
)


def test_the_declared_modules_run_without_cython() -> None:
    ours = subprocess.run([sys.executable, "-c", WITHOUT_CYTHON],
                          env=_env(SOLRACE_COMPILED="python"), capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr
    plain = subprocess.run([sys.executable, "-c", WITHOUT_CYTHON.replace(
        "sys.modules['cython'] = None", "pass").replace(
        "assert E.cython.__name__ == 'solrace.shared.nocython', E.cython", "pass")],
        env=_env(SOLRACE_COMPILED="python"), capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(ours.stdout) == json.loads(plain.stdout)
