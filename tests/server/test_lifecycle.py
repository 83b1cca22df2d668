"""The race lifecycle table, the rules the code asks of it, and the Lua scripts that carry it
out: all without I/O."""

import re

import pytest
from solrace.server.game.lifecycle import (
    DEALT,
    INITIAL,
    LIVE,
    TABLE,
    TERMINAL,
    TIMERS,
    TRANSITIONS,
    UNDERWAY,
    BadTransition,
    Gate,
    RaceEvent,
    RaceState,
    accepts,
    is_over,
    move_gate,
    next_state,
    scripts_for,
)
from solrace.server.store import deal_lua, lua
from solrace.server.store.records import RaceRecord

S, E = RaceState, RaceEvent
STATES = {s.value for s in RaceState}
SETS = r"'HSET',\s*\w+(?:\[\d\])?,\s*'state',\s*'(\w+)'"
GUARD = r"(?:m\[1\]|state)\s*~=\s*'(\w+)'"  # "refuse unless the race is in this state"
SCRIPTS = {name: text for module in (lua, deal_lua) for name, text in vars(module).items()
           if name.isupper() and isinstance(text, str) and "redis.call" in text
           and not name.endswith("PRELUDE")}
#: Scripts that read the state without performing a transition: the watcher count is
#: published only while a race is live.
READERS = {"SPECTATE"}


def _body(name: str) -> str:
    """A script's own text (the move scripts' ``move_head`` included): without the shared
    prelude, whose ``maybe_countdown`` counts as a write of the scripts that call it."""
    text = SCRIPTS[name]
    return text[len(lua.PRELUDE):] if text.startswith(lua.PRELUDE) else text


def test_every_state_a_script_names_is_in_the_table() -> None:
    named: set[str] = set()
    for text in SCRIPTS.values():
        named |= set(re.findall(SETS, text))  # HSET meta 'state' 'x'
        named |= set(re.findall(r"(?:m\[1\]|state)\s*[~=]=\s*'(\w+)'", text))  # comparisons
    assert named, "no state found in the scripts: the pattern is stale"
    assert named <= STATES, named - STATES


def test_every_script_that_checks_the_state_performs_a_transition_of_the_table() -> None:
    performing = {name for t in TABLE for name in t.scripts}
    checking = {name for name in SCRIPTS if re.search(GUARD, _body(name))}
    assert checking, "no guard found in the scripts: the pattern is stale"
    assert checking - READERS <= performing, checking - READERS - performing
    assert performing <= set(SCRIPTS), performing - set(SCRIPTS)


@pytest.mark.parametrize("name", sorted({n for t in TABLE for n in t.scripts}))
def test_a_script_starts_only_from_its_transitions_sources(name: str) -> None:
    sources = {t.source.value for t in TABLE if name in t.scripts}
    guards = set(re.findall(GUARD, _body(name)))
    assert guards == sources, (name, guards, sources)


@pytest.mark.parametrize("name", sorted({n for t in TABLE for n in t.scripts}))
def test_a_script_writes_only_its_transitions_targets(name: str) -> None:
    targets = {t.target.value for t in TABLE if name in t.scripts}
    body = _body(name)
    written = set(re.findall(SETS, body))
    if "maybe_countdown(" in body:  # the prelude's helper: when everyone is ready
        written.add(RaceState.COUNTDOWN.value)
    assert written <= targets, (name, written, targets)
    assert "maybe_countdown(" in lua.PRELUDE and "'state', 'countdown'" in lua.PRELUDE


def test_transitions() -> None:
    assert next_state(S.LOBBY, E.ALL_READY) is S.COUNTDOWN
    assert next_state(S.COUNTDOWN, E.START) is S.RUNNING
    assert next_state(S.RUNNING, E.TIME_UP) is S.FINISHED
    assert next_state(S.RUNNING, E.ALL_DONE) is S.FINISHED
    assert next_state(S.LOBBY, E.EMPTY) is S.CLOSED
    assert next_state("running", E.MOVE) is S.RUNNING
    with pytest.raises(BadTransition):
        next_state(S.LOBBY, E.MOVE)
    with pytest.raises(BadTransition):
        next_state(S.FINISHED, E.START)
    with pytest.raises(BadTransition):
        next_state("nonsense", E.START)
    assert accepts("running", E.MOVE) and not accepts("lobby", E.MOVE)
    assert not accepts("nonsense", E.MOVE)
    assert scripts_for(E.MOVE) == {"MOVE", "BATCH"}


def test_every_transition_is_in_one_table_row() -> None:
    seen = [(t.source, t.event) for t in TABLE]
    assert len(seen) == len(set(seen))
    assert sum(len(row) for row in TRANSITIONS.values()) == len(TABLE)


def test_derived_state_sets() -> None:
    assert INITIAL is S.LOBBY
    assert {S.FINISHED, S.CLOSED} == TERMINAL
    assert {S.LOBBY, S.COUNTDOWN, S.RUNNING} == LIVE
    assert {S.COUNTDOWN, S.RUNNING} == UNDERWAY
    assert {S.RUNNING, S.FINISHED} == DEALT
    assert is_over("closed") and not is_over(S.RUNNING)
    # every live state but the lobby has a timer, and its event leaves the state
    assert set(TIMERS) == UNDERWAY
    for state, (_field, event) in TIMERS.items():
        assert next_state(state, event) is not state


def test_every_state_is_reachable_from_the_initial_one() -> None:
    seen, todo = {INITIAL}, [INITIAL]
    while todo:
        for target in TRANSITIONS[todo.pop()].values():
            if target not in seen:
                seen.add(target)
                todo.append(target)
    assert seen == set(RaceState)


@pytest.mark.parametrize(("state", "gate"), [
    (S.LOBBY, Gate.REFUSE),
    (S.COUNTDOWN, Gate.START_FIRST),
    (S.RUNNING, Gate.PLAY),
    (S.FINISHED, Gate.RETRY_ONLY),
    (S.CLOSED, Gate.REFUSE),
])
def test_what_a_move_meets_in_each_state(state: RaceState, gate: Gate) -> None:
    assert move_gate(state) is gate
    assert move_gate(state.value) is gate  # as Redis stores it


def test_a_record_state_is_the_enum() -> None:
    rec = RaceRecord("r", {"state": "countdown"}, [], {}, set(), {})
    assert rec.state is S.COUNTDOWN and rec.state == "countdown"
    assert f"the race is {rec.state}" == "the race is countdown"
    with pytest.raises(ValueError):
        _ = RaceRecord("r", {"state": "nonsense"}, [], {}, set(), {}).state
