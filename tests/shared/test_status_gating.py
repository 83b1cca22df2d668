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


#: Unlimited draw 3, seed 15080 (found by tests/shared/test_move_path.py): before the last draw
#: the waste holds 50 of the 51 stock-and-waste cards, a length off the draw-3 cycle (0, 3, ...,
#: 48, 51); the draw leaves it for good, and the one card only it brought to the waste top was
#: the last card that could still play. The game is lost after that draw.
OFF_CYCLE_LINE = " ".join((
    "t6f4 sw sw sw sw t6t4 sw sw sw sw ws sw sw sw sw sw sw wf4 sw sw ws sw sw sw sw wt2 sw sw",
    "sw sw ws sw sw sw sw sw wt7 sw sw wt4 sw",
)).split(" ")


def test_a_draw_off_the_cycle_recomputes_the_status() -> None:
    game = Game("unlimited", {"draw": "3"}, 15080)
    game.replay(OFF_CYCLE_LINE[:-1])
    assert game.status is Status.PLAYING
    assert len(game.pos.piles[game.layout.waste]) % 3 != 0  # off the cycle
    game.push(OFF_CYCLE_LINE[-1])
    assert game._status is None  # not kept
    assert game.status is Status.LOST
    assert compute_status(game) is Status.LOST


def test_a_draw_on_the_cycle_keeps_the_status() -> None:
    """From a waste length that is a multiple of the draw the cycle is not left: kept."""
    game = Game("unlimited", {"draw": "3"}, 15080)
    game.replay(["t6f4"])
    assert game.status is Status.PLAYING and not game.pos.piles[game.layout.waste]
    game.push("sw")
    assert game._status is Status.PLAYING
    assert compute_status(game) is Status.PLAYING
