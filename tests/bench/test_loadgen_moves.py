"""The load generator's move supply: random legal moves, or a practice bot's, both replaying
through the public engine (what the server will check them with)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import loadgen
from solrace.shared.engine import Game, Status


@pytest.mark.parametrize("player", ["random", "weak", "medium"])
def test_move_source_plays_legal_moves(player: str) -> None:
    src = loadgen.MoveSource("unlimited", {"draw": "1"}, 7, 11, player)
    made = src.extend(150)
    assert made > 0 and len(src.moves) == made
    replica = Game("unlimited", {"draw": "1"}, 7)
    for text in src.moves:
        replica.push(text)  # raises on an illegal move
    assert replica.position_text() == src.game.position_text()


def test_a_bot_source_stops_when_its_game_ends() -> None:
    """Bots head for a win (unlike random play); when the game is over, or the bot gives up,
    ``extend`` returns fewer moves than asked and the connection stops."""
    src = loadgen.MoveSource("seven-by-five", {"cells": "5", "empty_fill": "any"}, 3, 5,
                             "medium")
    made = src.extend(5000)
    assert made < 5000
    assert src.game.status is not Status.PLAYING or src.extend(10) == 0
