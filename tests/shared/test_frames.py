"""The move path's frames joined from parts (``protocol.progress_body``, ``ack_frame``,
``event_frame``) against the general encoder, byte for byte: for the events and acks of real
games of every variant (the server's own shapes), and for arbitrary maps and values (every
msgpack width of integers, negative ones, long and non-ASCII strings, nested values, maps of
other shapes), which must take the general path or give its bytes.

The reference is ``msgpack.packb(..., use_bin_type=True)`` of the dict the frame stands for —
what the server sent before the frames were joined from parts.
"""

from __future__ import annotations

import os
import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.engine import Game, Status
from solrace.shared.pointing import legal_texts
from solrace.shared.protocol import frames as M
from solrace.shared.protocol import wire
from solrace.shared.views import advance, view_of

CONFIGS = [
    ("sixes-and-sevens", {}),
    ("seven-by-five", {}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}),
    ("double-aces-and-kings", {}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}),
    ("unlimited", {}),
    ("unlimited", {"draw": "3"}),
    ("forty-and-eight", {}),
]
EXAMPLES = int(os.environ.get("SOLRACE_PROPERTY_EXAMPLES", "40"))
RID = "0123456789abcdef"


def packb(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def rival_reference(rid: str, event: dict[str, Any]) -> bytes:
    """The rival's frame as the feed built it before: ``racer_event``, the frame's dict."""
    return packb({"t": "event", "race": rid, **P.racer_event(event)})


ints = st.one_of(st.integers(0, 127), st.integers(128, 2**16), st.integers(-(2**63), 2**64 - 1),
                 st.sampled_from([0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32,
                                  2**64 - 1, -1, -32, -33, -128, -129, -(2**63)]))
texts = st.one_of(st.text(max_size=80), st.sampled_from(["t1f1", "sw", "playing", "é" * 20,
                                                         "x" * 31, "x" * 32, "x" * 300]))
scalars = st.one_of(ints, texts, st.booleans(), st.none(), st.floats(allow_nan=False),
                    st.binary(max_size=40))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=12)
ids = st.one_of(st.none(), ints, st.text(max_size=64))


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(CONFIGS), st.integers(0, 2**64 - 1), st.integers(0, 2**32),
       st.integers(5, 150), ids, st.integers(0, 2**63), ints, ints)
def test_the_frames_of_real_moves_are_the_encoders_bytes(
        config: tuple, seed: int, rng_seed: int, length: int, req_id: Any, v: int,
        elapsed: int, at: int) -> None:
    variant, options = config
    game = Game(variant, options, seed)
    rng = random.Random(rng_seed)
    view = view_of(game).wire()
    for i in range(length):
        legal = game.legal_moves()
        if not legal or game.status is not Status.PLAYING:
            break
        move = game.push(rng.choice(legal))
        status = game.status
        view, change = advance(game, view)
        done = move.text()
        result = status.value if status in (Status.WON, Status.LOST) else ""
        # the progress event as racemoves._apply builds it, packed for the store
        event: dict[str, Any] = {"k": "progress", "player": f"p-{seed % 997}",
                                 "home": game.cards_home, "moves": len(game.moves),
                                 "move": done, "delta": change}
        if result:
            event["result"] = result
        body, packed_delta = P.progress_body(event)
        assert body == packb(event)
        assert packed_delta == packb(change)
        # the ack as racemoves._acked builds it, as its msgpack connection gets it
        ack = {"seq": len(game.moves), "delta": change, "v": v + i, "elapsed": elapsed,
               "status": status.value, "move": done, "moves": [done],
               "legal": legal_texts(game)}
        assert P.ack_frame(req_id, RID, ack, packed_delta) == packb(P.ack_reply(req_id, RID, ack))
        # the event as the store delivers it locally (and the hub from pub/sub), to the rival
        stored = {**event, "elapsed": elapsed, "at": at, "v": v + i}
        assert P.event_frame(RID, stored) == rival_reference(RID, stored)
        unpacked = msgpack.unpackb(body, raw=False)
        unpacked["v"] = v + i
        assert P.event_frame(RID, unpacked) == rival_reference(RID, unpacked)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(st.dictionaries(st.text(max_size=10), values, max_size=12), texts)
def test_the_frames_of_any_map_are_the_encoders_bytes(event: dict[str, Any], rid: str) -> None:
    body, delta = P.progress_body(event)
    assert body == packb(event)
    assert delta == (packb(event["delta"]) if "delta" in event else None)
    assert P.event_frame(rid, event) == rival_reference(rid, event)
    ack = {"t": "x", **event}
    assert P.ack_frame(None, rid, event, body) == packb(P.ack_reply(None, rid, event))
    assert P.ack_frame(7, rid, ack, None) == packb(P.ack_reply(7, rid, ack))


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(st.fixed_dictionaries({k: values for k in ("seq", "delta", "v", "elapsed", "status",
                                                  "move", "legal")}),
       st.one_of(texts, values), ids, texts, st.booleans())
