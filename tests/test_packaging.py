"""The distribution ships every package: ``packages`` in pyproject.toml lists each folder with
an ``__init__.py`` under shared/, server/ and client/ (a missing one installs in editable
mode here but breaks a normal install); and it installs on a machine without a C compiler,
pure Python, everything running from the ``.py`` files."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for name, folder in config["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *rel)))
    assert found == listed


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 dev.py test" in readme
    assert "python3 dev.py serve" in readme
    assert "exec python3 dev.py test" in ci


def test_the_solver_core_sources_ship_as_package_data() -> None:
    """``fastcore.py`` loads a core's build only when it is of the source beside it: the
    installed package carries that source."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for name in ("klondike.c", "onepass.c", "fortyeight.c", "coremodule.c"):
        assert name in config["package-data"]["solrace.shared.solver"]
        assert (ROOT / "shared" / "solver" / name).is_file()


def test_cython_is_needed_to_build_only() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.lower().startswith("cython") for r in project["build-system"]["requires"])
    assert not any(r.lower().startswith("cython") for r in project["project"]["dependencies"])


# Run from the unpacked wheel: which hot modules are compiled, and the solver on each variant
# that has a C core (it must answer with the Python search).
PURE = (
    "import importlib, json\n"
    "import solrace.server.ops.app\n"
    "from solrace.shared import accel\n"
    "from solrace.shared.solver import Budget, fastcore, fortyeight, onepass, solve\n"
    "files = {n: importlib.import_module(n).__file__ for n in accel.MODULES}\n"
    "cores = [m.library() for m in (fastcore, onepass, fortyeight)]\n"
    "won = [solve((v, o, s), Budget(nodes=4_000)).won for v, o, s in\n"
    "       (('unlimited', {}, 5), ('double-aces-and-kings', {'reserve_to_space': 'yes'}, 1),\n"
    "        ('forty-and-eight', {}, 10))]\n"
    "print(json.dumps([files, [c is None for c in cores], fastcore.KLONDIKE.error, won]))\n"
)


def test_without_a_c_compiler_the_install_is_pure_python(tmp_path: Path) -> None:
    """``pip wheel`` of the project with ``CC=/bin/false`` (a compiler that always fails):
    the build says why and succeeds; the wheel holds no compiled file and an empty manifest;
    installed, every hot module runs from its ``.py`` and the solver answers with its Python
    search; ``SOLRACE_COMPILED=require`` fails loudly instead."""
    src = tmp_path / "src"
    junk = shutil.ignore_patterns("*.so", "compiled.json", "__pycache__", "*.egg-info")
    for part in ("shared", "server", "client"):
        shutil.copytree(ROOT / part, src / part, ignore=junk)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
         "-v", "-w", str(tmp_path / "dist"), str(src)],
        env={**env, "CC": "/bin/false"}, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "solrace: no compiled parts (cannot compile C here" in build.stdout + build.stderr
    [wheel] = (tmp_path / "dist").glob("solrace-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert not [n for n in names if n.endswith((".so", ".pyd"))]
        assert json.loads(z.read("solrace/shared/compiled.json")) == {}
        z.extractall(tmp_path / "site")
    env["PYTHONPATH"] = str(tmp_path / "site")
    run = subprocess.run([sys.executable, "-c", PURE], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    files, no_cores, why, won = json.loads(run.stdout)
    for name, file in files.items():
        assert file.startswith(str(tmp_path / "site")) and file.endswith(".py"), name
    assert all(no_cores) and "not compiled when solrace was installed" in why
    assert all(won)
    run = subprocess.run([sys.executable, "-c", PURE], env={**env, "SOLRACE_COMPILED": "require"},
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "no current compiled build" in run.stderr


def _compiler_works() -> bool:
    """Is there a C compiler here (``$CC``, else ``cc``) that runs?"""
    cc = shlex.split(os.environ.get("CC") or "cc")
    try:
        return subprocess.run([*cc, "--version"], capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(not _compiler_works(), reason="no working C compiler here ($CC, else cc)")
def test_with_a_c_compiler_this_install_compiled_every_part() -> None:
    """The editable install ``dev.py`` makes (``pip install -e``) builds every compiled part
    in place, beside its source, where a C compiler is."""
    from solrace.shared import accelstatus

    missing = [n for n, p in accelstatus.status().items() if p is None]
    assert not missing, f"not compiled at install: {missing} (python -m " \
        "solrace.shared.accelstatus; reinstall with pip install -e .)"
