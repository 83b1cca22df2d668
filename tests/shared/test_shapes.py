"""The declared server messages (shared/protocol/replies.py, events.py): construction checks
every field, the wire map is what the docs say, :func:`check_message` refuses what the server
must never send, the hand-packed move frames match their declarations, every kind the server
names is declared, and every declared kind is in docs/protocol.md."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from solrace.shared import protocol as P
from solrace.shared.engine import Game, Status
from solrace.shared.pointing import legal_texts
from solrace.shared.protocol import events as E
from solrace.shared.protocol import replies as R
from solrace.shared.views import advance, view_of

ROOT = Path(__file__).resolve().parents[2]
RID = "0123456789abcdef"


# ----------------------------------------------------------------------------- construction

def test_a_reply_is_built_through_its_declaration() -> None:
    assert P.reply(7, "presence", race=RID, player="p", online=True) == {
        "t": "presence", "race": RID, "player": "p", "online": True, "re": 7}
    assert R.Pong(server_time=3).wire() == {"t": "pong", "server_time": 3}


@pytest.mark.parametrize("fields, why", [
    ({"server_time": "1"}, "wrong type"),
    ({"server_time": True}, "wrong type"),  # a bool is not an int on the wire
    ({"server_time": 1, "extra": 2}, "unknown field"),
    ({}, "missing"),
])
def test_a_reply_of_the_wrong_shape_fails_where_it_is_built(fields: dict[str, Any],
                                                            why: str) -> None:
    with pytest.raises(P.ShapeError, match=why):
        P.reply(1, "pong", **fields)


def test_an_undeclared_kind_cannot_be_sent() -> None:
    with pytest.raises(P.ShapeError, match="declared"):
        P.reply(1, "nonsense", x=1)


def test_absent_fields_are_left_out_and_none_is_written() -> None:
    welcome = P.reply(1, "welcome", v=1, server_time=2, player=None, name=None, account=False,
                      races=[])
    assert welcome == {"t": "welcome", "v": 1, "server_time": 2, "player": None, "name": None,
                       "account": False, "races": [], "re": 1}


def test_a_keyword_field_keeps_its_wire_name() -> None:
    msg = P.push("rematch", race={"race": RID}, by="alice", **{"from": "f" * 16})
    assert msg == {"t": "rematch", "race": {"race": RID}, "from": "f" * 16, "by": "alice"}
    assert R.RematchOffer(race={}, from_="x", by="y").wire()["from"] == "x"


def test_a_closed_set_of_values_is_checked() -> None:
    with pytest.raises(P.ShapeError):
        P.push("review", race=RID, status="maybe")
    assert P.push("review", race=RID, status="held")["status"] == "held"


def test_errors_go_through_their_declaration() -> None:
    assert P.error(1, "stale_seq", "behind", seq=4)["seq"] == 4
    with pytest.raises(P.ShapeError):
        P.error(1, "stale_seq", "behind", whatever=4)


def test_event_bodies() -> None:
    assert E.Start(started_at=1, ends_at=2, view={}, legal=[]).body() == {
        "k": "start", "started_at": 1, "ends_at": 2, "view": {}, "legal": []}
    end = E.End.from_fields({"reason": "time", "commitment": "c", "standings": [], "seed": 5})
    assert end.body() == {"k": "end", "reason": "time", "commitment": "c", "standings": [],
                          "seed": 5}
    with pytest.raises(P.ShapeError):
        E.End(reason="bored", commitment="c", standings=[])


# ----------------------------------------------------------------------------- checking

def _event(**fields: Any) -> dict[str, Any]:
    return {"t": "event", "race": RID, "v": 3, "at": 10, **fields}


@pytest.mark.parametrize("msg", [
    _event(k="closed"),
    _event(k="join", player="p", name="alice", title="BOT"),
    _event(k="progress", player="p", home=2, moves=3, elapsed=40, result="won"),
    {"t": "batch", "msgs": [{"t": "pong", "server_time": 1, "re": 2}, _event(k="closed")]},
    {"t": "synced", "race": {}, "events": [{"k": "closed", "v": 1, "at": 2}], "board": None,
     "more": False, "re": "a"},
])
def test_messages_as_declared_pass(msg: dict[str, Any]) -> None:
    P.check_message(msg)


@pytest.mark.parametrize("msg", [
    _event(k="closed", extra=1),
    _event(k="teleport"),
    _event(k="progress", player="p", home="2", moves=3),
    {**_event(k="closed"), "v": 0},
    {**_event(k="closed"), "race": 5},
    {"t": "pong", "server_time": 1, "re": 1.5},
    {"t": "batch", "msgs": [{"t": "pong"}]},
    {"t": "synced", "race": {}, "events": [{"k": "closed", "v": 1}], "board": None,
     "more": False},
    {"t": "watching", "race": {}, "delay": 0.0, "v": 1, "spectators": 0,
     "end": {"k": "end", "v": 1, "at": 1}},
    {"t": "mystery"},
])
def test_messages_not_as_declared_are_refused(msg: dict[str, Any]) -> None:
    with pytest.raises(P.ShapeError):
        P.check_message(msg)


# ----------------------------------------------------------------------------- the move path

@pytest.mark.parametrize("variant, options, seed", [
    ("unlimited", {"draw": "3"}, 11), ("forty-and-eight", {}, 5), ("seven-by-five", {}, 9),
    ("sixes-and-sevens", {}, 2), ("double-aces-and-kings", {}, 4)])
def test_hand_packed_move_frames_are_as_declared(variant: str, options: dict[str, str],
                                                 seed: int) -> None:
    """The ack and progress frames the move path joins from parts (protocol/frames.py) are
    the declared ``ack`` and ``progress`` event, in a real game of every variant."""
    game, rng = Game(variant, options, seed), random.Random(seed)
    view = view_of(game).wire()
    for i in range(60):
        legal = game.legal_moves()
        if not legal or game.status is not Status.PLAYING:
            break
        move = game.push(rng.choice(legal))
        view, change = advance(game, view)
        status = game.status
        event: dict[str, Any] = {"k": "progress", "player": "p", "home": game.cards_home,
                                 "moves": len(game.moves), "move": move.text(),
                                 "delta": change}
        if status in (Status.WON, Status.LOST):
            event["result"] = status.value
        _, packed = P.progress_body(event)
        ack = {"seq": len(game.moves), "delta": change, "v": i + 1, "elapsed": 5 * i,
               "status": status.value, "move": move.text(), "moves": [move.text()],
               "legal": legal_texts(game)}
        P.check_message(msgpack.unpackb(P.ack_frame(i, RID, ack, packed)))
        stored = {**event, "elapsed": 5 * i, "at": 100 + i, "v": i + 1}
        rival = msgpack.unpackb(P.event_frame(RID, stored))
        P.check_message(rival)
        assert "move" not in rival and "delta" not in rival
        P.check_message({"t": "event", "race": RID, **stored})  # a spectator's form


# ----------------------------------------------------------------------------- coverage

def _named_kinds() -> set[str]:
    """Every message kind the server code names in a reply, push or error."""
    kinds: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text()
        kinds |= set(re.findall(r'(?:reply|push)\([^,()]*?,?\s*"([a-z_.]+)"', text))
        kinds |= set(re.findall(r'race_reply\([^)]*"([a-z_.]+)"\)', text))
        if "P.error(" in text:
            kinds.add("error")
    return kinds


def test_every_kind_the_server_sends_is_declared() -> None:
    named = _named_kinds()
    assert {"pong", "welcome", "watching", "presence", "matched", "mod.audit"} <= named
    assert named - set(P.MESSAGES) == set()


def test_every_declared_kind_is_in_the_protocol_doc() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    missing = [k for k in P.MESSAGES if f'"t": "{k}"' not in doc and f"`{k}`" not in doc]
    assert missing == []
    table = doc[doc.index("### 7.1 `event`"):doc.index("### 7.2")]
    assert [k for k in P.EVENTS if f"| `{k}` |" not in table] == []
