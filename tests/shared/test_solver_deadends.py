"""The pile-up test of Sixes and Sevens (``shared/solver/deadends.py``, ``pile_up`` in
``onepass.c``): a sound dead-end test, applied at the start and at every node of the search.

Each constructed position sits on one side of the test's threshold (10 held cards above a
waste card, or 9 when that card is held itself) and is checked against the plain exhaustive
search over the engine's moves, which knows nothing of the test: the ones it calls dead are
lost, the ones one card short of it are won. Then the test inside the search: answers equal the
search without it wherever both finish, and the compiled core agrees node for node.
"""

from __future__ import annotations

import random

import pytest
from positions import make
from solrace.shared import Game
from solrace.shared.solver import Budget, Outcome, onepass
from solrace.shared.solver.deadends import dead_end_test, held_mask, pile_up
from solrace.shared.solver.search import Searcher, search_game

needs_core = pytest.mark.skipif(onepass.library() is None,
                                reason=f"no compiled solver core here: {onepass.CORE.error}")

V = "sixes-and-sevens"
AUTO: dict[str, str] = {}
MANUAL = {"empty_fill": "manual"}
# clubs and hearts down at their Sixes; every other foundation as far as the cards allow
F = {1: "6C", 5: "6C", 3: "6H", 7: "6H"}
# nine tableau cards that all go home at once: each frees a pile for the waste top
T = ["KH", "KH", "KD", "KD", "KS", "KS", "KC", "KC", "AD"]
# waste bottom to top; the rest (AC, 2H, AH ...) at the bottom of the stock
POSITIONS = [
    # X = the second 5H: with both 5C and both 5H below it, every 4..A of clubs and hearts is
    # held; 10 of them above X cannot all wait on a tableau of 9
    ("5C 5H 5C 5H 4C 4C 3C 3C 4H 4H 3H 3H 2C 2C", True),
    ("5C 5H 5C 5H 4C 4C 3C 3C 4H 4H 3H 3H 2C", False),  # 9: they can
    # X = a 4C over both 5C: X itself leaves only to the tableau, so 9 held above are too many
    ("5H 5H 5C 5C 4C 4H 4H 3H 3C 3C 2C 2C 4C AC", True),
    ("5H 5H 5C 5C 4C 4H 4H 3H 3C 3C 2C 2C 4C", False),  # 8 and X: they fit
]


@pytest.mark.parametrize("options", [AUTO, MANUAL], ids=["auto", "manual"])
@pytest.mark.parametrize(("waste", "dead"), POSITIONS)
def test_the_test_is_exact_at_its_threshold(options: dict[str, str], waste: str,
                                            dead: bool) -> None:
    game = make(V, options, f=F, t=T, w=waste)
    before = game.position_text()
    assert pile_up(game) is dead
    assert game.position_text() == before
    plain = Searcher(game, pruning=False)  # engine moves, no pruning, no dead ends
    outcome, _ = plain.run_dfs(Budget(nodes=200_000))
    assert outcome is (Outcome.LOST if dead else Outcome.WON)
    searcher = Searcher(game)
    assert searcher.run_dfs(Budget(nodes=200_000))[0] is outcome
    if dead:
        assert searcher.nodes == 1  # lost at the start, nothing searched


@needs_core
@pytest.mark.parametrize(("waste", "dead"), POSITIONS)
def test_the_core_runs_the_same_test(waste: str, dead: bool) -> None:
    game = make(V, AUTO, f=F, t=T, w=waste)
    for kind in ("dfs", "best"):
        searcher = Searcher(game)
        outcome, line = (searcher.run_best if kind == "best" else searcher.run_dfs)(
            Budget(nodes=50_000))
        assert onepass.search(game, Budget(nodes=50_000), kind) == (outcome, line,
                                                                     searcher.nodes)
        assert (outcome is Outcome.LOST) is dead


