"""The ``solrace`` CLI end to end: ``main([...])`` with captured output, and a real subprocess."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import types
from itertools import permutations
from pathlib import Path

import pytest
from solrace.client import cli
from solrace.client.commands import COMMANDS, use_color
from solrace.shared.engine import Game
from solrace.shared.errors import IllegalMove
from solrace.shared.layout import layout_of
from solrace.shared.notation import parse_position
from solrace.shared.variants import VARIANTS
from solrace.shared.views import view_of

ANSI = "\x1b["
DOC = Path(__file__).resolve().parents[2] / "docs" / "variants.md"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def first_moves(variant: str, options: dict[str, str], seed: int, n: int) -> list[str]:
    """``n`` legal moves (a fixed walk through the legal-move list)."""
    game = Game(variant, options, seed)
    for i in range(n):
        legal = game.legal_moves()
        if not legal:
            break
        game.push(legal[(i * 7) % len(legal)])
    return [m.text() for m in game.moves]


def an_illegal_move(game: Game) -> tuple[str, IllegalMove]:
    """The first pile-to-pile move the game refuses, with the engine's own reason."""
    for src, dst in permutations(game.layout.ids, 2):
        try:
            game.copy().push(f"{src}{dst}")
        except IllegalMove as exc:
            return f"{src}{dst}", exc
    raise AssertionError("every move legal?")


# ------------------------------------------------------------------------------ the parser


def test_registry_modules_expose_the_command_interface() -> None:
    for mod in cli.load_commands():
        assert mod.__name__.rsplit(".", 1)[1] in COMMANDS
        assert isinstance(mod.NAME, str) and isinstance(mod.HELP, str)
        assert callable(mod.add_arguments) and callable(mod.run)


def test_a_new_command_is_one_module_and_one_registry_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mod = types.ModuleType("solrace.client.commands.echo")
    mod.NAME, mod.HELP = "echo", "say it back"
    mod.add_arguments = lambda p: p.add_argument("word")
    mod.run = lambda args: print(args.word) or 7
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    monkeypatch.setattr(cli, "COMMANDS", (*COMMANDS, "echo"))
    assert run(capsys, "echo", "hello") == (7, "hello\n", "")
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "say it back" in out


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2
    for name in COMMANDS:
        assert name in err


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and "frobnicate" in err and "Traceback" not in err


# ------------------------------------------------------------------------------ variants


def test_variants_lists_every_variant_option_and_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "variants")
    assert code == 0 and not err
    for v in VARIANTS.values():
        assert v.name in out and v.title in out
        for o in v.options:
            assert f"--option {o.name}=" in out
            assert f"{o.default} (default)" in out
            assert " ".join(o.help.split()[:4]) in " ".join(out.split())


def test_variants_json_matches_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "--json")
    assert code == 0
    doc = json.loads(out)
    assert [d["name"] for d in doc] == list(VARIANTS)
    for d in doc:
        v = VARIANTS[d["name"]]
        assert (d["title"], d["summary"]) == (v.title, v.summary)
        assert d["options"] == [
            {"name": o.name, "values": list(o.values), "default": o.values[0], "help": o.help}
            for o in v.options
        ]


# ------------------------------------------------------------------------------ deal


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_deal_json_schema(capsys: pytest.CaptureFixture[str], variant: str) -> None:
    code, out, err = run(capsys, "deal", variant, "--seed", "12345", "--json")
    assert code == 0 and not err
    doc = json.loads(out)
    assert set(doc) == {"variant", "options", "seed", "commitment", "position", "view"}
    game = Game(variant, None, 12345)
    assert doc["variant"] == variant and doc["seed"] == 12345
    assert doc["options"] == {o.name: o.default for o in VARIANTS[variant].options}
    assert doc["commitment"] == hashlib.sha256((12345).to_bytes(8, "big")).hexdigest()
    assert doc["position"] == game.position_text()
    parse_position(layout_of(game.rules), doc["position"])
    assert doc["view"] == view_of(game).wire()
    assert set(doc["view"]) == {
        "variant", "options", "moves", "home", "total", "status", "redeals", "redeals_left",
        "piles",
    }


