"""Sixes and Sevens with automatic spaces solved over pop orders (``shared/solver/poporder.py``).

The search is exact only if the reduction is (docs/solver.md, "Sixes and Sevens as pop
orders"), so it is checked against the plain exhaustive search over the engine's moves, which
knows nothing of it, on positions of play on both sides of won and lost; its won lines replay
through ``Game.push``; its two prunings never change an answer; a node budget is
deterministic; and the default portfolio uses it for this game only.
"""

from __future__ import annotations

import random

import pytest
from positions import make
from solrace.shared import Game, Move
from solrace.shared.engine import Status
from solrace.shared.solver import Budget, Outcome, poporder, solve
from solrace.shared.solver.poporder import WIDTH, PopSearch, chain_slot, closure
from solrace.shared.solver.search import Searcher

V = "sixes-and-sevens"
MANUAL = {"empty_fill": "manual"}


def _push(game: Game, triple: tuple[int, int, int]) -> None:
    ids = game.layout.ids
    game.push(Move(ids[triple[0]], ids[triple[1]], triple[2]))


def _won_line(seed: int, options: dict[str, str] | None = None) -> list[tuple[int, int, int]]:
    outcome, line, _ = poporder.search(Game(V, options or {}, seed), Budget(nodes=100_000))
    assert outcome is Outcome.WON
    return line


def _positions(options: dict[str, str] | None = None) -> list[Game]:
    """Positions of play near a win: a winning line followed to 10-22 cards left in stock and
    waste, then 6-24 random legal moves (which often lose it; with manual spaces they also
    leave spaces and move tableau cards between piles)."""
    out = []
    seeds = (1, 2, 3, 5, 9, 10, 12, 14) if not options else (1, 2, 3, 4, 6, 7, 8, 9)
    for seed in seeds:
        line = _won_line(seed, options)
        for trial, (left, wander) in enumerate([(10, 6), (16, 14), (22, 24)]):
            rng = random.Random(seed * 7 + trial)
            game = Game(V, options or {}, seed)
            i = 0
            while len(game.pos.piles[game._S]) + len(game.pos.piles[game._W]) > left + wander // 2:
                _push(game, line[i])
                i += 1
            for _ in range(wander):
                legal = game.legal_triples()
                if not legal or game.status is not Status.PLAYING:
                    break
                _push(game, rng.choice(legal))
            if game.status is Status.PLAYING:
                out.append(game)
    for seed in (6, 11) if not options else (10, 12):  # lost deals: random play, stock low
        for left in (3, 6, 9):
            rng = random.Random(seed + left)
            game = Game(V, options or {}, seed)
            while len(game.pos.piles[game._S]) > left and game.status is Status.PLAYING:
                legal = game.legal_triples()
                fill = [t for t in legal if t[0] == game._W and t[1] in game._T]
                home = [t for t in legal if t[1] in game._F]
                draw = [t for t in legal if t[0] == game._S]
                choices = [m for m in (fill, home, draw) if m and rng.random() < 0.8] or \
                    [m for m in (fill, home, draw) if m]
                _push(game, rng.choice(choices[0]))
            if game.status is Status.PLAYING:
                out.append(game)
    return out


@pytest.mark.parametrize("options", [{}, MANUAL], ids=["auto", "manual"])
def test_the_reduction_agrees_with_the_exhaustive_move_search(options: dict[str, str]) -> None:
    """Where the engine-move search without pruning finishes, the pop-order search gives the
    same answer — on won and on lost positions alike, with either kind of spaces."""
    seen = {Outcome.WON: 0, Outcome.LOST: 0}
    for game in _positions(options):
        reference, _ = Searcher(game, pruning=False).run_dfs(Budget(nodes=300_000))
        if reference is Outcome.UNKNOWN:
            continue
        outcome, _, _ = poporder.search(game, Budget(nodes=1_000_000))
        assert outcome is reference, game.position_text()
        seen[outcome] += 1
    assert seen[Outcome.WON] >= 5 and seen[Outcome.LOST] >= 3, seen


@pytest.mark.parametrize("seed", [1, 2, 4, 12, 39])
def test_won_lines_replay_to_a_win_and_have_the_only_length_a_win_has(seed: int) -> None:
    game = Game(V, {}, seed)
    before = game.position_text()
    line = _won_line(seed)
    assert game.position_text() == before  # the solver works on a copy
    for triple in line:
        _push(game, triple)
    assert game.status is Status.WON
    # every win is the 79 draws and the 88 cards that go home: nothing else is a move here
    assert len(line) == 79 + 88


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_manual_spaces_won_lines_replay(seed: int) -> None:
    """Manual spaces: the same reduction, and a tableau card going home is followed by the
    waste top into its space (the automatic spaces' refill, made by hand)."""
    game = Game(V, MANUAL, seed)
    line = _won_line(seed, MANUAL)
    for triple in line:
        _push(game, triple)
    assert game.status is Status.WON
    assert any(s == game._W and d in game._T for s, d, _ in line)


