"""The Python search's faster pieces (docs/solver.md, "The search") against the
general code they replace: each must give the same value on every position, so the search
visits the same nodes in the same order and gives the same answers at every node budget."""

from __future__ import annotations

import random

import pytest
from solrace.shared import Game
from solrace.shared.solver.moves import MoveGen
from solrace.shared.solver.safe_moves import SafeMoves, _full_height

CONFIGS = [
    ("forty-and-eight", {}), ("forty-and-eight", {"foundation_takeback": "yes"}),
    ("unlimited", {}), ("unlimited", {"draw": "3"}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}), ("seven-by-five", {}),
    ("double-aces-and-kings", {}), ("sixes-and-sevens", {}),
]


def _positions(variant: str, options: dict[str, str], seeds: int = 6, steps: int = 300):
    """Positions of random play (mostly home, some draws and redeals), one after each move."""
    for seed in range(1, seeds + 1):
        game = Game(variant, options, seed)
        rng = random.Random(seed)
        for _ in range(steps):
            moves = game._legal()
            if not moves:
                break
            home = [m for m in moves if m[1] in game._F]
            game._do(*(rng.choice(home) if home and rng.random() < 0.5 else rng.choice(moves)))
            yield game


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_home_count_is_the_sum_over_the_foundations(variant: str, options: dict[str, str]
                                                    ) -> None:
    for game in _positions(variant, options, seeds=3, steps=150):
        gen = MoveGen(game)
        assert gen.home() == sum(len(game.pos.piles[f]) for f in game._F)


@pytest.mark.parametrize("options", [{}, {"foundation_takeback": "yes"}])
def test_two_deck_full_heights_match_the_general_rule(options: dict[str, str]) -> None:
    seen = set()
    for game in _positions("forty-and-eight", options):
        safe = SafeMoves(game)
        heights: list[list[int]] = [[], [], [], []]
        for f in game._F:
            p = game.pos.piles[f]
            if p:
                heights[p[0] // 13].append(len(p))
        want = [_full_height(h, 2) for h in heights]
        assert safe._full_heights() == want
        seen.add(tuple(want))
    assert len(seen) > 5  # the walks do fill foundations


@pytest.mark.parametrize(("variant", "options"), [
    ("forty-and-eight", {}), ("forty-and-eight", {"foundation_takeback": "yes"}),
    ("unlimited", {}),
])
def test_draw_one_stock_walk_in_closed_form_matches_the_loop(variant: str,
                                                             options: dict[str, str]) -> None:
    checked = 0
    redealt = set()
    for game in _positions(variant, options):
        gen = MoveGen(game)
        if game._S < 0:
            continue
        gen._walk_fresh = False
        fast = gen._stock_walk()
        gen._walk_fresh = False
        gen.walk_closed_form = False
        assert gen._stock_walk() == fast
        checked += bool(fast[0])
        redealt.add(game.pos.redeals)
    assert checked > 100
    assert variant == "unlimited" or redealt == {0, 1}  # both passes of the stock


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_special_keys_are_the_general_key(variant: str, options: dict[str, str]) -> None:
    from solrace.shared.solver.canonical import (
        _special_key,
        general_key_function,
        key_function,
    )

    game = Game(variant, options, 1)
    special = _special_key(game) is not None
    assert special == (variant == "forty-and-eight" or options.get("cells") == "5")
    for game in _positions(variant, options, seeds=4, steps=200):
        assert key_function(game)() == general_key_function(game)()