def test_deal_view_hides_what_the_position_shows(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "deal", "unlimited", "--json")
    doc = json.loads(out)
    visible = [c for _, cards in doc["view"]["piles"].values() for c in cards]
    assert len(visible) == 7  # one face-up card per column; the other 45 are counts
    assert doc["view"]["piles"]["s"] == [24, []]
    assert len(re.findall(r"[a2-9tjqk][cdhs]", doc["position"])) == 45  # face down: lower case


def test_deal_seed_hex_equals_decimal_and_default_is_zero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    top = "0xFFFF_FFFF_FFFF_FFFF"
    _, hexed, _ = run(capsys, "deal", "forty-and-eight", "--seed", top, "--text")
    _, dec, _ = run(capsys, "deal", "forty-and-eight", "--seed", str(2**64 - 1), "--text")
    _, zero, _ = run(capsys, "deal", "forty-and-eight", "--text")
    _, one, _ = run(capsys, "deal", "forty-and-eight", "--seed", "1", "--text")
    assert hexed == dec != zero != one
    assert zero.strip() == Game("forty-and-eight", None, 0).position_text()


def test_deal_options_change_the_deal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deal", "seven-by-five", "-o", "cells=5", "--option",
                       "empty_fill=ANY", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["options"] == {"cells": "5", "empty_fill": "any"}
    assert [f"c{i}" in doc["view"]["piles"] for i in range(1, 6)] == [True] * 5
    _, canonical, _ = run(capsys, "deal", "seven-by-five", "-o", "cells=5,empty_fill=any", "--json")
    assert json.loads(canonical) == doc


def test_deal_text_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deal", "sixes_and_sevens", "--seed", "3")
    assert code == 0
    assert "Sixes and Sevens" in out and "f16" in out and "t9" in out
    assert "0x0000000000000003" in out
    assert hashlib.sha256((3).to_bytes(8, "big")).hexdigest() in out


@pytest.mark.parametrize(
    "argv",
    [
        ["deal", "klondike"],
        ["deal", "unlimited", "--seed", "-1"],
        ["deal", "unlimited", "--seed", str(2**64)],
        ["deal", "unlimited", "--seed", "twelve"],
        ["deal", "unlimited", "--seed", "0x"],
        ["deal", "unlimited", "-o", "draw"],
        ["deal", "unlimited", "--color", "--no-color"],
        ["replay", "unlimited", "sw"],  # replay needs its seed
    ],
)
def test_usage_errors_exit_2_without_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert "error:" in err and "Traceback" not in err


def test_unknown_variant_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, "deal", "klondike")
    assert "unknown variant 'klondike'" in err
    for name in VARIANTS:
        assert name in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("draw=2", "option draw must be one of 1, 3, not '2'"),
        ("speed=fast", "unknown option 'speed'"),
        ("draw=1,draw=3", "option draw given twice"),
    ],
)
def test_bad_options_exit_1_with_the_reason(
    capsys: pytest.CaptureFixture[str], option: str, message: str
) -> None:
    code, out, err = run(capsys, "deal", "unlimited", "-o", option)
    assert code == 1 and not out
    assert err.startswith("solrace deal: error: ") and message in err
    assert "Traceback" not in err


# ------------------------------------------------------------------------------ colour