def test_whole_deals_proved_lost_are_not_won_by_the_move_search() -> None:
    """Deals 6 and 16 are proved lost; the move searches (the old portfolio's members, at a
    budget where best-first wins deal 1) find no win there."""
    assert Searcher(Game(V, {}, 1)).run_best(Budget(nodes=5_000))[0] is Outcome.WON
    for seed in (6, 16):
        outcome, _, _ = poporder.search(Game(V, {}, seed), Budget(nodes=100_000))
        assert outcome is Outcome.LOST
        for kind in ("dfs", "best"):
            searcher = Searcher(Game(V, {}, seed))
            run = searcher.run_best if kind == "best" else searcher.run_dfs
            assert run(Budget(nodes=5_000))[0] is not Outcome.WON


@pytest.mark.parametrize(("dig", "safe"), [(False, False), (True, False), (False, True)])
def test_the_prunings_change_no_answer(dig: bool, safe: bool) -> None:
    decided = 0
    for game in [*_positions()[:12], *(Game(V, {}, s) for s in (1, 2, 6, 16, 23))]:
        full = PopSearch(game)
        answer = full.run(Budget(nodes=200_000))
        bare = PopSearch(game, dig=dig, safe=safe)
        other = bare.run(Budget(nodes=200_000))
        if Outcome.UNKNOWN not in (answer, other):
            assert answer is other, game.position_text()
            decided += 1
            assert full.nodes <= bare.nodes or answer is Outcome.WON
    assert decided >= 10


def test_a_node_budget_is_deterministic_and_counted() -> None:
    a = poporder.search(Game(V, {}, 4), Budget(nodes=100_000))
    b = poporder.search(Game(V, {}, 4), Budget(nodes=100_000))
    assert a == b and a[0] is Outcome.WON
    outcome, line, nodes = poporder.search(Game(V, {}, 4), Budget(nodes=a[2] - 1))
    assert (outcome, line, nodes) == (Outcome.UNKNOWN, [], a[2] - 1)
    assert poporder.search(Game(V, {}, 7), Budget(nodes=None, seconds=0.05))[0] \
        is Outcome.UNKNOWN


def test_the_default_solver_uses_it_for_sixes_and_sevens_only() -> None:
    won = solve((V, {}, 1), Budget(nodes=20_000))
    assert won.outcome is Outcome.WON and won.par == 167
    assert solve((V, {}, 6), Budget(nodes=20_000)).outcome is Outcome.LOST
    assert solve((V, MANUAL, 10), Budget(nodes=20_000)).outcome is Outcome.LOST
    assert poporder.handles(Game(V, {}, 1)) and poporder.handles(Game(V, MANUAL, 1))
    # automatic spaces with a space while the stock lasts: play never gets there
    hand_made = make(V, {}, f={1: "6C"}, t=["-", "KH"], s="QH")
    assert not poporder.handles(hand_made)
    for variant in ("double-aces-and-kings", "forty-and-eight", "unlimited", "seven-by-five"):
        assert not poporder.handles(Game(variant, {}, 1))
        assert poporder.search(Game(variant, {}, 1), Budget(nodes=10)) is None
    resigned = Game(V, {}, 1)
    resigned.resign()
    assert not poporder.handles(resigned)


def test_closure_counts_what_two_foundations_can_take() -> None:
    avail = [0] * (8 * WIDTH)
    club_5, club_4, club_3 = (chain_slot(c) for c in (4, 3, 2))  # 5C, 4C, 3C
    assert closure(avail, 0) == 0
    avail[club_4] = 2  # both 4C without a 5C: nothing goes home
    assert closure(avail, 0) == 0
    avail[club_5] = 1  # one 5C: it and one 4C
    assert closure(avail, 0) == 2
    avail[club_5] = 2
    avail[club_3] = 1
    assert closure(avail, 0) == 5
    with pytest.raises(ValueError):
        chain_slot(5)  # the 6C starts a foundation


def test_the_dig_test_proves_a_buried_position_lost_at_once() -> None:
    """Both 5C and both 5H under ten clubs and hearts they hold (the pile-up test's lost
    position, tests/shared/test_solver_deadends.py): lost in one node; nine are won."""
    f = {1: "6C", 5: "6C", 3: "6H", 7: "6H"}
    t = ["KH", "KH", "KD", "KD", "KS", "KS", "KC", "KC", "AD"]
    lost = make(V, {}, f=f, t=t, w="5C 5H 5C 5H 4C 4C 3C 3C 4H 4H 3H 3H 2C 2C")
    searcher = PopSearch(lost)
    assert searcher.run(Budget(nodes=1_000)) is Outcome.LOST and searcher.nodes == 1
    won = make(V, {}, f=f, t=t, w="5C 5H 5C 5H 4C 4C 3C 3C 4H 4H 3H 3H 2C")
    assert poporder.search(won, Budget(nodes=10_000))[0] is Outcome.WON
