"""The documents name only things that exist.

README.md and docs/*.md are read as a newcomer would use them: every command line they show
(``solrace …``, ``solrace-server …``, ``python -m solrace.server …``, ``python3 dev.py …``,
``python bench/X.py …``) must name a real subcommand and real flags — taken from the argparse
parsers of the client and the server, from ``dev.py``'s command list, and from the bench
script's own source; every repository path they name (in code or as a link) must exist; every
``file.md#anchor`` link must point at a heading; and every ``docs/X.md, "Heading"`` that the
code cites must name a heading (or a labelled row) of that document.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache",
             "data", "build", "dist"}
# flags of other programs that the documents name on their own, in passing
OTHER_FLAGS = {"--native": "py-spy", "--cluster-enabled": "redis-server"}


# ---------------------------------------------------------------- what exists


@cache
def repo_files() -> frozenset[str]:
    """Every file and folder of the repository, as POSIX paths relative to its root."""
    found: set[str] = set()
    stack = [ROOT]
    while stack:
        folder = stack.pop()
        for entry in folder.iterdir():
            if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                continue
            rel = entry.relative_to(ROOT).as_posix()
            found.add(rel)
            if entry.is_dir() and not entry.is_symlink():
                stack.append(entry)
    return frozenset(found)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


@cache
def client_parser() -> argparse.ArgumentParser:
    from solrace.client.cli import build_parser

    return build_parser()


@cache
def server_flags() -> frozenset[str]:
    from solrace.server.ops.config import Config

    return frozenset(_flags(Config.parser()))


@cache
def dev_commands() -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return tuple(mod.COMMANDS)


@cache
def script_flags(script: str) -> frozenset[str]:
    """The flags a bench script (or a script it hands its arguments to) defines: every
    ``"--flag"`` literal in its source."""
    text = (ROOT / script).read_text()
    return frozenset(re.findall(r"""["'](--?[A-Za-z][\w-]*)["']""", text))


@cache
def known_flags() -> frozenset[str]:
    """Every flag of our programs: the client (every command and action), the server, the
    bench scripts and the compiled parts' status command."""
    def every(parser: argparse.ArgumentParser) -> set[str]:
        out = _flags(parser)
        for sub in _subparsers(parser).values():
            out |= every(sub)
        return out

    flags = every(client_parser()) | server_flags()
    for script in sorted((ROOT / "bench").glob("*.py")):
        flags |= script_flags(f"bench/{script.name}")
    return frozenset(flags | script_flags("shared/accelstatus.py"))


# ---------------------------------------------------------------- what the documents say


def code_spans(text: str) -> Iterator[tuple[str, bool]]:
    """(code, is_block): fenced blocks line by line, then inline code spans of the prose."""
    prose: list[str] = []
    fence = None
    for line in text.splitlines():
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            else:
                yield line, True
            continue
        m = re.match(r"(```+|~~~+)", stripped)
        if m:
            fence = m.group(1)
            continue
        prose.append(line)
    for m in re.finditer(r"(`+)(.+?)\1", "\n".join(prose), re.S):
        yield m.group(2).strip(), False


def _words(line: str) -> list[str]:
    line = line.split(" #", 1)[0].split("\t#", 1)[0]  # a shell comment
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def _command_words(words: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(program, its arguments) for each command of a shell line (split at | ; && ||)."""
    cmd: list[str] = []
    for w in [*words, ";"]:
        if w in ("|", ";", "&&", "||"):
            if cmd:
                yield from _program(cmd)
            cmd = []
        else:
            cmd.append(w)


def _program(cmd: list[str]) -> Iterator[tuple[str, list[str]]]:
    while cmd and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", cmd[0]):  # VAR=value before a command
        cmd = cmd[1:]
    if not cmd:
        return
    head, rest = Path(cmd[0]).name, cmd[1:]
    if head in ("nice", "time", "exec") or re.fullmatch(r"-n|\d+", head):
        yield from _program([w for w in rest if not re.fullmatch(r"-n|-?\d+", w)])
        return
    if re.fullmatch(r"python[\d.]*", head):
        if rest[:2] == ["-m", "solrace.server"]:
            yield "solrace-server", rest[2:]
        elif rest and rest[0].endswith("dev.py"):
            yield "dev.py", rest[1:]
        elif rest and re.fullmatch(r"(\S*/)?bench/\w+\.py", rest[0]):
            yield "bench/" + Path(rest[0]).name, rest[1:]
        return
    if head in ("solrace", "solrace-server", "dev.py"):
        yield head, rest


def commands(text: str) -> Iterator[tuple[str, list[str]]]:
    """Every command line the document shows: in code blocks, and inline spans that are one."""
    for code, block in code_spans(text):
        lines = code.splitlines() if block else [code]
        for line in lines:
            line = line.strip().lstrip("$ ").strip()
            if not re.match(r"([A-Z_]+=\S*\s+)*(nice\s|\S*python|\S*solrace|\S*dev\.py)", line):
                continue
            yield from _command_words(_words(line.replace("\\", " ")))


def _flag_of(word: str) -> str | None:
    word = word.strip("[](){},")
    if word.startswith("|"):
        word = word[1:]
    m = re.match(r"(--?[A-Za-z][\w-]*)", word)
    if not m or word.startswith("---"):
        return None
    return m.group(1)


def check_command(program: str, args: list[str]) -> list[str]:
    """What is wrong with one command line: unknown subcommands and flags."""
    args = [a for a in args if a not in ("…", "...")]
    flags = [f for a in args for f in [_flag_of(a)] if f]
    if program == "bench/" or program.startswith("bench/"):
        if f"bench/{Path(program).name}" not in repo_files():
            return [f"no script {program}"]
        known = script_flags(program)
        if program == "bench/server.py":
            known |= script_flags("bench/cluster.py")
        return [f"{program}: no flag {f}" for f in flags if f not in known and f != "--help"]
    if program == "dev.py":
        if not args:
            return []
        if args[0] not in dev_commands():
            return [f"dev.py has no command {args[0]!r}"]
        if args[0] == "serve":
            return check_command("solrace-server", args[1:])
        if args[0] == "solrace":
            return check_command("solrace", args[1:])
        return []  # dev.py test: pytest's arguments
    if program == "solrace-server":
        return [f"solrace-server: no flag {f}" for f in flags
                if f not in server_flags() and f not in ("-h", "--help")]
    # solrace: COMMAND [ACTION] args
    parser = client_parser()
    top = _flags(parser) | {"-h", "--help"}
    words = [a for a in args if not a.startswith("-")]
    if not args or args[0].startswith("-"):
        return [f"solrace: no flag {f}" for f in flags if f not in top]
    subs = _subparsers(parser)
    name = args[0]
    if name not in subs:
        if re.fullmatch(r"[a-z][a-z.-]*", name):
            return [f"solrace has no command {name!r}"]
        return []  # a placeholder (COMMAND, <cmd>, …)
    sub = subs[name]
    known = top | _flags(sub)
    actions = _subparsers(sub)
    if actions:
        action = words[1] if len(words) > 1 else None
        if action is not None and action in actions:
            known |= _flags(actions[action])
        elif action is not None and re.fullmatch(r"[a-z]+", action) and args.index(action) == 1:
            return [f"solrace {name} has no action {action!r}"]
        else:
            for a in actions.values():  # ACTION left open: any action's flag will do
                known |= _flags(a)
    return [f"solrace {name}: no flag {f}" for f in flags if f not in known]


PATH_RE = re.compile(r"(?<![\w./~-])((?:\.?[\w-]+/)+[\w.*-]*|[\w-]+\.(?:py|c|md|toml|yml|yaml|js|"
                     r"html|css|json|lua|txt|perft))(?![\w/])")
TOP = ("shared/", "server/", "client/", "bench/", "tests/", "docs/", ".ci/")
# paths the documents name on purpose although no such file exists
EXAMPLES = {"shared/variants/forty_thieves.py"}  # docs/variants.md: how to add a sixth variant


def named_paths(text: str) -> Iterator[str]:
    """Repository paths the document names: in code spans that look like a path, and as the
    targets of relative links."""
    for code, block in code_spans(text):
        if block:
            continue
        for m in PATH_RE.finditer(code):
            path = m.group(1)
            if re.match(r"(https?:|~|/|\.venv|\.cache|data/)", path) or "://" in code:
                continue
            if "/" in path and not path.startswith(TOP):
                if not re.search(r"\.(py|c|md|js|lua|perft)$", path):
                    continue  # a relative name that is not a source file (a/b, host/path)
            elif "/" not in path and not re.search(r"\.(py|c|md|toml|yml|yaml|js|lua)$", path):
                continue
            yield path


@cache
def ignored() -> tuple[str, ...]:
    """Folders .gitignore names: made by running things (screenshots, data), never committed."""
    lines = (ROOT / ".gitignore").read_text().splitlines() if (ROOT / ".gitignore").exists() else []
    return tuple(ln.strip().strip("/") + "/" for ln in lines if ln.strip().endswith("/"))


def path_exists(path: str, doc: Path) -> bool:
    files = repo_files()
    if path in EXAMPLES or (path.rstrip("/") + "/").startswith(ignored()):
        return True
    path = path.rstrip("/")
    if "*" in path:
        return any(True for _ in ROOT.glob(path)) or any(True for _ in doc.parent.glob(path))
    local = (doc.parent / path).resolve()
    if path in files or (local.is_relative_to(ROOT) and local.exists()):
        return True
    # a path relative to its package (``solver/bots.py``) or a bare file name (``search.py``)
    return any(f == path or f.endswith("/" + path) for f in files)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def headings(doc: Path) -> tuple[str, ...]:
    out = []
    fence = False
    for line in doc.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            out.append(line.lstrip("#").strip())
    return tuple(out)


def anchors(doc: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for h in headings(doc):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(text: str) -> Iterator[str]:
    """Targets of the document's Markdown links (outside code)."""
    prose = re.sub(r"^(```+|~~~+).*?^\1", "", text, flags=re.S | re.M)
    prose = re.sub(r"(`+).+?\1", "", prose, flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)", prose):
        yield m.group(1)


# ---------------------------------------------------------------- the checks


def doc_problems(doc: Path, text: str | None = None) -> list[str]:
    text = doc.read_text() if text is None else text
    rel = doc.relative_to(ROOT).as_posix()
    problems = []
    for program, args in commands(text):
        problems += [f"{rel}: {p}" for p in check_command(program, args)]
    for code, block in code_spans(text):  # a flag named on its own: `--hint-budget`
        m = re.fullmatch(r"(--[a-z][\w-]*)(?:[ =].*)?", code)
        if not block and m and m.group(1) not in known_flags() | OTHER_FLAGS.keys():
            problems.append(f"{rel}: names the flag {m.group(1)}, which no program has")
    for path in named_paths(text):
        if not path_exists(path, doc):
            problems.append(f"{rel}: names {path}, which does not exist")
    for target in links(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        where = (doc.parent / file).resolve() if file else doc
        if not where.exists():
            problems.append(f"{rel}: links to {target}, which does not exist")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            problems.append(f"{rel}: links to {target}, which has no such heading")
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_a_document_names_only_what_exists(doc: Path) -> None:
    problems = doc_problems(doc)
    assert not problems, "\n".join(problems)


CITE_RE = re.compile(r"docs/([\w-]+)\.md`*,?\s+(?:\"([^\"]+)\"|section\s+([\d.]+\d))")


def cited_places(doc: Path) -> list[str]:
    """What code may cite in a document: its headings, bold labels, first cells of table rows."""
    text = doc.read_text()
    places = list(headings(doc))
    places += re.findall(r"\*\*([^*]+)\*\*", text)
    places += re.findall(r"^\| *([^|]+?) *\|", text, re.M)
    return places


def code_citation_problems(path: Path, text: str) -> list[str]:
    problems = []
    flat = re.sub(r"\s*\n\s*(?:#:?|\*|//)?\s*", " ", text)  # citations wrap across comment lines
    for m in CITE_RE.finditer(flat):
        doc = ROOT / "docs" / f"{m.group(1)}.md"
        rel = path.relative_to(ROOT).as_posix()
        if not doc.exists():
            problems.append(f"{rel}: cites docs/{m.group(1)}.md, which does not exist")
            continue
        if m.group(2):
            want = m.group(2).lower()
            if not any(want in place.lower() for place in cited_places(doc)):
                problems.append(f"{rel}: cites docs/{m.group(1)}.md \"{m.group(2)}\": no such "
                                "heading")
        else:
            number = m.group(3)
            if not any(re.match(rf"{re.escape(number)}[. ]", h) for h in headings(doc)):
                problems.append(f"{rel}: cites docs/{m.group(1)}.md section {number}: none")
    return problems


def source_files() -> Iterator[Path]:
    for rel in sorted(repo_files()):
        if re.search(r"\.(py|c|js)$", rel) and rel != "tests/test_docs.py":  # its samples
            yield ROOT / rel


def test_code_cites_only_headings_that_exist() -> None:
    problems = []
    for path in source_files():
        problems += code_citation_problems(path, path.read_text(errors="replace"))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- the checks can fail


def test_the_checks_catch_what_does_not_exist() -> None:
    """A document with one mistake of each kind is caught on each, and its correct twin is
    not (so the test above is not passing by reading nothing)."""
    doc = ROOT / "docs" / "variants.md"
    good = ("```sh\nsolrace race create unlimited --seats 3\npython3 dev.py serve --port 9000\n"
            "python bench/solver.py --seeds 10\n```\n"
            "See `shared/engine.py`, `solver/bots.py`, [the rules](variants.md#move-notation)"
            " and `solrace daily --info`; `--hint-budget`.\n")
    assert doc_problems(doc, good) == []
    bad = ("```sh\nsolrace racer create unlimited\nsolrace race create unlimited --seatz 3\n"
           "python3 dev.py serv\npython3 dev.py serve --prot 9000\n"
           "python bench/solver.py --seedz 10\n```\n"
           "See `shared/engin.py`, [the rules](variants.md#move-notaton) and "
           "`solrace daily --inf`; `--hint-budgt`.\n")
    found = "\n".join(doc_problems(doc, bad))
    for wrong in ("'racer'", "--seatz", "'serv'", "--prot", "--seedz", "shared/engin.py",
                  "#move-notaton", "--inf", "--hint-budgt"):
        assert wrong in found, (wrong, found)
    cites = 'x = 1  # docs/solver.md, "The search"; docs/solver.md, "The serch"\n'
    found = "\n".join(code_citation_problems(ROOT / "dev.py", cites))
    assert "The serch" in found and "The search" not in found.replace("The serch", "")
