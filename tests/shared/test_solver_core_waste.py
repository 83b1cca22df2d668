"""Waste dominance in the compiled Klondike core (draw 3; docs/solver.md, "Waste dominance").

Two positions alike but for the waste length: the one whose free stock cycle reaches every
waste position the other's does needs the search, the other does not. These tests check that
skipping the other never changes a verdict (positions decided with and without it agree, on a
spread of mid-game draw-3 positions), that it cuts proofs, that it touches neither draw 1 nor
the beam, and that node budgets stay deterministic.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from solrace.shared import Game
from solrace.shared.notation import Move
from solrace.shared.solver import Budget, Outcome, fastcore
from solrace.shared.solver.search import search_game

needs_core = pytest.mark.skipif(fastcore.library() is None,
                                reason=f"no compiled solver core here: {fastcore.KLONDIKE.error}")

DRAW3 = {"draw": "3"}
TB_NO = {"foundation_takeback": "no"}
WITHOUT = fastcore.OWN & ~fastcore.WASTE_DOM


def _full(game: Game, nodes: int, dead: bool | int) -> tuple[Outcome, list, int]:
    found = fastcore.search(game, Budget(nodes=nodes), None, streamline=False, dead_ends=dead)
    assert found is not None
    return found


def _replays(game: Game, triples: list[tuple[int, int, int]]) -> None:
    """The core's line, played through Game.push on a fresh copy of ``game``, wins."""
    ids = game.layout.ids
    check = Game(game.variant, game.options, game.seed, position=game.pos)
    for s, d, n in triples:
        check.push(Move(ids[s], ids[d], n))
    assert check.cards_home == check.total_cards


@needs_core
@pytest.mark.parametrize("options", [DRAW3, {**DRAW3, **TB_NO}])
def test_waste_dominance_keeps_every_verdict(options: dict[str, str]) -> None:
    """Mid-game draw-3 positions with a stock: wherever the search without the dominance
    decides, the search with it gives the same answer, its wins replay, and an exhausted
    search with it visits no more positions (a subset of the same graph); the search without
    any of the core's own prunings (the Python search's graph) never contradicts them."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_solver import _reduced

    rng = random.Random(11)
    decided = 0
    for _ in range(50):
        trial = _reduced(options, rng.randint(1, 10**6), rng, heights=(2, 8))
        off = _full(trial, 150_000, WITHOUT)
        if off[0] is Outcome.UNKNOWN:
            continue
        on = _full(trial, 150_000, True)
        plain = _full(trial, 150_000, False)
        assert on[0] is off[0], trial.position_text()
        assert plain[0] in (off[0], Outcome.UNKNOWN), trial.position_text()
        if on[0] is Outcome.LOST:
            assert on[2] <= off[2], trial.position_text()
        else:
            _replays(trial, on[1])
        decided += 1
    assert decided >= 25


# lost draw-3 deals: the positions the full search visits to prove it without the dominance,
# and with it (pinned: a rule that skips more, or fewer, positions changes them; the two unsound
# variants tried, "any twin of the same residue" and "the aligned twin dominates", did)
LOST = [(DRAW3, 64, 705, 657), (DRAW3, 69, 1090, 802), (DRAW3, 153, 4337, 4014),
        ({**DRAW3, **TB_NO}, 136, 66145, 49065), ({**DRAW3, **TB_NO}, 139, 11210, 9393),
        ({**DRAW3, **TB_NO}, 144, 4168, 3362), ({**DRAW3, **TB_NO}, 177, 4322, 3342),
        ({**DRAW3, **TB_NO}, 194, 934, 835)]


@needs_core
@pytest.mark.parametrize(("options", "seed", "without", "with_"), LOST, ids=str)
def test_waste_dominance_cuts_draw_three_proofs(options: dict[str, str], seed: int,
                                                without: int, with_: int) -> None:
    """Lost draw-3 deals are proved lost in fewer positions with the dominance (with and
    without take-back), and the search without any of the core's own prunings proves them
    lost too: the dominance never turns a deal lost that is not."""
    game = Game("unlimited", options, seed)
    on, off = _full(game, 10**6, True), _full(game, 10**6, WITHOUT)
    assert on[0] is off[0] is Outcome.LOST
    assert (off[2], on[2]) == (without, with_)
    assert _full(game, 3 * 10**6, False)[0] is Outcome.LOST


@needs_core
def test_waste_dominance_leaves_draw_one_and_the_beam_alone() -> None:
    """Draw 1 has no waste length in its key (every card is reachable): the same nodes with
    the flag and without. The beam keeps exact keys (its tuned widths assume them)."""
    for seed in (12, 37, 50):
        game = Game("unlimited", {}, seed)
        assert _full(game, 50_000, True) == _full(game, 50_000, WITHOUT)
    for seed in (3, 14):
        game = Game("unlimited", DRAW3, seed)
        runs = [fastcore.beam(game, Budget(nodes=40_000), None, dead_ends=dead)
                for dead in (True, WITHOUT)]
        assert runs[0] == runs[1]


@needs_core
def test_waste_dominance_is_deterministic_and_its_wins_replay() -> None:
    """A node budget gives the same answer, count and line twice; every won line replays
    through Game.push (search_game checks it too)."""
    won = 0
    for seed in range(1, 13):
        game = Game("unlimited", DRAW3, seed)
        a, b = _full(game, 60_000, True), _full(game, 60_000, True)
        assert a == b
        if a[0] is Outcome.WON:
            _replays(game, a[1])
            won += 1
    assert won >= 4
    result = search_game(Game("unlimited", DRAW3, 5), Budget(nodes=30_000), core="c")
    again = search_game(Game("unlimited", DRAW3, 5), Budget(nodes=30_000), core="c")
    assert (result.outcome, result.moves, result.nodes) == (again.outcome, again.moves,
                                                            again.nodes)
