"""The race lifecycle table and the Lua scripts that carry it out agree."""

import re

import pytest
from solrace.server.lifecycle import (
    TERMINAL,
    TRANSITIONS,
    BadTransition,
    RaceEvent,
    RaceState,
    accepts,
    next_state,
)
from solrace.server.store import deal_lua, lua

STATES = {s.value for s in RaceState}
SETS = r"'HSET',\s*\w+(?:\[\d\])?,\s*'state',\s*'(\w+)'"
SCRIPTS = {name: text for module in (lua, deal_lua) for name, text in vars(module).items()
           if name.isupper() and isinstance(text, str) and "redis.call" in text}


def test_every_state_a_script_names_is_in_the_table() -> None:
    named: set[str] = set()
    for text in SCRIPTS.values():
        named |= set(re.findall(SETS, text))  # HSET meta 'state' 'x'
        named |= set(re.findall(r"(?:m\[1\]|state)\s*[~=]=\s*'(\w+)'", text))  # comparisons
    assert named, "no state found in the scripts: the pattern is stale"
    assert named <= STATES, named - STATES


def test_every_state_a_script_sets_is_reachable_by_the_table() -> None:
    targets = {t for row in TRANSITIONS.values() for t in row.values()}
    for name, text in SCRIPTS.items():
        for new in re.findall(SETS, text):
            assert RaceState(new) in targets | {RaceState.LOBBY}, (name, new)


def test_transitions() -> None:
    assert next_state(RaceState.LOBBY, RaceEvent.ALL_READY) is RaceState.COUNTDOWN
    assert next_state(RaceState.COUNTDOWN, RaceEvent.START) is RaceState.RUNNING
    assert next_state(RaceState.RUNNING, RaceEvent.TIME_UP) is RaceState.FINISHED
    assert next_state(RaceState.LOBBY, RaceEvent.EMPTY) is RaceState.CLOSED
    with pytest.raises(BadTransition):
        next_state(RaceState.LOBBY, RaceEvent.MOVE)
    with pytest.raises(BadTransition):
        next_state(RaceState.FINISHED, RaceEvent.START)
    assert {RaceState.FINISHED, RaceState.CLOSED} == TERMINAL
    assert accepts("running", RaceEvent.MOVE) and not accepts("lobby", RaceEvent.MOVE)
    assert not accepts("nonsense", RaceEvent.MOVE)
