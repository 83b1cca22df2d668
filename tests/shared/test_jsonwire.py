"""The JSON encoding (subprotocol ``solrace.json.v1``): the same maps as msgpack, the same
limits and error codes, seeds as decimal strings."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.jsonwire import decode_json, encode_json
from solrace.shared.protocol import ProtocolError


def code_of(data: Any) -> str:
    with pytest.raises(ProtocolError) as info:
        P.parse_request(decode_json(data))
    return info.value.code


def test_subprotocol_choice() -> None:
    assert P.codec_for(None).name == P.MSGPACK_SUBPROTOCOL
    assert P.codec_for(P.MSGPACK_SUBPROTOCOL).encode is P.encode
    assert P.codec_for(P.JSON_SUBPROTOCOL).encode is encode_json
    assert P.select_subprotocol([]) is None
    assert P.select_subprotocol(["chat"]) is None
    assert P.select_subprotocol(["chat", "solrace.json.v1"]) == "solrace.json.v1"
    assert P.select_subprotocol(["solrace.msgpack.v1", "solrace.json.v1"]) == "solrace.json.v1"
    assert P.select_subprotocol(["solrace.msgpack.v1"]) == "solrace.msgpack.v1"


def test_frames_are_text_and_seeds_are_strings_at_any_depth() -> None:
    msg = {"t": "event", "k": "end", "seed": 2**64 - 1, "v": 3,
           "standings": [{"seed": 5, "home": 52}], "yesterday": {"seed": 0, "par": None}}
    text = encode_json(msg)
    assert isinstance(text, str)
    back = json.loads(text)
    assert back["seed"] == "18446744073709551615"
    assert back["standings"][0] == {"seed": "5", "home": 52}
    assert back["yesterday"] == {"seed": "0", "par": None}
    assert back["v"] == 3
    assert msg["seed"] == 2**64 - 1  # the original is not changed


def test_a_seed_in_a_request_may_be_a_decimal_string_or_a_number() -> None:
    base = {"t": "practice.start", "id": 1, "variant": "unlimited"}
    req = P.parse_request(decode_json(json.dumps({**base, "seed": "18446744073709551615"})))
    assert req.seed == 2**64 - 1
    assert P.parse_request(decode_json(json.dumps({**base, "seed": 42}))).seed == 42
    assert code_of(json.dumps({**base, "seed": "18446744073709551616"})) == "bad_option"
    assert code_of(json.dumps({**base, "seed": -1})) == "bad_option"
    assert code_of(json.dumps({**base, "seed": "-1"})) == "bad_message"
    assert code_of(json.dumps({**base, "seed": "0x10"})) == "bad_message"


def test_binary_frames_and_bad_json_are_bad_messages() -> None:
    assert code_of(P.encode({"t": "ping", "id": 1})) == "bad_message"
    for text in ["", "{", "[1, 2]", '"ping"', "null", "NaN", '{"t": "ping", "id": NaN}',
                 '{"t": "ping"} {}']:
        assert code_of(text) == "bad_message", text


def test_the_msgpack_limits_hold_for_json() -> None:
    assert code_of(json.dumps({"t": "ping", "x": "a" * 4097})) == "bad_message"
    assert code_of(json.dumps({"t": "ping", "x": "é" * 2049}, ensure_ascii=False)) == "bad_message"
    assert code_of(json.dumps({"t": "ping", "x": list(range(1025))})) == "bad_message"
    assert code_of(json.dumps({"t": "ping", **{f"k{i}": 1 for i in range(64)}})) == "bad_message"
    deep = '{"t": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}"
    assert code_of(deep) == "bad_message"
    # within the limits: the request's own checks answer
    assert code_of(json.dumps({"t": "ping", "x": "a" * 4096})) == "bad_message"  # unknown field
    assert decode_json(json.dumps({"t": "ping", "x": list(range(1024))}))["x"][-1] == 1023


def test_frame_size_limit() -> None:
    big = json.dumps({"t": "ping", "p": ["a" * 4000] * 17})
    assert len(big) > P.MAX_FRAME
    assert code_of(big) == "too_large"
    wide = json.dumps({"t": "ping", "p": ["é" * 1000] * 33}, ensure_ascii=False)
    assert len(wide) < P.MAX_FRAME < len(wide.encode())
    assert code_of(wide) == "too_large"


def test_same_errors_as_msgpack_for_the_same_requests() -> None:
    cases = [
        {"t": "ping", "id": 1, "extra": 1},
        {"t": "bogus", "id": 2},
        {"t": "hello", "id": 3, "v": 2},
        {"t": "hello", "id": 4, "v": 1, "name": "x"},
        {"t": "move", "id": 5, "race": "0123456789abcdef", "seq": True, "move": "sw"},
        {"t": "move", "id": 6, "race": "0123456789abcdef", "seq": 1.0, "move": "sw"},
        {"t": "race.create", "id": 7, "variant": "unlimited", "seats": 9},
    ]
    for msg in cases:
        with pytest.raises(ProtocolError) as a:
            P.parse_request(P.decode(msgpack.packb(msg)))
        assert code_of(json.dumps(msg)) == a.value.code, msg


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=5),
    max_leaves=30,
)


@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "seed"), json_values,
                       max_size=8))
def test_round_trip_without_seeds(message: dict[str, Any]) -> None:
    def no_seed(v: Any) -> bool:
        if isinstance(v, dict):
            return "seed" not in v and all(no_seed(x) for x in v.values())
        if isinstance(v, list):
            return all(no_seed(x) for x in v)
        return True

    if no_seed(message):
        assert decode_json(encode_json(message)) == message


@given(st.text(max_size=300))
def test_arbitrary_text_never_escapes_as_anything_but_protocol_errors(text: str) -> None:
    try:
        P.parse_request(decode_json(text))
    except ProtocolError as exc:
        assert exc.code in P.ERROR_CODES


_KEYS = st.sampled_from(["seed", "seeds", "race", "t", "v", 'a"seed":', "x"])
_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.text(max_size=12)
    | st.sampled_from(['"seed":', 'x"seed":1']),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(_KEYS, _JSONISH, max_size=5))
def test_the_fast_encoding_is_the_converted_copys_text(message: dict[str, Any]) -> None:
    """encode_json dumps a frame without a seed as it is: the text must be exactly that of the
    copy with every seed as a string, whether or not some seed, or seed-like text, is in it."""
    from solrace.shared.jsonwire import _seeds_as_text

    expected = json.dumps(_seeds_as_text(message), separators=(",", ":"), ensure_ascii=False)
    assert encode_json(message) == expected
