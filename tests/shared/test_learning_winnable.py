"""Still winnable? (shared/learning/winnable.py): only proofs are verdicts — a lost deal is
``lost``, a won one ``winnable`` with a line that replays, a budget too small ``undecided``
(never a guess) — and the claim says whether the solver saw cards the player cannot."""

from __future__ import annotations

from solrace.shared.engine import Game, Status
from solrace.shared.learning.winnable import (
    CLAIM_HIDDEN,
    CLAIM_LOST,
    CLAIM_OPEN,
    hidden_now,
    still_winnable,
)
from solrace.shared.solver import Budget, Outcome, solve

DRAW1 = ("unlimited", {"draw": "1"})
LOST_SEED = 37  # proved lost from the deal within a few hundred nodes
WON_SEED = 2  # won within 3 000 nodes
HARD_SEED = 6  # neither within 200 nodes


def test_a_lost_deal_is_proved_lost() -> None:
    game = Game(*DRAW1, LOST_SEED)
    assert game.status is Status.PLAYING  # the engine alone does not see it
    assert still_winnable(game, Budget(nodes=3000)) == {"outcome": "lost", "claim": CLAIM_LOST}
    assert solve(game.copy(), Budget(nodes=50_000)).outcome is Outcome.LOST


def test_a_won_deal_is_winnable_for_the_cards_as_they_lie() -> None:
    game = Game(*DRAW1, WON_SEED)
    got = still_winnable(game, Budget(nodes=3000))
    assert got == {"outcome": "winnable", "claim": CLAIM_HIDDEN}
    assert "as they lie" in got["claim"] and hidden_now(game)
    assert len(game.moves) == 0  # the position asked about is left as it was


def test_once_every_card_is_in_sight_the_claim_is_plain() -> None:
    game = Game(*DRAW1, WON_SEED)
    line = solve(game.copy(), Budget(nodes=20_000)).moves
    for move in line:
        game.push(move.text())
        if not hidden_now(game):
            break
    assert not hidden_now(game) and game.status is Status.PLAYING
    assert still_winnable(game, Budget(nodes=3000)) == {"outcome": "winnable",
                                                        "claim": CLAIM_OPEN}


def test_an_exhausted_budget_claims_nothing() -> None:
    for seed in (HARD_SEED, WON_SEED):
        got = still_winnable(Game(*DRAW1, seed), Budget(nodes=200))
        assert got == {"outcome": "undecided", "claim": None}


def test_the_answer_agrees_with_the_solver_on_small_open_positions() -> None:
    """Seven by Five deals every card face up: on its first positions the answer is the
    solver's with a large budget, and the claim never mentions hidden cards."""
    options = {"cells": "5", "empty_fill": "any"}
    decided = []
    for seed in (1, 4, 5):
        game = Game("seven-by-five", options, seed)
        for move in list(game.legal_moves())[:3]:
            probe = game.copy()
            probe.push(move)
            got = still_winnable(probe, Budget(nodes=20_000))
            truth = solve(probe.copy(), Budget(nodes=200_000)).outcome
            if got["outcome"] == "winnable":
                assert truth is Outcome.WON and got["claim"] == CLAIM_OPEN
            elif got["outcome"] == "lost":
                assert truth is Outcome.LOST
            if got["outcome"] != "undecided":
                decided.append(got["outcome"])
    assert len(decided) >= 5, decided  # the comparison compared something
