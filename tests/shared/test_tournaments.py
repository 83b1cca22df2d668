"""The tournament rules (shared/tournaments/): seeds and their commitment, arena points,
streaks, berserk and standings, the event ranking, knockout brackets, the lifecycle table and
recurring schedules; every worked example of docs/tournaments.md is recomputed here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from solrace.shared.deal import deal
from solrace.shared.prng import commitment
from solrace.shared.tournaments import arena, event, knockout, machine, schedule, seeds
from solrace.shared.tournaments.arena import DealResult

DOC = (Path(__file__).resolve().parents[2] / "docs" / "tournaments.md").read_text()
LIMIT = 300_000


def _ms(text: str) -> int:
    m, s = text.split(":")
    return (int(m) * 60 + int(s)) * 1000


# ----------------------------------------------------------------------------- seeds

def test_deal_seeds_are_fixed_distinct_and_committed() -> None:
    master = 0x0123456789ABCDEF
    first = [seeds.deal_seed(master, k) for k in range(1, 51)]
    assert len(set(first)) == 50
    assert first == [seeds.deal_seed(master, k) for k in range(1, 51)]  # a pure function
    assert seeds.deal_seed(master + 1, 1) != first[0]
    assert seeds.verify(master, commitment(master))
    assert not seeds.verify(master + 1, commitment(master))
    # the vector the doc's formula gives, computed independently of the module
    import hashlib
    digest = hashlib.sha256(b"solrace-tournament-v1\x00" + master.to_bytes(8, "big")
                            + (7).to_bytes(4, "big")).digest()
    assert seeds.deal_seed(master, 7) == int.from_bytes(digest[:8], "big")


def test_every_entrant_gets_the_identical_deal() -> None:
    s = seeds.deal_seed(42, 3)
    assert deal("unlimited", {"draw": "3"}, s) == deal("unlimited", {"draw": "3"}, s)


@pytest.mark.parametrize("k", [0, -1, 2**32, True, 1.0])
def test_bad_deal_numbers_are_refused(k: object) -> None:
    with pytest.raises(ValueError):
        seeds.deal_seed(1, k)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- arena

def won(k: int, elapsed: str, berserk: bool = False, at: int = 0) -> DealResult:
    limit = LIMIT // 2 if berserk else LIMIT
    return DealResult(k, True, _ms(elapsed), limit, 52, 0, 52, berserk, False, at)


def lost(k: int, home: int, resigned: bool = False, at: int = 0, elapsed: str = "5:00"
         ) -> DealResult:
    return DealResult(k, False, _ms(elapsed), LIMIT, home, 0, 52, False, resigned, at)


def test_the_arena_worked_example() -> None:
    section = DOC[DOC.index("## Arena"):DOC.index("## Scheduled event")]
    rows = _doc_table_in(section, "### Worked example")
    results = []
    for k, result, time, home, berserk, _pts, _why in rows:
        got = int(home.split("/")[0])
        if result == "won":
            results.append(won(int(k), time, berserk == "yes"))
        else:
            results.append(lost(int(k), got, resigned=result == "resigned", elapsed=time))
    assert arena.deal_points(results) == [int(r[5]) for r in rows]
    total = int(re.search(r"Total: \*\*(\d+)\*\* points", section).group(1))
    assert sum(arena.deal_points(results)) == total
    # "deal 7 comes at 5:00": a resignation keeps the deal's clock
    assert arena.next_deal_at(results[-1], 0) == LIMIT


def _doc_table_in(section: str, heading: str) -> list[list[str]]:
    part = section[section.index(heading):]
    lines = [ln for ln in part.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]


def test_a_fast_win_is_within_half_the_limit() -> None:
    assert arena.base_points(won(1, "2:30")) == 5
    assert arena.base_points(won(1, "2:31")) == 4
    assert arena.base_points(won(1, "1:15", berserk=True)) == 6
    assert arena.base_points(won(1, "1:16", berserk=True)) == 5


def test_progress_counts_only_cards_brought_home() -> None:
    # Sixes and Sevens deals 8 cards home: a game that never moved scores nothing
    r = DealResult(1, False, LIMIT, LIMIT, 8, 8, 104, False, False, 0)
    assert arena.base_points(r) == 0
    assert arena.base_points(DealResult(1, False, LIMIT, LIMIT, 103, 8, 104)) == 2
    assert arena.base_points(lost(1, 51)) == 2  # never as much as a win


def test_streaks_double_from_the_third_win_and_end_with_a_deal_not_won() -> None:
    res = [won(1, "4:00"), won(2, "4:00"), won(3, "4:00"), won(4, "4:00"), lost(5, 0),
           won(6, "4:00"), won(7, "4:00"), won(8, "4:00")]
    assert arena.deal_points(res) == [4, 4, 8, 8, 0, 4, 4, 8]
    assert arena.on_fire(res)
    assert not arena.on_fire(res[:5])
    assert arena.on_fire(res[:2])


@given(st.integers(0, 51), st.integers(0, 51), st.booleans())
def test_resigning_early_is_never_better_than_playing_on(home_now: int, more: int,
                                                         then_won: bool) -> None:
    """Whatever happens after the moment of resigning, playing on scores at least as much on
    this deal, keeps the streak at least as well, and does not bring the next deal later."""
    before = [won(1, "2:00"), won(2, "2:00")]
    resign = lost(3, home_now, resigned=True, elapsed="1:00")
    later = won(3, "4:00") if then_won else lost(3, min(51, home_now + more))
    a = arena.deal_points([*before, resign])
    b = arena.deal_points([*before, later])
    assert b[-1] >= a[-1]
    assert arena.next_deal_at(later, 0) <= arena.next_deal_at(resign, 0)
    # and the points of any next deal are at least as high after playing on
    nxt = won(4, "4:00")
    assert arena.deal_points([*before, later, nxt])[-1] >= arena.deal_points(
        [*before, resign, nxt])[-1]


def test_standings_and_tie_breaks() -> None:
    a = ("a", 1, [won(1, "4:00", at=1000), lost(2, 0, at=2000)])  # 4 points, 1 won
    b = ("b", 2, [lost(1, 30, at=500), lost(2, 30, at=900), lost(3, 40, at=1500),
                  lost(4, 10, at=1800)])  # 1+1+2+0 = 4 points, 0 won
    c = ("c", 3, [won(1, "4:00", at=900)])  # 4 points, 1 won, reached earlier than a
    d = ("d", 0, [])
    rows = arena.standings([a, b, c, d])
    assert [r.player for r in rows] == ["c", "a", "b", "d"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert rows[0].points == rows[1].points == rows[2].points == 4
    assert rows[3] == arena.Row(4, "d", 0, 0, 0, False, 0, 0)


def test_the_late_entry_cut_off_is_two_thirds_of_the_window() -> None:
    assert arena.late_entry_cutoff(1_000, 30 * 60_000) == 1_000 + 20 * 60_000


@pytest.mark.parametrize("bad", [
    dict(won=True, best_home=51),  # a win has every card home
    dict(best_home=53),
    dict(best_home=3, dealt_home=8),
    dict(won=True, resigned=True, best_home=52),
    dict(limit_ms=0),
])
def test_impossible_results_are_refused(bad: dict) -> None:
    fields = dict(k=1, won=False, elapsed_ms=0, limit_ms=LIMIT, best_home=10, dealt_home=0,
                  total=52)
    with pytest.raises(ValueError):
        DealResult(**{**fields, **bad})


# ----------------------------------------------------------------------------- event

def test_the_event_worked_example() -> None:
    section = DOC[DOC.index("## Scheduled event"):DOC.index("## Knockout")]
    rows = _doc_table_in(section, "### Worked example")
    entrants = []
    for joined, (name, *deals, _won, _time, _home, _rank) in enumerate(rows):
        results = []
        for k, cell in enumerate(deals, 1):
            if cell.startswith("won"):
                results.append(won(k, cell.split()[1]))
            else:
                results.append(lost(k, int(cell.split("/")[0])))
        entrants.append((name, joined, results))
    ranking = event.ranking(entrants, 3, LIMIT)
    by = {r.player: r for r in ranking}
    for name, *_deals, n_won, time, home, rank in rows:
        assert (by[name].won, by[name].time_ms, by[name].home, by[name].rank) == (
            int(n_won), _ms(time), int(home), int(rank))


def test_a_deal_never_reached_counts_its_whole_limit() -> None:
    assert event.total_time([won(1, "1:00")], 3, LIMIT) == 60_000 + 2 * LIMIT
    rows = event.ranking([("x", 0, []), ("y", 1, [lost(1, 10)])], 2, LIMIT)
    assert [r.player for r in rows] == ["y", "x"]  # same wins and time, more cards home


@pytest.mark.parametrize("deals", [0, 6])
def test_an_event_has_one_to_five_deals(deals: int) -> None:
    with pytest.raises(ValueError):
        event.ranking([], deals, LIMIT)


# ----------------------------------------------------------------------------- knockout

def test_slots_keep_the_top_two_seeds_apart_until_the_final() -> None:
    assert knockout.slot_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (8, 16, 32, 64):
        slots = knockout.slot_seeds(size)
        assert sorted(slots) == list(range(1, size + 1))
        half = size // 2
        assert (1 in slots[:half]) != (2 in slots[:half])
        for i in range(0, size, 2):
            assert slots[i] + slots[i + 1] == size + 1


def test_the_knockout_doc_example_of_byes() -> None:
    entrants = [(f"p{i}", 2000 - 10 * i, 50, i) for i in range(1, 11)]
    seeded = knockout.seed_order(entrants)
    assert [s.player for s in seeded] == [f"p{i}" for i in range(1, 11)]
    matches = knockout.first_round(seeded)
    assert len(matches) == 8
    byes = sorted(m.high.seed for m in matches if m.low is None)
    played = sorted((m.high.seed, m.low.seed) for m in matches if m.low is not None)
    assert byes == [1, 2, 3, 4, 5, 6]
    assert played == [(7, 10), (8, 9)]
    assert knockout.rounds(10) == 4


def test_seeding_breaks_rating_ties_by_deviation_then_entry() -> None:
    seeded = knockout.seed_order([("a", 1500, 80, 0), ("b", 1500, 60, 1), ("c", 1500, 60, 2)])
    assert [s.player for s in seeded] == ["b", "c", "a"]


def test_who_advances() -> None:
    hi, lo = knockout.Seeded(1, "hi"), knockout.Seeded(8, "lo")
    m = knockout.Match(1, 0, hi, lo)
    assert knockout.winner(m, True, True, "lo", True) == lo
    assert knockout.winner(m, True, True, "lo", False) == hi  # not separated
    assert knockout.winner(m, False, True, None, False) == lo  # walkover
    assert knockout.winner(m, True, False, None, False) == hi
    assert knockout.winner(m, False, False, None, False) == hi  # neither came
    assert knockout.winner(knockout.Match(1, 0, hi, None), False, False, None, False) == hi
    with pytest.raises(ValueError):
        knockout.winner(m, True, True, "stranger", True)


def test_a_whole_bracket_plays_down_to_one() -> None:
    entrants = [(f"p{i}", 1500 + i, 50, i) for i in range(13)]
    matches = knockout.first_round(knockout.seed_order(entrants))
    rnd = 1
    while True:
        winners = [knockout.winner(m, True, True, m.low.player if m.low else None,
                                   True) for m in matches]  # the lower seed always wins
        if len(winners) == 1:
            break
        matches = knockout.next_round(rnd, winners)
        rnd += 1
    assert rnd == knockout.rounds(13)
    assert winners[0].seed > 1


@pytest.mark.parametrize("n", [7, 65])
def test_a_knockout_takes_8_to_64(n: int) -> None:
    with pytest.raises(ValueError):
        knockout.bracket_size(n)


# ----------------------------------------------------------------------------- lifecycle

F, S, E = machine.Format, machine.TournamentState, machine.TournamentEvent


def test_the_lifecycle_runs_as_the_doc_table_says() -> None:
    state = S.SCHEDULED
    for ev in (E.OPEN_ENTRIES, E.ENTER, E.START, E.PLAY, E.TIME_UP, E.REVIEW_CLEARED):
        state = machine.next_state(F.ARENA, state, ev)
    assert state is S.FINAL
    assert machine.next_state(F.KNOCKOUT, S.RUNNING, E.ROUND_DONE) is S.RUNNING
    with pytest.raises(machine.BadTransition):
        machine.next_state(F.KNOCKOUT, S.RUNNING, E.TIME_UP)
    with pytest.raises(machine.BadTransition):
        machine.next_state(F.EVENT, S.RUNNING, E.ENTER)
    with pytest.raises(machine.BadTransition):
        machine.next_state(F.ARENA, S.FINAL, E.PLAY)


def test_terminal_states_take_nothing() -> None:
    for fmt in F:
        for ev in E:
            for state in machine.TERMINAL:
                assert not machine.accepts(fmt, state, ev)


def test_late_entry() -> None:
    assert machine.may_enter(F.ARENA, S.RUNNING, 100, 200)
    assert not machine.may_enter(F.ARENA, S.RUNNING, 200, 200)
    assert not machine.may_enter(F.EVENT, S.RUNNING, 100, 200)
    assert machine.may_enter(F.KNOCKOUT, S.OPEN, 10**12, 200)


def test_every_row_of_the_doc_table_is_in_the_machine() -> None:
    section = DOC[DOC.index("## Lifecycle"):DOC.index("## Scheduling")]
    rows = _doc_table_in(section, "| from |")
    targets = {t.target.value for t in machine.TABLE}
    sources = {t.source.value for t in machine.TABLE}
    for source, _event, target, _formats in rows:
        assert target in targets
        for s in source.split(", "):
            assert s in sources
    assert len(rows) == 10


# ----------------------------------------------------------------------------- schedule

@pytest.mark.parametrize("text, period, offset, duration", [
    ("every 1h at :00 for 30m", 60, 0, 30),
    ("every 2h at :30 for 45m", 120, 30, 45),
    ("every 15m for 10m", 15, 0, 10),
    ("daily at 20:00 for 30m", 1440, 1200, 30),
    ("  Daily at 07:05 for 120m ", 1440, 425, 120),
])
def test_recurrences_parse(text: str, period: int, offset: int, duration: int) -> None:
    assert schedule.parse(text) == schedule.Recurrence(period, offset, duration)


@pytest.mark.parametrize("text", [
    "every 7m for 5m",  # 7 does not divide the day
    "every 1h at :00 for 90m",  # overlaps the next
    "daily at 24:00 for 30m", "every 1h at :75 for 30m", "every 10m at :05 for 5m",
    "hourly", "",
])
def test_bad_recurrences_are_refused(text: str) -> None:
    with pytest.raises(schedule.ScheduleError):
        schedule.parse(text)


def test_next_starts() -> None:
    day = 20_000 * 86_400_000  # a UTC midnight
    hourly = schedule.parse("every 1h at :00 for 30m")
    assert hourly.next_start(day) == day
    assert hourly.next_start(day + 1) == day + 3_600_000
    assert schedule.parse("daily at 20:00 for 30m").next_start(day + 21 * 3_600_000) == (
        day + 86_400_000 + 20 * 3_600_000)
    assert schedule.parse("every 2h at :30 for 45m").starts(day, 3) == [
        day + 30 * 60_000, day + 150 * 60_000, day + 270 * 60_000]


def test_operators_arenas_parse() -> None:
    specs = schedule.parse_arenas(
        "unlimited draw=3 | every 1h at :00 for 30m | 300;"
        " forty-and-eight |  daily at 20:00 for 45m | 180 ;")
    assert [(s.variant, s.options, s.recurrence, s.deal_seconds) for s in specs] == [
        ("unlimited", (("draw", "3"),), schedule.Recurrence(60, 0, 30), 300),
        ("forty-and-eight", (), schedule.Recurrence(1440, 1200, 45), 180)]
    assert schedule.parse_arenas("") == ()
    event = schedule.parse_arenas("forty-and-eight | daily at 20:00 for 45m | 180 | event 3")[0]
    assert (event.fmt, event.deals) == ("event", 3) and (specs[0].fmt, specs[0].deals) == (
        "arena", 0)


@pytest.mark.parametrize("text", [
    "unlimited | every 1h at :00 for 30m",  # no deal time
    "unlimited | every 1h at :00 for 30m | 10",  # too short a deal
    "unlimited | every 1h at :00 for 10m | 900",  # a deal longer than the window
    "unlimited draw | every 1h at :00 for 30m | 300",  # an option without a value
    " | every 1h at :00 for 30m | 300",
    "unlimited | every 1h at :00 for 30m | 300 | event 0",  # an event has 1..5 deals
    "unlimited | every 1h at :00 for 30m | 300 | event 6",
    "unlimited | every 1h at :00 for 30m | 300 | arena",  # the fourth field is 'event N'
    "unlimited | every 1h at :00 for 10m | 300 | event 3",  # 15 minutes of deals in 10
    "unlimited | every 1h at :00 for 30m | 300 | event 3 | x",
])
def test_bad_arena_specs_are_refused(text: str) -> None:
    with pytest.raises(schedule.ScheduleError):
        schedule.parse_arenas(text)


def test_instances_are_the_running_one_and_the_next_with_stable_ids() -> None:
    spec = schedule.parse_arenas("unlimited | every 1h at :00 for 30m | 300")[0]
    day = 20_000 * 86_400_000
    assert spec.instances(day + 10 * 60_000) == [day, day + 3_600_000]  # one is running
    assert spec.instances(day + 40 * 60_000) == [day + 3_600_000]  # between two
    assert spec.instance_id(day) == spec.instance_id(day) != spec.instance_id(day + 1)
    event = schedule.parse_arena("unlimited | every 1h at :00 for 30m | 300 | event 2")
    assert event.instances(day + 9 * 60_000) == [day, day + 3_600_000]  # 10 minutes of deals
    assert event.instances(day + 11 * 60_000) == [day + 3_600_000]  # over, though "for 30m"