def test_held_distances() -> None:
    # both foundations at the Six or Seven (0, 0): a full distance 1 holds all farther ones
    assert held_mask(0b10, 0, 0) == 0b1111100
    # foundations at distances 0 and 3: 1..3 have one copy left each; that copy of 2 out of
    # reach holds 3 (it must go on the lower foundation) but not 4..6 (the higher one is at 3)
    assert held_mask(0b100, 0, 3) == 0b1000
    assert held_mask(0, 0, 3) == 0
    # both copies of 4 out of reach hold 5 and 6, whichever foundation they would go on
    assert held_mask(0b10000, 0, 3) == 0b1100000


def test_only_sixes_and_sevens_has_the_test() -> None:
    assert dead_end_test(Game(V, AUTO, 1)) is not None
    assert dead_end_test(Game(V, MANUAL, 1)) is not None
    for variant in ("double-aces-and-kings", "forty-and-eight", "unlimited", "seven-by-five"):
        assert dead_end_test(Game(variant, {}, 1)) is None
    assert Searcher(Game(V, AUTO, 1), pruning=False).dead is None  # not in the baseline


def _late(seed: int, stock_left: int, options: dict[str, str]) -> Game:
    """A position of play: random legal moves, mostly home, down to ``stock_left`` cards."""
    game = Game(V, options, seed)
    rng = random.Random(seed * 7 + stock_left)
    while len(game.pos.piles[game._S]) > stock_left:
        legal = game._legal()
        if not legal:
            break
        home = [m for m in legal if m[1] in game._F and m[0] not in game._F]
        game._do(*(rng.choice(home) if home and rng.random() < 0.9 else rng.choice(legal)))
    return game


@pytest.mark.parametrize("options", [AUTO, MANUAL], ids=["auto", "manual"])
def test_dead_ends_never_change_a_decided_answer(options: dict[str, str]) -> None:
    """Late positions of 8 deals, both members with and without the test: where both
    finish they agree, the test never turns a decided answer around, and (automatic spaces,
    where the positions are harder) it decides more."""
    decided = {True: 0, False: 0}
    for seed in range(1, 9):
        game = _late(seed, 12, options)
        for kind in ("dfs", "best"):
            answers = {}
            for dead_ends in (True, False):
                searcher = Searcher(game, dead_ends=dead_ends)
                run = searcher.run_best if kind == "best" else searcher.run_dfs
                answers[dead_ends] = run(Budget(nodes=4_000))[0]
                decided[dead_ends] += answers[dead_ends] is not Outcome.UNKNOWN
            if Outcome.UNKNOWN not in answers.values():
                assert answers[True] is answers[False]
            assert answers[False] is Outcome.UNKNOWN or answers[True] is answers[False]
    assert decided[True] > decided[False] or (options == MANUAL
                                              and decided[True] == decided[False])


@needs_core
def test_the_core_agrees_node_for_node_with_dead_ends() -> None:
    """Positions all through the game: each member, with the test and without, gives the
    Python search's outcome, line and node count."""
    lost = 0
    for seed in range(1, 9):
        for stock_left in (30, 12):
            game = _late(seed, stock_left, AUTO)
            for kind in ("dfs", "best"):
                for dead_ends in (True, False):
                    searcher = Searcher(game, dead_ends=dead_ends)
                    run = searcher.run_best if kind == "best" else searcher.run_dfs
                    outcome, line = run(Budget(nodes=3_000))
                    assert onepass.search(game, Budget(nodes=3_000), kind,
                                          dead_ends=dead_ends) == (outcome, line,
                                                                   searcher.nodes)
                    lost += outcome is Outcome.LOST and dead_ends
    assert lost


def test_a_deal_proved_lost_by_dead_ends_replays_no_win() -> None:
    """The whole solver on a constructed dead position: lost, in one node, on either search."""
    game = make(V, AUTO, f=F, t=T, w=POSITIONS[0][0])
    for core in ("python", "auto"):
        result = search_game(game, Budget(nodes=10_000), core=core)
        assert result.outcome is Outcome.LOST
        assert not result.moves
