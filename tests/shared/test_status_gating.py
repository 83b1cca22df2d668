"""The engine keeps a known ``playing`` status across a draw or redeal where that cannot change
it (Klondike-checked variants with unlimited redeals: ``Game.push``); every such shortcut must
agree with a fresh computation."""

from __future__ import annotations

import random

import pytest
from solrace.shared.engine import Game, Status
from solrace.shared.status import compute_status


def _play(draw: str, seed: int) -> int:
    """Random play checking every status; how many statuses were kept across a move."""
    rng = random.Random(seed)
    game = Game("unlimited", {"draw": draw}, rng.getrandbits(64))
    kept = 0
    for _ in range(600):
        legal = game.legal_moves()
        if not legal or game.status is not Status.PLAYING:
            break
        # draws are common in real play; bias towards them so redeal cycles are covered
        draws = [m for m in legal if "s" in (m.src, m.dst)]
        move = rng.choice(draws) if draws and rng.random() < 0.5 else rng.choice(legal)
        game.push(move)
        if game._status is not None:
            kept += 1
        assert game.status is compute_status(game), (game.moves, game.position_text())
    return kept


@pytest.mark.parametrize("draw", ["1", "3"])
@pytest.mark.parametrize("seed", range(12))
def test_kept_status_equals_a_fresh_computation(draw: str, seed: int) -> None:
    _play(draw, seed)


def test_the_shortcut_is_taken() -> None:
    assert all(_play(d, 0) for d in ("1", "3"))


@pytest.mark.parametrize("variant", ["forty-and-eight", "sixes-and-sevens"])
def test_other_variants_always_recompute(variant: str) -> None:
    rng = random.Random(5)
    game = Game(variant, None, rng.getrandbits(64))
    for _ in range(200):
        legal = game.legal_moves()
        if not legal or game.status is not Status.PLAYING:
            break
        game.push(rng.choice(legal))
        assert game._status is None
