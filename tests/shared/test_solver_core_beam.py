"""The compiled core's beam member (``fastcore.beam``, klondike.c's ``beam_search``): a
heuristic walk of the depth-first search's graph in layers. Its wins replay through
``Game.push``, a node budget gives the same answer every time, and it never reports a loss
(it drops positions, so running dry proves nothing).
"""

from __future__ import annotations

import pytest
from solrace.shared import Game
from solrace.shared.notation import Move
from solrace.shared.solver import Budget, Outcome, fastcore, search
from solrace.shared.solver.search import search_game

needs_core = pytest.mark.skipif(fastcore.library() is None,
                                reason=f"no compiled solver core here: {fastcore.KLONDIKE.error}")

TB_NO = {"foundation_takeback": "no"}
DRAW3 = {"draw": "3"}
SHAPE = (100, 30, 4, 2, 2, 1, 3)
# deals the depth-first core proves lost (test_solver_core.py's LOST)
LOST = [({}, 37), ({}, 335), (DRAW3, 69), (DRAW3, 147), (TB_NO, 41),
        ({**DRAW3, **TB_NO}, 66), ({**DRAW3, **TB_NO}, 215)]


def _replays_to_a_win(options: dict[str, str], seed: int, line: list[tuple[int, int, int]]
                      ) -> bool:
    check = Game("unlimited", options, seed)
    ids = check.layout.ids
    for s, d, n in line:
        check.push(Move(ids[s], ids[d], n))
    return check.cards_home == 52


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3, TB_NO])
@pytest.mark.parametrize("greedy", [False, True])
def test_beam_wins_replay_and_are_deterministic(options: dict[str, str], greedy: bool) -> None:
    won = 0
    for seed in range(1, 11):
        game = Game("unlimited", options, seed)
        a = fastcore.beam(game, Budget(nodes=50_000), None, greedy=greedy, shape=SHAPE)
        b = fastcore.beam(game, Budget(nodes=50_000), None, greedy=greedy, shape=SHAPE)
        assert a is not None and a == b
        assert a[2] <= 50_000 and a[0] is not Outcome.LOST
        if a[0] is Outcome.WON:
            raw = fastcore.beam(game, Budget(nodes=50_000), None, greedy=greedy, shape=SHAPE,
                                shorten=False)
            assert raw is not None and raw[0] is Outcome.WON
            assert _replays_to_a_win(options, seed, a[1])
            assert _replays_to_a_win(options, seed, raw[1])
            won += 1
    assert won >= 3


@needs_core
@pytest.mark.parametrize(("options", "seed"), LOST, ids=lambda x: str(x))
def test_beam_never_answers_lost(options: dict[str, str], seed: int) -> None:
    """On deals proved lost it runs dry or out of budget: unknown, never a proof (its
    dropped positions were never searched); the blocking test at the start is not its to
    report either."""
    game = Game("unlimited", options, seed)
    for shape in (SHAPE, (1, 1, 4, 2, 2, 1, 0)):
        result = fastcore.beam(game, Budget(nodes=200_000), None, shape=shape)
        assert result is not None and result[0] is Outcome.UNKNOWN


@needs_core
def test_beam_respects_the_node_budget_and_starts_mid_game() -> None:
    cut = fastcore.beam(Game("unlimited", DRAW3, 3), Budget(nodes=1_000), None,
                        shape=(1000, 100, 4, 2, 2, 1, 0))
    assert cut is not None and cut[0] is Outcome.UNKNOWN and cut[2] == 1_000
    game = Game("unlimited", {}, 5)
    game.replay(search.search_game(game, Budget(nodes=4_000)).moves[:30])
    found = fastcore.beam(game, Budget(nodes=50_000), None, shape=SHAPE)
    assert found is not None and found[0] is Outcome.WON and len(game.moves) == 30
    ids = game.layout.ids
    for s, d, n in found[1]:
        game.push(Move(ids[s], ids[d], n))
    assert game.cards_home == 52


@needs_core
def test_the_portfolio_wins_by_the_beam_what_the_other_members_leave() -> None:
    """Unlimited draw 3 seed 925: undecided by the portfolio without the beam at 3M
    nodes; the beam member (its default shape, streamlined) wins it in some 211k nodes."""
    game = Game("unlimited", DRAW3, 925)
    alone = fastcore.beam(game, Budget(nodes=250_000), None, greedy=True)
    assert alone is not None and alone[0] is Outcome.WON
    assert fastcore.best(game, Budget(nodes=250_000), None, greedy=True,
                         weights=(4, 2, 2, 2, 0))[0] is Outcome.UNKNOWN
    result = search_game(game, Budget(nodes=1_200_000))
    assert result.won  # replayed through Game.push by search_game


def test_without_the_core_the_beam_is_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """No core: ``fastcore.beam`` declines, and the portfolio (the Python search) still wins."""
    monkeypatch.setenv(fastcore.ENV, "python")
    assert fastcore.beam(Game("unlimited", DRAW3, 5), Budget(nodes=1_000), None) is None
    assert search_game(Game("unlimited", {}, 5), Budget(nodes=4_000)).won


@needs_core
def test_the_late_beam_wins_in_the_last_phase_and_its_line_replays() -> None:
    """Draw 3 seed 333: undecided by the portfolio with the first beam at 3M nodes; the late
    beam (width 8000, stock weight 1) wins it in some 183k nodes of the last phase's
    streamlined part."""
    from solrace.shared.solver import coreportfolio as portfolio

    game = Game("unlimited", DRAW3, 333)
    found = portfolio._final_search(game, Budget(nodes=900_000))
    assert found is not None and found[0] is Outcome.WON and found[2] <= 900_000
    assert _replays_to_a_win(DRAW3, 333, found[1])


@needs_core
@pytest.mark.parametrize(("options", "seed"), LOST[2:4], ids=lambda x: str(x))
def test_the_late_beam_leaves_the_full_search_its_proofs(
        options: dict[str, str], seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last phase proves these deals lost with and without the late beams, and a second
    run gives the same nodes (deterministic)."""
    from solrace.shared.solver import coreportfolio as portfolio

    game = Game("unlimited", options, seed)
    budget = Budget(nodes=600_000)
    with_beam = portfolio._final_search(game, budget)
    assert with_beam is not None and with_beam[0] is Outcome.LOST
    assert portfolio._final_search(game, budget) == with_beam
    monkeypatch.setattr(portfolio, "CORE_LATE_BEAM", {})
    without = portfolio._final_search(game, budget)
    assert without is not None and without[0] is Outcome.LOST
