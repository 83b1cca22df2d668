"""The pairing-by-skill rule (solrace.shared.skillpair): the window and the choice of rival."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from solrace.shared import skillpair as sp
from solrace.shared.ratings import DEFAULT_RD


def test_window_grows_with_deviations_and_wait_then_opens() -> None:
    exact = sp.window(0, 0, 0)
    assert exact == sp.BASE_GAP
    assert sp.window(0, 60, 80) == sp.BASE_GAP + sp.RD_WEIGHT * 100
    assert sp.window(10, 60, 80) == sp.window(0, 60, 80) + 10 * sp.WIDEN_PER_S
    assert sp.window(-5, 0, 0) == exact  # a clock a little behind is no wait
    assert sp.window(sp.MAX_WAIT_S - 0.001, 0, 0) < math.inf
    assert sp.window(sp.MAX_WAIT_S, 0, 0) == math.inf


def test_choose_takes_the_closest_acceptable_rating() -> None:
    me = sp.Seeker(1500, 50, 100.0)
    waiting = [sp.Seeker(1900, 50, 99.0), sp.Seeker(1560, 50, 99.5), sp.Seeker(1530, 50, 99.9)]
    assert sp.choose(me, waiting, 100.0) == 2
    assert sp.choose(me, waiting[:1], 100.0) is None  # 400 apart, 1 s: waits
    assert sp.first_come(me, waiting, 100.0) == 0
    assert sp.choose(me, [], 100.0) is None


def test_a_tie_goes_to_whoever_waited_longest() -> None:
    me = sp.Seeker(1500, 50, 100.0)
    waiting = [sp.Seeker(1520, 50, 99.0), sp.Seeker(1480, 50, 95.0)]
    assert sp.choose(me, waiting, 100.0) == 1


def test_a_distant_player_is_accepted_once_the_window_has_widened() -> None:
    far = sp.Seeker(2100, 40, 0.0)
    me = sp.Seeker(1500, 40, 0.0)
    gap = 600
    needed = (gap - sp.BASE_GAP - sp.RD_WEIGHT * math.hypot(40, 40)) / sp.WIDEN_PER_S
    assert needed < sp.MAX_WAIT_S
    assert sp.choose(me, [far], needed - 1) is None
    assert sp.choose(me, [far], needed + 0.01) == 0
    # whatever the gap, the documented maximum wait accepts anyone
    assert sp.choose(sp.Seeker(0, 0, 0), [sp.Seeker(5000, 0, 0.0)], sp.MAX_WAIT_S) == 0


def test_guests_count_as_the_default_rating_with_a_wide_window() -> None:
    guest = sp.Seeker()
    assert guest.rd == DEFAULT_RD
    assert sp.window(0, guest.rd, guest.rd) > 290  # two guests: a wide window at once


ratings = st.floats(0, 3500, allow_nan=False)
rds = st.floats(0, 350, allow_nan=False)
seekers = st.builds(sp.Seeker, ratings, rds, st.floats(0, 200, allow_nan=False))


@given(me=st.builds(sp.Seeker, ratings, rds), waiting=st.lists(seekers, max_size=12),
       now=st.floats(0, 200, allow_nan=False))
def test_never_pairs_outside_the_window_before_the_maximum_wait(
        me: sp.Seeker, waiting: list[sp.Seeker], now: float) -> None:
    pick = sp.choose(me, waiting, now)
    inside = [i for i, w in enumerate(waiting)
              if abs(me.rating - w.rating) <= sp.window(now - w.since, me.rd, w.rd)]
    if pick is None:
        assert not inside
        return
    other = waiting[pick]
    wait = now - other.since
    assert wait >= sp.MAX_WAIT_S or abs(me.rating - other.rating) <= sp.window(
        wait, me.rd, other.rd)
    # and it is the closest of those acceptable
    assert abs(me.rating - other.rating) == min(abs(me.rating - waiting[i].rating)
                                                 for i in inside)


def test_two_waiting_players_pair_once_either_has_waited_long_enough() -> None:
    now = 1000.0
    me = sp.Seeker(1500, 50, since=now - 1)  # just came
    far = sp.Seeker(2200, 50, since=now - 1)
    assert sp.choose_while_waiting(me, [far], now) is None
    # the other has waited: the longer wait widens the window for both
    need = (700 - sp.window(0, 50, 50)) / sp.WIDEN_PER_S
    old = sp.Seeker(2200, 50, since=now - need - 1)
    assert sp.choose_while_waiting(me, [far, old], now) == 1
    # after the maximum wait of either, any gap
    ancient = sp.Seeker(3000, 30, since=now - sp.MAX_WAIT_S)
    assert sp.choose_while_waiting(me, [ancient], now) == 0
    assert sp.choose_while_waiting(
        sp.Seeker(1500, 50, since=now - sp.MAX_WAIT_S), [far], now) == 0
    # the closest acceptable one, the longest-waiting on a tie
    a = sp.Seeker(1600, 50, since=now - 5)
    b = sp.Seeker(1400, 50, since=now - 9)
    assert sp.choose_while_waiting(me, [a, b], now) == 1
