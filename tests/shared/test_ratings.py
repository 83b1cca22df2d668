"""Glicko-2 (``shared/ratings.py``): Glickman's worked example, and races as pairwise results.

The reference numbers are those of Glickman's "Example of the Glicko-2 system" (2012): a
1500/200/0.06 player beats a 1400/30 player and loses to 1550/100 and 1700/300 in one rating
period with tau = 0.5, and ends at 1464.06 / 151.52 / 0.05999. The race tests build the
pairwise results from the ranks here, in the test, rather than through ``race_results``.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.shared import ratings as R
from solrace.shared.ratings import Rating, race_results, rate_race, update


def test_glickman_reference_example() -> None:
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, results, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)  # the paper shows 5 places


def test_the_example_uses_the_documented_defaults() -> None:
    """The parameters docs/leaderboards.md promises: 1500/350/0.06, tau 0.5, provisional
    above RD 110, and the Glicko-2 scale 173.7178."""
    assert Rating() == Rating(1500.0, 350.0, 0.06)
    assert R.TAU == 0.5
    assert abs(R.SCALE - 400 / math.log(10)) < 1e-4
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    assert update(player, results) == update(player, results, tau=0.5)


@pytest.mark.parametrize(("rd", "provisional"), [(350, True), (110.01, True), (110, False),
                                                 (60, False)])
def test_provisional_while_the_deviation_is_above_110(rd: float, provisional: bool) -> None:
    assert Rating(1500, rd).provisional is provisional


def test_a_period_without_games_only_widens_the_deviation() -> None:
    before = Rating(1620, 80, 0.06)
    after = update(before, [])
    assert after.rating == before.rating and after.volatility == before.volatility
    expected = 173.7178 * math.sqrt((80 / 173.7178) ** 2 + 0.06**2)
    assert after.rd == pytest.approx(expected)
    assert update(Rating(1500, 349.9), []).rd == 350  # never wider than a new player's


def test_race_results_are_pairwise_by_rank() -> None:
    # racers 0..3 finished 2nd, 1st, 3rd, 3rd (a tie shares a rank)
    got = race_results([2, 1, 3, 3])
    assert got == [
        [(1, 0.0), (2, 1.0), (3, 1.0)],
        [(0, 1.0), (2, 1.0), (3, 1.0)],
        [(0, 0.0), (1, 0.0), (3, 0.5)],
        [(0, 0.0), (1, 0.0), (2, 0.5)],
    ]


def expected_race(ratings: list[Rating], ranks: list[int]) -> list[Rating]:
    """A race of N = each racer's pairwise results against the N-1 others, all from the
    ratings before the race, in one rating period."""
    out = []
    for i, me in enumerate(ratings):
        games = []
        for j, other in enumerate(ratings):
            if j != i:
                score = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
                games.append((other, score))
        out.append(update(me, games))
    return out


def test_a_four_racer_race_is_one_period_of_pairwise_games() -> None:
    before = [Rating(1500, 350), Rating(1700, 80, 0.059), Rating(1400, 200), Rating(1550, 120)]
    ranks = [1, 2, 3, 4]
    after = rate_race(before, ranks)
    assert after == expected_race(before, ranks)
    # the newcomer who beat everyone gains most; the established 1700 loses little to them
    assert after[0].rating - before[0].rating > 150
    assert after[3].rating < before[3].rating
    assert all(a.rd < b.rd for a, b in zip(after, before))  # three games: more certain


def test_the_order_of_racers_does_not_matter() -> None:
    before = [Rating(1500, 350), Rating(1700, 80), Rating(1400, 200)]
    ranks = [2, 3, 1]
    after = rate_race(before, ranks)
    order = [2, 0, 1]
    permuted = rate_race([before[i] for i in order], [ranks[i] for i in order])
    assert permuted == [after[i] for i in order]


ratings = st.builds(
    Rating,
    st.floats(800, 2600, allow_nan=False),
    st.floats(40, 350, allow_nan=False),
    st.floats(0.03, 0.09, allow_nan=False),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(ratings, min_size=2, max_size=8))
def test_first_gains_last_loses_whatever_the_ratings(field: list[Rating]) -> None:
    ranks = list(range(1, len(field) + 1))
    after = rate_race(field, ranks)
    assert after[0].rating > field[0].rating
    assert after[-1].rating < field[-1].rating
    assert all(a.rd <= 350 and a.volatility > 0 for a in after)
