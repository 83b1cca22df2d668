"""The compiled hot modules (``shared/accel.py``, built at install by ``setup.py``): loaded when
their build matches the source, never when it does not, off with ``SOLRACE_COMPILED=python``,
and not needed at all (no compiler at install: every module runs from its ``.py``;
tests/test_packaging.py builds such an install).

Under ``python3 dev.py test`` after an install that compiled every part, dev.py sets
``SOLRACE_COMPILED=require``, so this whole suite runs against the compiled modules; the
first test checks that in this very process."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from solrace.shared import accel, accelstatus

ALL_BUILT = all(accelstatus.status().values())
needs_build = pytest.mark.skipif(
    not ALL_BUILT, reason="this install compiled not every part (no C compiler at install?): "
    "python -m solrace.shared.accelstatus")

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
    """Under ``require`` (dev.py test after a full build) every listed module is its compiled
    build; under ``python`` none is; otherwise each is compiled exactly when a current build
    exists. Either way ``__file__`` tells the truth."""
    for name in accel.MODULES:
        module = importlib.import_module(name)
        source = accelstatus.sources(name)[0]
        if accel.mode() == "require":
            assert accel.loaded.get(name) == module.__file__, name
        if accel.mode() == "python":
            assert name not in accel.loaded and module.__file__ == str(source), name
        if name in accel.loaded:
            assert module.__file__ == accel.loaded[name]
            assert module.__file__ == str(accel.built_file(name, source.parent))
        else:
            assert Path(module.__file__) == source


@needs_build
def test_every_listed_module_loads_compiled_beside_its_source() -> None:
    files = _where(SOLRACE_COMPILED="require")
    assert set(files) == set(accel.MODULES)
    for name, file in files.items():
        source = accelstatus.sources(name)[0]
        assert file == str(accel.built_file(name, source.parent)), name
        assert file.endswith(accel.SUFFIX)


@needs_build
def test_python_switch_runs_every_module_from_source() -> None:
    """Even with a current build beside every ``.py`` (which Python's own import would take)."""
    files = _where(SOLRACE_COMPILED="python")
    for name, file in files.items():
        assert Path(file) == accelstatus.sources(name)[0]


def _copy_of(name: str, folder: Path) -> tuple[Path, Path]:
    """``name``'s ``.py`` and its build (when there is one) copied into ``folder``, with a
    manifest naming that source: the files an install would have there."""
    source = accelstatus.sources(name)[0]
    shutil.copy(source, folder / source.name)
    built = accel.built_file(name, source.parent)
    if built.is_file():
        shutil.copy(built, folder / built.name)
    manifest = folder / "compiled.json"
    manifest.write_text(json.dumps({name: accel.key(name, [source.read_bytes()])}))
    return folder / source.name, manifest


@needs_build
def test_a_stale_build_never_shadows_the_edited_source(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A build beside its ``.py`` answers while the manifest's hash is the source's; edit the
    ``.py`` and the finder answers with the edited source, though the build is still there."""
    monkeypatch.delenv("SOLRACE_COMPILED", raising=False)  # "require" would refuse the edit
    monkeypatch.setattr(accel, "loaded", {})  # (this process's record stays as it was)
    name = "solrace.shared.cards"
    source, manifest = _copy_of(name, tmp_path)
    finder = accel.Finder({name}, manifest)
    spec = finder.find_spec(name, [str(tmp_path)])
    assert spec is not None and spec.origin == str(accel.built_file(name, tmp_path))
    source.write_text(source.read_text() + "\n# edited after the build\n")
    spec = finder.find_spec(name, [str(tmp_path)])
    assert spec is not None and spec.origin == str(source)
    assert type(spec.loader).__name__ == "SourceFileLoader"
    monkeypatch.setenv("SOLRACE_COMPILED", "require")
    with pytest.raises(ImportError, match="no current compiled build"):
        finder.find_spec(name, [str(tmp_path)])


def test_without_a_build_the_source_answers_and_require_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that had no compiler at install: no build, an empty manifest."""
    name = "solrace.shared.cards"
    source = accelstatus.sources(name)[0]
    shutil.copy(source, tmp_path / source.name)
    (tmp_path / "compiled.json").write_text("{}\n")
    finder = accel.Finder({name}, tmp_path / "compiled.json")
    monkeypatch.delenv("SOLRACE_COMPILED", raising=False)
    spec = finder.find_spec(name, [str(tmp_path)])
    assert spec is not None and spec.origin == str(tmp_path / source.name)
    monkeypatch.setenv("SOLRACE_COMPILED", "require")
    with pytest.raises(ImportError, match="no current compiled build"):
        finder.find_spec(name, [str(tmp_path)])


def test_the_key_covers_source_and_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    base = accel.key("solrace.shared.engine", [b"x = 1\n"])
    assert base == accel.key("solrace.shared.engine", [b"x = 1\n"])
    assert base != accel.key("solrace.shared.engine", [b"x = 2\n"])
    assert base != accel.key("solrace.shared.views", [b"x = 1\n"])
    assert base != accel.key("solrace.shared.engine", [b"x = 1\n", b""])
    monkeypatch.setitem(accel.DIRECTIVES, "annotation_typing", True)
    assert base != accel.key("solrace.shared.engine", [b"x = 1\n"])


def test_a_build_that_does_not_load_falls_back_to_source(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A build with the right name and hash that is not a loadable module (a truncated file,
    a disk error) warns and answers with the ``.py``; under ``require`` it is an ImportError."""
    name = "solrace.shared.cards"
    source, manifest = _copy_of(name, tmp_path)
    accel.built_file(name, tmp_path).write_bytes(b"not an ELF file")
    finder = accel.Finder({name}, manifest)
    monkeypatch.delenv("SOLRACE_COMPILED", raising=False)
    with pytest.warns(RuntimeWarning, match="does not load"):
        spec = finder.find_spec(name, [str(tmp_path)])
    assert spec is not None and spec.origin == str(source)
    monkeypatch.setenv("SOLRACE_COMPILED", "require")
    with pytest.raises(ImportError):
        finder.find_spec(name, [str(tmp_path)])


def test_the_status_command_lists_every_part() -> None:
    run = subprocess.run([sys.executable, "-m", "solrace.shared.accelstatus"], env=_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for name in accelstatus.parts():
        assert f"{name}: " in run.stdout
    check = subprocess.run([sys.executable, "-m", "solrace.shared.accelstatus", "--check"],
                           env=_env(), capture_output=True, text=True, timeout=120)
    assert check.returncode == (0 if ALL_BUILT else 1) and not check.stdout


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
