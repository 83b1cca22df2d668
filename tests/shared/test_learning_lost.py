"""The move that lost it (shared/learning/lost.py): the bisection agrees with solving every
position of the line, and an undecided probe is never turned into a verdict."""

from __future__ import annotations

import random

import pytest
from solrace.shared.engine import Game, Status
from solrace.shared.learning.lost import (
    CLAIM_HIDDEN,
    CLAIM_OPEN,
    find_losing_move,
    positions,
    solver_probe,
)
from solrace.shared.solver import Bot

OPEN = ("seven-by-five", {"cells": "5", "empty_fill": "any"})


def bot_line(variant: str, options: dict | None, seed: int, cap: int = 300) -> list[str]:
    game, bot, out = Game(variant, options, seed), Bot("weak"), []
    while game.status is Status.PLAYING and len(out) < cap:
        move = bot.choose(game)
        if move is None:
            break
        out.append(game.push(move).text())
    return out


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_bisection_agrees_with_solving_every_position(seed: int) -> None:
    variant, options = OPEN
    moves = bot_line(variant, options, seed)
    probe = solver_probe()
    truth = [probe(g.copy())[0] for g in positions(variant, options, seed, moves)]
    assert "undecided" not in truth  # small positions: every probe is proven
    result = find_losing_move(variant, options, seed, moves)
    last_won = max(i for i, t in enumerate(truth) if t == "won")
    assert truth[last_won + 1:] == ["lost"] * (len(truth) - last_won - 1)  # monotone
    assert result["result"] == "found"
    assert result["ply"] == last_won
    assert result["move"] == moves[last_won]
    assert result["claim"] == CLAIM_OPEN
    game = positions(variant, options, seed, moves)[last_won]
    for text in result["continuation"]:
        game.push(text)
    assert game.status is Status.WON
    assert result["probes"] < len(truth)


def test_hidden_card_variant_says_the_solver_saw_the_cards() -> None:
    moves = bot_line("unlimited", {"draw": "3"}, 3)
    result = find_losing_move("unlimited", {"draw": "3"}, 3, moves)
    assert result["result"] == "found"
    assert result["claim"] == CLAIM_HIDDEN
    assert "as they lay" in result["claim"]


def _no_repeat(variant: str, options: dict | None, seed: int, moves: list[str]) -> list[str]:
    """The longest prefix of the line that never comes back to a position: the oracle below
    knows a position's ply from its text."""
    keys = [g.position_text() for g in positions(variant, options, seed, moves)]
    for i, key in enumerate(keys):
        if key in keys[:i]:
            return moves[:i - 1]
    return moves


@pytest.mark.parametrize("trial", range(200))
def test_undecided_is_never_a_verdict(trial: int) -> None:
    """Random monotone truths with random undecided holes: a ``found`` answer always has a
    proven win at ``ply`` and a proven loss at ``ply + 1``; otherwise no move is named."""
    rng = random.Random(trial)
    variant, options = OPEN
    seed = 1 + trial % 2
    moves = _no_repeat(variant, options, seed, bot_line(variant, options, seed))
    n = len(moves)
    assert n >= 10
    k = rng.randrange(0, n)
    truth = ["won" if i <= k else "lost" for i in range(n + 1)]
    for i in range(n + 1):
        if rng.random() < 0.3:
            truth[i] = "undecided"
    asked: list[int] = []
    ply_of = {g.position_text(): i
              for i, g in enumerate(positions(variant, options, seed, moves))}

    def probe(game: Game) -> tuple[str, list[str]]:
        i = ply_of[game.position_text()]
        asked.append(i)
        return truth[i], (["x"] if truth[i] == "won" else [])

    result = find_losing_move(variant, options, seed, moves, probe=probe)
    if result["result"] == "found":
        assert result["ply"] == k
        assert truth[k] == "won" and truth[k + 1] == "lost"
        assert k in asked and k + 1 in asked
    else:
        assert result["result"] == "undecided"
        assert result["move"] is None and result["claim"] is None
        assert result["continuation"] == []
        lo, hi = result["between"]
        assert lo is None or truth[lo] == "won"
        assert hi is None or truth[hi] == "lost"
    assert len(set(asked)) <= 16


def test_resigned_while_winnable_names_no_losing_move() -> None:
    variant, options = OPEN
    moves = bot_line(variant, options, 1)[:5]
    result = find_losing_move(variant, options, 1, moves)
    assert result["result"] == "winnable_at_end"
    assert result["move"] is None and result["ply"] == 5


def test_won_game_over_par_and_longest_detour() -> None:
    variant, options = OPEN
    win = solver_probe()(Game(variant, options, 1))[1]
    line = None  # the winning line with a two-move loop inserted at the first ply that has one
    game = Game(variant, options, 1)
    for at in range(len(win)):
        start = game.position_text()
        for first in game.legal_moves():
            there = game.copy()
            there.push(first)
            back = [m for m in there.legal_moves()
                    if _after(there, m) == start]
            if back:
                line, loop_at = [*win[:at], first.text(), back[0].text(), *win[at:]], at
                break
        if line:
            break
        game.push(win[at])
    assert line, "no two-move loop along the winning line"
    result = find_losing_move(variant, options, 1, line)
    assert result["result"] == "won"
    assert result["over_par"] == 2 and result["par"] == len(win)
    assert result["detour"] == {"from": loop_at, "to": loop_at + 2, "moves": 2}


def _after(game: Game, move: object) -> str:
    copy = game.copy()
    copy.push(move)  # type: ignore[arg-type]
    return copy.position_text()