def test_colour_switches(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    base = ["deal", "unlimited", "--seed", "2"]
    _, auto, _ = run(capsys, *base)  # capsys is not a terminal
    _, forced, _ = run(capsys, *base, "--color")
    _, off, _ = run(capsys, *base, "--no-color")
    assert ANSI not in auto and ANSI not in off and auto == off
    assert "\x1b[31m" in forced or "\x1b[34m" in forced
    monkeypatch.setenv("NO_COLOR", "1")
    _, forced_anyway, _ = run(capsys, *base, "--color")
    assert forced_anyway == forced


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("flag", "no_color", "tty", "expected"),
    [
        (None, None, True, True),
        (None, None, False, False),
        (None, "1", True, False),
        (None, "", True, True),  # NO_COLOR counts only when not empty
        (True, "1", False, True),
        (False, None, True, False),
    ],
)
def test_use_color(
    monkeypatch: pytest.MonkeyPatch, flag: bool | None, no_color: str | None, tty: bool,
    expected: bool,
) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    args = argparse.Namespace(color=flag)
    assert use_color(args, _Terminal(tty)) is expected


# ------------------------------------------------------------------------------ replay


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("sixes-and-sevens", {}),
        ("seven-by-five", {"cells": "5"}),
        ("double-aces-and-kings", {}),
        ("unlimited", {"draw": "3"}),
        ("forty-and-eight", {"foundation_takeback": "yes"}),
    ],
)
def test_replay_json_equals_the_engine(
    capsys: pytest.CaptureFixture[str], variant: str, options: dict[str, str]
) -> None:
    moves = first_moves(variant, options, 77, 30)
    opts = [a for k, v in options.items() for a in ("-o", f"{k}={v}")]
    code, out, err = run(capsys, "replay", variant, "--seed", "77", *opts, *moves, "--json")
    assert code == 0 and not err
    doc = json.loads(out)
    game = Game(variant, options, 77)
    game.replay(moves)
    view = view_of(game).wire()
    assert doc["view"] == view and doc["moves"] == moves
    assert (doc["status"], doc["home"], doc["total"]) == (
        game.status.value, game.cards_home, game.total_cards,
    )


def test_replay_text_shows_board_status_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    moves = first_moves("forty-and-eight", {}, 4, 20)
    code, out, _ = run(capsys, "replay", "forty-and-eight", "--seed", "4", *moves)
    game = Game("forty-and-eight", None, 4)
    game.replay(moves)
    assert code == 0
    assert f"status: {game.status.value}" in out
    assert f"home: {game.cards_home}/104" in out and f"moves: {len(moves)}" in out
    assert "t8" in out and "f8" in out


def test_replay_accepts_moves_anywhere_and_in_one_string(
    capsys: pytest.CaptureFixture[str],
) -> None:
    moves = first_moves("unlimited", {}, 9, 6)
    _, spread, _ = run(capsys, "replay", "unlimited", moves[0], "--seed", "9", *moves[1:], "--text")
    _, joined, _ = run(capsys, "replay", "unlimited", "--seed", "9", ", ".join(moves), "--text")
    game = Game("unlimited", None, 9)
    game.replay(moves)
    assert spread == joined == game.position_text() + "\n"


def test_replay_illegal_move_names_number_move_and_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    moves = first_moves("unlimited", {}, 21, 5)
    game = Game("unlimited", None, 21)
    game.replay(moves)
    bad, exc = an_illegal_move(game)
    code, out, err = run(capsys, "replay", "unlimited", "--seed", "21", *moves, bad, "sw")
    assert code == 1 and not out
    first = err.splitlines()[0]
    assert first.startswith(f"solrace replay: error: move {len(moves) + 1} {bad!r}")
    assert exc.reason in first and exc.detail in first
    legal = [m.text() for m in game.legal_moves()]
    assert len(moves) == 5 and legal
    assert "legal here: " + " ".join(legal) in err
    assert "Traceback" not in err


