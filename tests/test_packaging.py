"""The distribution ships every package: ``packages`` in pyproject.toml lists each folder with
an ``__init__.py`` under shared/, server/ and client/ (a missing one installs in editable
mode here but breaks a normal install)."""

import tomllib
from pathlib import Path

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


def test_the_solver_core_source_ships_as_package_data() -> None:
    """``fastcore.py`` compiles ``klondike.c`` from the installed package on first use."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "klondike.c" in config["package-data"]["solrace.shared.solver"]
    assert (ROOT / "shared" / "solver" / "klondike.c").is_file()