def test_an_ack_of_any_values_is_the_encoders_bytes(fields: dict[str, Any], move: Any,
                                                    req_id: Any, rid: str, one: bool) -> None:
    ack = {"seq": fields["seq"], "delta": fields["delta"], "v": fields["v"],
           "elapsed": fields["elapsed"], "status": fields["status"], "move": move,
           "moves": [move] if one else fields["legal"], "legal": fields["legal"]}
    assert P.ack_frame(req_id, rid, ack, packb(ack["delta"])) == packb(
        P.ack_reply(req_id, rid, ack))


@given(values)
def test_one_value_packs_as_the_encoder_packs_it(value: Any) -> None:
    assert M.packed_value(value) == packb(value)
    assert M.packed_int(value) == packb(value)
    assert M.packed_str(value) == packb(value)


@given(st.integers(0, 70_000))
def test_map_and_array_heads(n: int) -> None:
    assert M.map_head(n) == packb(dict.fromkeys(range(n), 0))[: len(M.map_head(n))]
    assert M.array_head(n) + b"\x00" * n == packb([0] * n)


def test_a_spectator_field_never_reaches_the_rival() -> None:
    event = {"k": "progress", "player": "p-a", "home": 3, "moves": 9, "move": "t1f1",
             "delta": {"piles": {"t1": [2, ["AS"]]}}, "reveal": {"p-a": {}}, "boards": [1],
             "elapsed": 5, "at": 1_733_000_000_000, "v": 300}
    frame = msgpack.unpackb(P.event_frame(RID, event), raw=False)
    assert frame == {"t": "event", "race": RID, "k": "progress", "player": "p-a", "home": 3,
                     "moves": 9, "elapsed": 5, "at": 1_733_000_000_000, "v": 300}
    assert P.SPECTATOR_ONLY.isdisjoint(frame)


def test_the_string_table_stays_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(M, "_STRS", {})
    for i in range(M.STRS_CAP + 10):
        assert M.packed_str(f"s{i}") == packb(f"s{i}")
    assert len(M._STRS) <= M.STRS_CAP
    long = "y" * (M.SHORT + 1)
    assert M.packed_str(long) == packb(long) and long not in M._STRS


def generic_decode(data: bytes) -> Any:
    """``decode`` as it was: msgpack's own decoder with the limits (an error as its code and
    reason)."""
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True, max_str_len=4096,
                              max_bin_len=4096, max_array_len=1024, max_map_len=64,
                              max_ext_len=0)
    except Exception as exc:
        return ("bad_message", f"not a msgpack frame ({type(exc).__name__})")
    if not isinstance(obj, dict):
        return ("bad_message", "a frame must be a msgpack map")
    return obj


def new_decode(data: bytes) -> Any:
    try:
        return P.decode(data)
    except P.ProtocolError as exc:
        return (exc.code, exc.reason)


flat_values = st.one_of(st.integers(-32, 2**32 - 1), st.text(max_size=31), st.booleans(),
                        st.none(), st.sampled_from([127, 128, 255, 256, 65535, 65536, -1, -32]))


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(st.dictionaries(st.text(max_size=12), flat_values, max_size=15))
def test_a_flat_frame_decodes_as_msgpack_decodes_it(msg: dict[str, Any]) -> None:
    data = packb(msg)
    flat = wire._flat_map(data)
    if all(len(k.encode()) < 32 for k in msg) and all(
            not isinstance(v, str) or len(v.encode()) < 32 for v in msg.values()):
        assert flat is not None
    if flat is not None:
        assert flat == msg and list(flat) == list(msg)
        assert [type(v) for v in flat.values()] == [type(v) for v in msg.values()]
    assert new_decode(data) == generic_decode(data)


@settings(max_examples=EXAMPLES * 10, deadline=None)
@given(st.one_of(st.binary(max_size=60),
                 st.builds(lambda m, cut, extra: packb(m)[:cut] + extra,
                           st.dictionaries(st.text(max_size=6), flat_values, max_size=6),
                           st.integers(0, 80), st.binary(max_size=3))))
def test_any_bytes_decode_as_msgpack_decodes_them(data: bytes) -> None:
    """Truncated, extended or random frames: the same map, or the same error."""
    try:
        flat = wire._flat_map(data)
    except UnicodeDecodeError:  # decode then asks msgpack, whose error it is
        flat = None
    if flat is not None:
        assert flat == generic_decode(data)
    assert new_decode(data) == generic_decode(data)


def test_a_move_frame_decodes_through_the_flat_reader() -> None:
    data = packb({"t": "move", "id": 17, "race": RID, "seq": 612, "move": "t3f1"})
    assert wire._flat_map(data) == {"t": "move", "id": 17, "race": RID, "seq": 612,
                                    "move": "t3f1"}
    assert wire._flat_map(b"\xa1t") is None  # not a map
    assert wire._flat_map(data + b"\x00") is None  # trailing bytes
    assert wire._flat_map(data[:-1]) is None  # cut short
    bad = b"\x81\xa1t\xa2\xff\xfe"  # a value that is not UTF-8: msgpack's error, as before
    with pytest.raises(UnicodeDecodeError):
        wire._flat_map(bad)
    assert new_decode(bad) == generic_decode(bad) == ("bad_message",
                                                      "not a msgpack frame (UnicodeDecodeError)")