@pytest.mark.parametrize("bad", ["t3", "x1t2", "t1t1", "t1t2:0"])
def test_replay_bad_notation_exit_1(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    code, _, err = run(capsys, "replay", "unlimited", "--seed", "0", "sw", bad)
    assert code == 1
    assert f"move 2 {bad!r}: not a move" in err and "Traceback" not in err


def test_replay_no_such_pile(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "unlimited", "--seed", "0", "t9f1")
    assert code == 1 and "move 1 't9f1' is illegal: Unlimited has no pile t9" in err


# ------------------------------------------------------------------------------ real process


def test_subprocess_exit_codes_and_streams() -> None:
    cmd = [sys.executable, "-m", "solrace.client.cli"]
    ok = subprocess.run([*cmd, "deal", "unlimited", "--seed", "5", "--json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and not ok.stderr
    assert json.loads(ok.stdout)["seed"] == 5
    bad = subprocess.run([*cmd, "replay", "unlimited", "--seed", "5", "wf1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and not bad.stdout
    assert "move 1 'wf1' is illegal: w is empty (empty_source)" in bad.stderr
    assert "Traceback" not in bad.stderr


# ------------------------------------------------------------------------------ the doc


def test_variants_doc_examples_are_what_the_code_does(capsys: pytest.CaptureFixture[str]) -> None:
    doc = DOC.read_text()
    _, position, _ = run(capsys, "deal", "unlimited", "--seed", "0", "--text")
    assert f"    {position.strip()}\n" in doc
    game = Game("unlimited", None, 0)
    assert f"    {view_of(game).text()}\n" in doc
    game.push("sw")
    assert view_of(game).text().endswith(" s:23# w:4C n:0")
    legal = " ".join(m.text() for m in Game("seven-by-five", {"cells": "5"}, 1).legal_moves())
    example = re.search(r"seed 1, starts with `([^`]*) …`", doc)
    assert example and legal.startswith(example.group(1))
    for v in VARIANTS.values():
        assert f"`{v.name}`" in doc
        for o in v.options:
            assert f"**`{o.name}`** = **`{o.default}`** (default)" in doc


# ------------------------------------------------------------------- replay --analyse
def _weak_line(variant: str, options: dict[str, str], seed: int) -> list[str]:
    from solrace.shared.engine import Status
    from solrace.shared.solver import Bot

    game, bot = Game(variant, options, seed), Bot("weak")
    while game.status is Status.PLAYING:
        move = bot.choose(game)
        if move is None:
            break
        game.push(move)
    return [m.text() for m in game.moves]


def test_replay_analyse_names_the_losing_move_and_a_win_from_before_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from solrace.shared.learning.lost import find_losing_move

    opts = {"cells": "5", "empty_fill": "any"}
    moves = _weak_line("seven-by-five", opts, 2)
    expected = find_losing_move("seven-by-five", opts, 2, moves)
    assert expected["result"] == "found"
    argv = ["replay", "seven-by-five", "--seed", "2", "--option", "cells=5",
            "--option", "empty_fill=any", "--analyse", *moves]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"the move that lost it: move {expected['ply'] + 1} {expected['move']}"
    assert lines[1] == "before it, a win existed from here:"
    assert lines[2].split() == expected["continuation"]
    code, out, _ = run(capsys, *argv, "--json")
    doc = json.loads(out)
    assert doc["analysis"]["ply"] == expected["ply"]
    assert doc["moves"] == moves


def test_replay_analyse_hidden_cards_says_as_they_lay(capsys: pytest.CaptureFixture[str]) -> None:
    moves = _weak_line("unlimited", {"draw": "3"}, 3)
    code, out, _ = run(capsys, "replay", "unlimited", "--seed", "3", "--option", "draw=3",
                       "--analyse", *moves)
    assert code == 0
    assert "for the cards as they lay" in out.splitlines()[1]


def test_replay_analyse_undecided_names_no_move() -> None:
    from solrace.client.commands.replay import analysis_lines

    result = {"result": "undecided", "between": [3, 9], "ply": None, "move": None,
              "continuation": [], "claim": None, "probes": 16, "nodes": 20000}
    lines = analysis_lines(result)
    assert lines[0].startswith("undecided: ")
    assert "between move 4 and move 9" in lines[0]
    assert "no move is named" in lines[0]
    assert not any("lost it" in line or "a win existed" in line for line in lines)
