"""The sans-I/O protocol module: codec, decode limits, request validation, error replies.

These tests pin the wire contract of ``docs/protocol.md`` at the level a client sees it: which
frames are accepted, which error code each bad frame earns, and the exact bounds of every
field. The last tests read ``docs/protocol.md`` itself, so that a new request type, field or
error code cannot be added without documenting it.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import re
from pathlib import Path
from typing import Any, NamedTuple

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

RACE = "0123456789abcdef"  # the server's ids are 16 lowercase hex digits
CODE = "AB2C3D"
TOKEN = "t" * 32


def code_of(call: Any, *args: Any) -> str:
    """The wire error code ``call(*args)`` raises (fails the test when it raises nothing)."""
    with pytest.raises(ProtocolError) as info:
        call(*args)
    assert info.value.code in P.ERROR_CODES
    return info.value.code


def parse_code(msg: dict[str, Any]) -> str:
    return code_of(P.parse_request, msg)


# ----------------------------------------------------------------------------- the contract
#
# Every request type with its fields: (kind, required). Kinds: "int", "str", "bool", "map",
# "id" (int or short string), "str?"/"int?" (may also be nil). Written out by hand from
# docs/protocol.md, not derived from the dataclasses, so a silent change fails
# test_field_table_matches_the_module.

FIELDS: dict[str, dict[str, tuple[str, bool]]] = {
    "hello": {"id": ("id", False), "v": ("int", True), "name": ("str?", False),
              "token": ("str?", False), "client": ("str?", False),
              "batch": ("bool", False)},
    "ping": {"id": ("id", False)},
    "race.create": {"id": ("id", False), "variant": ("str", True), "options": ("map", False),
                    "seats": ("int", False), "time_limit": ("int", False),
                    "rated": ("bool", False), "winnable": ("bool", False),
                    "difficulty": ("str?", False)},
    "race.join": {"id": ("id", False), "code": ("str?", False), "race": ("str?", False)},
    "race.leave": {"id": ("id", False), "race": ("str", True)},
    "race.ready": {"id": ("id", False), "race": ("str", True)},
    "races.mine": {"id": ("id", False)},
    "quick": {"id": ("id", False), "variant": ("str", True), "options": ("map", False),
              "winnable": ("bool", False), "difficulty": ("str?", False)},
    "quick.cancel": {"id": ("id", False)},
    "move": {"id": ("id", False), "race": ("str", True), "seq": ("int", True),
             "move": ("str", True), "auto": ("bool", False)},
    "autoplay": {"id": ("id", False), "race": ("str", True), "seq": ("int", True)},
    "finish": {"id": ("id", False), "race": ("str", True), "seq": ("int", True)},
    "legal": {"id": ("id", False), "race": ("str", True)},
    "resign": {"id": ("id", False), "race": ("str", True)},
    "race.rematch": {"id": ("id", False), "race": ("str", True)},
    "sync": {"id": ("id", False), "race": ("str", True), "since": ("int", False)},
    "watch": {"id": ("id", False), "race": ("str?", False), "code": ("str?", False),
              "since": ("int", False), "full": ("bool", False)},
    "unwatch": {"id": ("id", False), "race": ("str", True)},
    "races.live": {"id": ("id", False), "limit": ("int", False), "before": ("int?", False)},
    "daily": {"id": ("id", False), "variant": ("str", True), "difficulty": ("str?", False)},
    "daily.start": {"id": ("id", False), "variant": ("str", True), "practice": ("bool", False),
                    "difficulty": ("str?", False)},
    "leaderboard": {"id": ("id", False), "variant": ("str", True), "date": ("str?", False),
                    "offset": ("int", False), "limit": ("int", False),
                    "around_me": ("bool", False), "difficulty": ("str?", False)},
    "profile": {"id": ("id", False), "name": ("str?", False)},
    "hint": {"id": ("id", False), "race": ("str", True)},
    "winnable": {"id": ("id", False), "race": ("str", True)},
    "practice.start": {"id": ("id", False), "variant": ("str", True), "options": ("map", False),
                       "bots": ("list", False), "time_limit": ("int", False),
                       "seed": ("int?", False)},
    "register": {"id": ("id", False), "password": ("str", True), "name": ("str?", False),
                 "client": ("str?", False), "bot": ("bool", False)},
    "account.bot": {"id": ("id", False)},
    "login": {"id": ("id", False), "name": ("str", True), "password": ("str", True),
              "client": ("str?", False)},
    "logout": {"id": ("id", False)},
    "sessions": {"id": ("id", False)},
    "session.revoke": {"id": ("id", False), "session": ("str", True)},
    "password.change": {"id": ("id", False), "old": ("str", True), "new": ("str", True)},
    "account.delete": {"id": ("id", False), "password": ("str", True)},
    "report": {"id": ("id", False), "player": ("str", True), "category": ("str", True),
               "note": ("str", False), "race": ("str?", False)},
    "mod.reports": {"id": ("id", False), "limit": ("int", False), "player": ("str?", False)},
    "mod.queue": {"id": ("id", False), "limit": ("int", False)},
    "mod.case": {"id": ("id", False), "case": ("str", True)},
    "mod.clear": {"id": ("id", False), "case": ("str", True), "reason": ("str", True)},
    "mod.ban": {"id": ("id", False), "player": ("str", True), "reason": ("str", True)},
    "mod.unban": {"id": ("id", False), "player": ("str", True), "reason": ("str", True)},
    "mod.warn": {"id": ("id", False), "player": ("str", True), "reason": ("str", True)},
    "mod.annul": {"id": ("id", False), "race": ("str", True), "reason": ("str", True)},
    "mod.rename": {"id": ("id", False), "player": ("str", True), "name": ("str", True),
                   "reason": ("str", True)},
    "mod.audit": {"id": ("id", False), "limit": ("int", False), "before": ("str?", False)},
    "tournaments": {"id": ("id", False), "limit": ("int", False)},
    "analysis": {"id": ("id", False), "race": ("str", True), "player": ("str?", False)},
    "tournament.create": {"id": ("id", False), "name": ("str", True), "variant": ("str", True),
                          "options": ("map", False), "starts_in": ("int", False),
                          "minutes": ("int", False), "deal_seconds": ("int", False),
                          "format": ("str", False), "deals": ("int", False),
                          "max_entrants": ("int", False)},
    "tournament.join": {"id": ("id", False), "tournament": ("str", True)},
    "tournament.info": {"id": ("id", False), "tournament": ("str", True)},
    "tournament.play": {"id": ("id", False), "tournament": ("str", True),
                        "berserk": ("bool", False)},
    "tournament.standings": {"id": ("id", False), "tournament": ("str", True),
                             "follow": ("bool", False)},
    "tournament.bracket": {"id": ("id", False), "tournament": ("str", True),
                           "follow": ("bool", False)},
}

# A valid map per request type, every field set to a value that passes validation.
VALID: dict[str, dict[str, Any]] = {
    "hello": {"t": "hello", "id": 1, "v": P.PROTOCOL_VERSION, "name": "alice"},
    "ping": {"t": "ping", "id": 2},
    "race.create": {"t": "race.create", "id": 3, "variant": "unlimited",
                    "options": {"draw": "3"}, "seats": 4, "time_limit": 300, "rated": True,
                    "winnable": True, "difficulty": "hard"},
    "race.join": {"t": "race.join", "id": 4, "code": CODE},
    "race.leave": {"t": "race.leave", "id": 5, "race": RACE},
    "race.ready": {"t": "race.ready", "id": 6, "race": RACE},
    "races.mine": {"t": "races.mine", "id": 7},
    "quick": {"t": "quick", "id": 8, "variant": "unlimited", "options": {"draw": 1},
              "winnable": True, "difficulty": "easy"},
    "quick.cancel": {"t": "quick.cancel", "id": 9},
    "move": {"t": "move", "id": 10, "race": RACE, "seq": 0, "move": "t3t5:2", "auto": True},
    "autoplay": {"t": "autoplay", "id": 22, "race": RACE, "seq": 3},
    "finish": {"t": "finish", "id": 23, "race": RACE, "seq": 9},
    "legal": {"t": "legal", "id": 24, "race": RACE},
    "resign": {"t": "resign", "id": 11, "race": RACE},
    "race.rematch": {"t": "race.rematch", "id": 22, "race": RACE},
    "sync": {"t": "sync", "id": 12, "race": RACE, "since": 7},
    "watch": {"t": "watch", "id": 13, "race": RACE, "since": 0, "full": True},
    "unwatch": {"t": "unwatch", "id": 14, "race": RACE},
    "races.live": {"t": "races.live", "id": 15, "limit": 5, "before": 1_700_000_000_000},
    "daily": {"t": "daily", "id": 16, "variant": "unlimited", "difficulty": "medium"},
    "daily.start": {"t": "daily.start", "id": 17, "variant": "unlimited", "practice": True,
                    "difficulty": "hard"},
    "leaderboard": {"t": "leaderboard", "id": 18, "variant": "unlimited", "date": "2026-11-29",
                    "offset": 40, "limit": 10, "around_me": True, "difficulty": "easy"},
    "profile": {"t": "profile", "id": 19, "name": "alice"},
    "hint": {"t": "hint", "id": 20, "race": RACE},
    "winnable": {"t": "winnable", "id": 57, "race": RACE},
    "practice.start": {"t": "practice.start", "id": 21, "variant": "unlimited",
                       "options": {"draw": "3"}, "bots": ["weak", "strong", "weak"],
                       "time_limit": 300, "seed": 2**64 - 1},
    "register": {"t": "register", "id": 22, "password": "correct horse", "name": "alice",
                 "client": "solrace-cli 0.1", "bot": False},
    "account.bot": {"t": "account.bot", "id": 38},
    "login": {"t": "login", "id": 23, "name": "alice", "password": "correct horse",
              "client": "web"},
    "logout": {"t": "logout", "id": 24},
    "sessions": {"t": "sessions", "id": 25},
    "session.revoke": {"t": "session.revoke", "id": 26, "session": "0123456789ab"},
    "password.change": {"t": "password.change", "id": 27, "old": "correct horse",
                        "new": "battery staple"},
    "account.delete": {"t": "account.delete", "id": 28, "password": "correct horse"},
    "report": {"t": "report", "id": 36, "player": "bot9", "category": "cheating",
               "note": "0.1 s a move", "race": "0123abcd"},
    "mod.reports": {"t": "mod.reports", "id": 37, "limit": 5, "player": "bot9"},
    "mod.queue": {"t": "mod.queue", "id": 29, "limit": 20},
    "mod.case": {"t": "mod.case", "id": 30, "case": "0123abcd:f00d"},
    "mod.clear": {"t": "mod.clear", "id": 31, "case": "0123abcd:f00d", "reason": "a person"},
    "mod.ban": {"t": "mod.ban", "id": 32, "player": "bot9", "reason": "solver line"},
    "mod.unban": {"t": "mod.unban", "id": 33, "player": "bot9", "reason": "appeal"},
    "mod.warn": {"t": "mod.warn", "id": 39, "player": "bot9", "reason": "language"},
    "mod.annul": {"t": "mod.annul", "id": 40, "race": "0123abcd", "reason": "arranged"},
    "mod.rename": {"t": "mod.rename", "id": 35, "player": "a.lice", "name": "mallory",
                   "reason": "impersonation"},
    "mod.audit": {"t": "mod.audit", "id": 34, "limit": 10, "before": "1700000000000-0"},
    "tournaments": {"t": "tournaments", "id": 50, "limit": 5},
    "analysis": {"t": "analysis", "id": 56, "race": "0123456789abcdef",
                 "player": "0ed985d4543f201b"},
    "tournament.create": {"t": "tournament.create", "id": 51, "name": "Friday arena",
                          "variant": "unlimited", "options": {"draw": "3"}, "starts_in": 60,
                          "minutes": 30, "deal_seconds": 300, "format": "event", "deals": 3,
                          "max_entrants": 16},
    "tournament.join": {"t": "tournament.join", "id": 52, "tournament": "AB12CD34"},
    "tournament.info": {"t": "tournament.info", "id": 55, "tournament": "AB12CD34"},
    "tournament.play": {"t": "tournament.play", "id": 53, "tournament": "0123456789abcdef",
                        "berserk": True},
    "tournament.standings": {"t": "tournament.standings", "id": 54,
                             "tournament": "0123456789abcdef", "follow": True},
    "tournament.bracket": {"t": "tournament.bracket", "id": 57,
                           "tournament": "0123456789abcdef", "follow": True},
}

# Values of the wrong type for each kind (bools are not ints and ints are not bools).
WRONG: dict[str, list[Any]] = {
    "int": ["1", 1.0, 1.5, True, False, None, [1], {"a": 1}, b"\x01"],
    "int?": ["1", 1.5, True, [1]],
    "str": [1, 1.5, True, None, ["a"], {"a": "b"}, b"alice"],
    "str?": [1, 1.5, True, ["a"], {"a": "b"}, b"alice"],
    "bool": [1, 0, "true", None, 1.0, []],
    "map": [[], "draw=3", 3, None, True],
    "list": ["weak", 1, True, None, {"weak": 1}, b"weak"],
    "id": [True, False, 1.5, ["x"], {"x": 1}, b"x"],
}


def test_every_request_type_is_covered_here() -> None:
    assert set(P.request_types()) == set(FIELDS) == set(VALID)


def test_field_table_matches_the_module() -> None:
    for kind, cls in P.request_types().items():
        fields = {f.name: f for f in dataclasses.fields(cls)}
        assert set(fields) == set(FIELDS[kind]), kind
        for name, (_, required) in FIELDS[kind].items():
            f = fields[name]
            has_default = (f.default is not dataclasses.MISSING
                           or f.default_factory is not dataclasses.MISSING)
            assert has_default is not required, (kind, name)


# ----------------------------------------------------------------------------- codec


def test_encode_is_binary_msgpack() -> None:
    frame = P.encode({"t": "ping", "id": 1})
    assert isinstance(frame, bytes)
    assert msgpack.unpackb(frame, raw=False) == {"t": "ping", "id": 1}


def test_round_trip_of_a_typical_server_frame() -> None:
    msg = {
        "t": "ack", "re": 7, "race": RACE, "seq": 3, "v": 12, "elapsed": 4021,
        "status": "playing", "delta": {"moves": 3, "piles": {"t2": [1, ["QS", "JH"]]}},
        "seed": 2**64 - 1, "progress_at": None, "rated": False, "delay": 1.5,
    }
    assert P.decode(P.encode(msg)) == msg


def test_bytes_and_text_stay_distinct() -> None:
    out = P.decode(P.encode({"bin": b"\x00\xff", "str": "é"}))
    assert out == {"bin": b"\x00\xff", "str": "é"}
    assert isinstance(out["bin"], bytes) and isinstance(out["str"], str)


_scalars = (
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=40) | st.binary(max_size=40)
    | st.floats(allow_nan=False)
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(max_size=10), inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=12), _values, max_size=12))
def test_round_trip(message: dict[str, Any]) -> None:
    assert P.decode(P.encode(message)) == message


@pytest.mark.parametrize("kind", sorted(VALID))
def test_valid_requests_survive_the_codec(kind: str) -> None:
    msg = VALID[kind]
    req = P.decode_request(P.encode(msg))
    assert req == P.parse_request(dict(msg))
    assert (req.TYPE, req.id) == (kind, msg["id"])


# ----------------------------------------------------------------------------- decode limits


def _frame_of_size(size: int) -> bytes:
    """A valid msgpack map of exactly ``size`` bytes (strings within the 4096 limit)."""
    chunks: dict[str, str] = {}
    i = 0
    while len(P.encode(chunks)) < size - 4200:
        chunks[f"k{i}"] = "x" * 4000
        i += 1
    base = len(P.encode({**chunks, "pad": ""}))
    # str8 covers up to 255 characters, str16 above; keep the pad in str16 (3-byte header).
    pad = size - base - 2  # base counted a 1-byte fixstr header for the empty pad
    assert 256 <= pad <= 4096, pad
    frame = P.encode({**chunks, "pad": "y" * pad})
    assert len(frame) == size
    return frame


def test_the_documented_constants() -> None:
    assert P.MAX_FRAME == 65536
    assert P.PROTOCOL_VERSION == 1
    assert sorted(P.SUPPORTED_VERSIONS) == [1]


def test_frame_at_the_size_limit_is_accepted() -> None:
    frame = _frame_of_size(P.MAX_FRAME)
    assert len(P.decode(frame)) > 1


def test_frame_above_the_size_limit_is_too_large() -> None:
    assert code_of(P.decode, _frame_of_size(P.MAX_FRAME + 1)) == "too_large"
    assert code_of(P.decode, b"\x00" * (10 * P.MAX_FRAME)) == "too_large"
    assert code_of(P.decode_request, b"\x00" * (P.MAX_FRAME + 1)) == "too_large"


@pytest.mark.parametrize("text", ['{"t": "ping", "id": 1}', "", "hello"])
def test_text_frames_are_bad_messages(text: str) -> None:
    with pytest.raises(ProtocolError) as info:
        P.decode(text)
    assert info.value.code == "bad_message"
    assert "binary" in info.value.reason


@pytest.mark.parametrize("obj", [[1, 2], [], 7, -1, "ping", b"ping", None, True, 1.5])
def test_non_map_frames_are_bad_messages(obj: Any) -> None:
    assert code_of(P.decode, msgpack.packb(obj, use_bin_type=True)) == "bad_message"


@pytest.mark.parametrize(
    "data",
    [
        b"",  # nothing
        b"\xc1",  # the one byte msgpack never uses
        b"\x82\xa1t",  # truncated map
        P.encode({"t": "ping"}) + b"\xc0",  # trailing data after the map
        b"\x81\xa1t\xa2\xff\xfe",  # a str that is not UTF-8
        b"\x81\x01\x02",  # an int key (map keys must be strings)
        msgpack.packb({"t": msgpack.ExtType(1, b"x")}),  # extension types are refused
        msgpack.packb({"t": msgpack.Timestamp(1)}),  # including the timestamp extension
        bytes(range(256)),
    ],
)
def test_garbage_is_a_bad_message(data: bytes) -> None:
    assert code_of(P.decode, data) == "bad_message"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_escape_as_anything_but_protocol_errors(data: bytes) -> None:
    try:
        req = P.decode_request(data)
    except ProtocolError as exc:
        assert exc.code in P.ERROR_CODES
    else:
        assert isinstance(req, P.Request)


@pytest.mark.parametrize("depth", [1025, 5000, 21_000])
def test_deep_nesting_is_refused_without_crashing(depth: int) -> None:
    arrays = b"\x91" * (3 * depth) + b"\xc0"  # within the frame limit even at the deepest
    maps = b"\x81\xa1a" * depth + b"\xc0"
    assert len(maps) <= P.MAX_FRAME and len(arrays) <= P.MAX_FRAME
    assert code_of(P.decode, arrays) == "bad_message"
    assert code_of(P.decode, maps) == "bad_message"


def test_moderate_nesting_decodes() -> None:
    assert P.decode(b"\x81\xa1a" * 100 + b"\xc0")["a"]["a"]["a"] is not None


@pytest.mark.parametrize(
    "header",
    [
        b"\xdd\xff\xff\xff\xff",  # array32 announcing 4G elements
        b"\xdf\xff\xff\xff\xff",  # map32 announcing 4G pairs
        b"\xdb\xff\xff\xff\xff",  # str32 announcing 4 GiB
        b"\xc6\xff\xff\xff\xff",  # bin32 announcing 4 GiB
        b"\x81\xa1a\xdd\x00\x01\x00\x00",  # a field announcing 65536 elements
    ],
)
def test_huge_announced_sizes_are_refused(header: bytes) -> None:
    assert code_of(P.decode, header) == "bad_message"


def test_container_and_string_limits() -> None:
    # At the limits: accepted.
    assert len(P.decode(P.encode({f"k{i}": i for i in range(64)}))) == 64
    assert len(P.decode(P.encode({"a": list(range(1024))}))["a"]) == 1024
    assert len(P.decode(P.encode({"a": "x" * 4096}))["a"]) == 4096
    assert len(P.decode(P.encode({"a": b"x" * 4096}))["a"]) == 4096
    # One above: refused.
    assert code_of(P.decode, P.encode({f"k{i}": i for i in range(65)})) == "bad_message"
    assert code_of(P.decode, P.encode({"a": list(range(1025))})) == "bad_message"
    assert code_of(P.decode, P.encode({"a": "x" * 4097})) == "bad_message"
    assert code_of(P.decode, P.encode({"a": b"x" * 4097})) == "bad_message"
    assert code_of(P.decode, P.encode({"a": {"b": {f"k{i}": 1 for i in range(65)}}})) == (
        "bad_message"
    )


# ----------------------------------------------------------------------------- requests


@pytest.mark.parametrize("kind", sorted(VALID))
def test_every_request_parses_from_a_valid_map(kind: str) -> None:
    msg = VALID[kind]
    req = P.parse_request(dict(msg))
    assert isinstance(req, P.request_types()[kind])
    assert kind == req.TYPE
    for name, value in msg.items():
        if name != "t":
            assert getattr(req, name) == value, name


@pytest.mark.parametrize("kind", sorted(VALID))
def test_minimal_requests_take_the_documented_defaults(kind: str) -> None:
    msg = {"t": kind, **{k: v for k, v in VALID[kind].items()
                         if k in FIELDS[kind] and FIELDS[kind][k][1]}}
    if kind in ("race.join", "watch"):
        msg["race"] = RACE  # exactly one of code/race is required
    req = P.parse_request(msg)
    assert req.id is None
    defaults = {
        "race.create": {"options": {}, "seats": 2, "time_limit": 600, "rated": False,
                        "winnable": False, "difficulty": None},
        "quick": {"options": {}, "winnable": False, "difficulty": None},
        "daily": {"difficulty": None},
        "sync": {"since": 0},
        "watch": {"since": 0, "full": False, "code": None},
        "races.live": {"limit": 20, "before": None},
        "race.join": {"code": None},
        "hello": {"name": None, "token": None},
        "daily.start": {"practice": False, "difficulty": None},
        "leaderboard": {"date": None, "offset": 0, "limit": 20, "around_me": False,
                        "difficulty": None},
        "profile": {"name": None},
        "practice.start": {"options": {}, "bots": [], "time_limit": 600, "seed": None},
    }.get(kind, {})
    for name, value in defaults.items():
        assert getattr(req, name) == value, name


def _required(kind: str) -> list[str]:
    return [name for name, (_, required) in FIELDS[kind].items() if required]


@pytest.mark.parametrize(
    ("kind", "name"), [(k, n) for k in sorted(FIELDS) for n in _required(k)]
)
def test_missing_required_field(kind: str, name: str) -> None:
    msg = {k: v for k, v in VALID[kind].items() if k != name}
    with pytest.raises(ProtocolError) as info:
        P.parse_request(msg)
    assert info.value.code == "bad_message"
    assert name in info.value.reason


@pytest.mark.parametrize(
    ("kind", "name", "value"),
    [
        (k, n, v)
        for k in sorted(FIELDS)
        for n, (kind_of_field, _) in FIELDS[k].items()
        for v in WRONG[kind_of_field]
    ],
)
def test_wrong_types_are_bad_messages(kind: str, name: str, value: Any) -> None:
    msg = {**VALID[kind], name: value}
    with pytest.raises(ProtocolError) as info:
        P.parse_request(msg)
    assert info.value.code == "bad_message"


@pytest.mark.parametrize("kind", sorted(VALID))
def test_bool_is_not_an_int(kind: str) -> None:
    for name, (field_kind, _) in FIELDS[kind].items():
        if field_kind in ("int", "int?", "id"):
            assert parse_code({**VALID[kind], name: True}) == "bad_message", name


@pytest.mark.parametrize("kind", sorted(VALID))
@pytest.mark.parametrize("extra", ["zzz", "re", "T", "type"])
def test_unknown_fields_are_refused(kind: str, extra: str) -> None:
    with pytest.raises(ProtocolError) as info:
        P.parse_request({**VALID[kind], extra: 1})
    assert info.value.code == "bad_message"
    assert extra in info.value.reason


def test_type_field() -> None:
    assert parse_code({"id": 1}) == "bad_message"
    assert parse_code({"t": 1, "id": 1}) == "bad_message"
    assert parse_code({"t": None}) == "bad_message"
    assert parse_code({"t": b"ping"}) == "bad_message"
    for unknown in ("Ping", "pong", "welcome", "event", "race", "", "move ", "race_create"):
        assert parse_code({"t": unknown, "id": 1}) == "unknown_type", unknown


def test_request_ids() -> None:
    assert P.parse_request({"t": "ping", "id": 0}).id == 0
    assert P.parse_request({"t": "ping", "id": -5}).id == -5
    assert P.parse_request({"t": "ping", "id": 2**64 - 1}).id == 2**64 - 1
    assert P.parse_request({"t": "ping", "id": "x" * 64}).id == "x" * 64
    assert P.parse_request({"t": "ping", "id": ""}).id == ""
    assert P.parse_request({"t": "ping"}).id is None
    assert P.parse_request({"t": "ping", "id": None}).id is None
    assert parse_code({"t": "ping", "id": "x" * 65}) == "bad_message"


def test_byte_keys_never_match_fields() -> None:
    assert parse_code({b"t": "ping"}) == "bad_message"
    assert parse_code({"t": "ping", b"id": 1}) == "bad_message"


def test_mixed_str_and_byte_unknown_keys_are_bad_messages() -> None:
    assert parse_code({"t": "ping", b"a": 1, "b": 2}) == "bad_message"


# ----------------------------------------------------------------------------- hello


def test_hello_forms() -> None:
    new = P.parse_request({"t": "hello", "v": 1, "name": "alice"})
    assert isinstance(new, P.Hello) and new.name == "alice" and new.token is None
    resume = P.parse_request({"t": "hello", "v": 1, "token": TOKEN})
    assert isinstance(resume, P.Hello) and resume.token == TOKEN and resume.name is None
    anonymous = P.parse_request({"t": "hello", "v": 1})
    assert isinstance(anonymous, P.Hello) and anonymous.name is None and anonymous.token is None
    both = {"t": "hello", "v": 1, "name": "alice", "token": TOKEN}
    assert parse_code(both) == "bad_message"


@pytest.mark.parametrize("version", [0, 2, 3, -1, 2**32, 2**64 - 1])
def test_unsupported_version(version: int) -> None:
    assert version not in P.SUPPORTED_VERSIONS
    with pytest.raises(ProtocolError) as info:
        P.parse_request({"t": "hello", "id": "h", "v": version, "name": "alice"})
    exc = info.value
    assert exc.code == "unsupported_version"
    assert exc.extra == {"supported": sorted(P.SUPPORTED_VERSIONS)}
    assert str(P.PROTOCOL_VERSION) in exc.reason
    reply = P.error("h", exc.code, exc.reason, **exc.extra)
    assert reply["supported"] == [P.PROTOCOL_VERSION] and reply["re"] == "h"


def test_version_is_checked_before_the_name() -> None:
    assert parse_code({"t": "hello", "v": 99, "name": "!"}) == "unsupported_version"
    assert parse_code({"t": "hello", "v": 99, "name": "a", "token": TOKEN}) == (
        "unsupported_version"
    )


def test_supported_versions() -> None:
    assert P.PROTOCOL_VERSION in P.SUPPORTED_VERSIONS
    for v in P.SUPPORTED_VERSIONS:
        assert P.parse_request({"t": "hello", "v": v}).v == v


@pytest.mark.parametrize(
    "name", ["ab", "Al", "a" * 20, "a_b.c-d", "9lives", "X1", "Z_", "ab--", "0.0"]
)
def test_good_names(name: str) -> None:
    assert P.parse_request({"t": "hello", "v": 1, "name": name}).name == name


@pytest.mark.parametrize(
    "name",
    [
        "", "a", "a" * 21, "_abc", "-abc", ".abc", "ab cd", " abc", "abc ", "héllo", "ab/cd",
        "ab:cd", "ab{c}", "ab\x00", "ab\tc", "\nabc", "日本語", "a" * 100,
    ],
)
def test_bad_names(name: str) -> None:
    assert parse_code({"t": "hello", "v": 1, "name": name}) == "bad_name"


def test_a_trailing_newline_is_not_part_of_a_good_name() -> None:
    assert parse_code({"t": "hello", "v": 1, "name": "alice\n"}) == "bad_name"


@pytest.mark.parametrize("length", [16, 32, 128])
def test_good_token_lengths(length: int) -> None:
    assert P.parse_request({"t": "hello", "v": 1, "token": "k" * length}).token == "k" * length


@pytest.mark.parametrize("token", ["", "k", "k" * 15, "k" * 129, "k" * 1000])
def test_bad_token_lengths(token: str) -> None:
    assert parse_code({"t": "hello", "v": 1, "token": token}) == "bad_token"


# ----------------------------------------------------------------------------- races


RACE_REQUESTS = ["race.leave", "race.ready", "resign", "sync", "move", "unwatch", "hint",
                 "winnable"]


@pytest.mark.parametrize("kind", [*RACE_REQUESTS, "race.join", "watch"])
@pytest.mark.parametrize("race", ["abcdefgh", "0" * 32, "a1b2c3d4e5"])
def test_good_race_ids(kind: str, race: str) -> None:
    msg = {**VALID[kind], "race": race}
    msg.pop("code", None)
    assert P.parse_request(msg).race == race


@pytest.mark.parametrize("kind", [*RACE_REQUESTS, "race.join", "watch"])
@pytest.mark.parametrize(
    "race",
    ["", "abcdefg", "a" * 33, "ABCDEFGH", "0123456789ABCDEF", "abcd-efgh", "abcd efgh",
     "abcdefgé", "../../etc", "{abcdefgh}", "abcd*efgh"],
)
def test_bad_race_ids_are_race_not_found(kind: str, race: str) -> None:
    msg = {**VALID[kind], "race": race}
    msg.pop("code", None)
    assert parse_code(msg) == "race_not_found"


@pytest.mark.parametrize("kind", ["race.join", "watch"])
@pytest.mark.parametrize("code", ["AB2C3D", "ab2c3d", "ZZZZZZ", "234567", "HJKMNP", "IOIOIO"])
def test_good_codes(kind: str, code: str) -> None:
    msg = {k: v for k, v in VALID[kind].items() if k != "race"}
    assert P.parse_request({**msg, "code": code}).code == code


@pytest.mark.parametrize("kind", ["race.join", "watch"])
@pytest.mark.parametrize(
    "code", ["", "AB2C3", "AB2C3DE", "AB0C3D", "AB1C3D", "AB-C3D", "AB C3D", "ÄB2C3D", "{ABCDE"]
)
def test_bad_codes_are_race_not_found(kind: str, code: str) -> None:
    msg = {k: v for k, v in VALID[kind].items() if k != "race"}
    assert parse_code({**msg, "code": code}) == "race_not_found"


@pytest.mark.parametrize("kind", ["race.join", "watch"])
def test_exactly_one_of_code_and_race(kind: str) -> None:
    base = {k: v for k, v in VALID[kind].items() if k not in ("race", "code")}
    assert parse_code(base) == "bad_message"
    assert parse_code({**base, "race": RACE, "code": CODE}) == "bad_message"
    assert parse_code({**base, "race": None, "code": None}) == "bad_message"
    assert P.parse_request({**base, "race": None, "code": CODE}).code == CODE


@pytest.mark.parametrize("seats", [2, 3, 8])
def test_seats_in_bounds(seats: int) -> None:
    assert P.parse_request({**VALID["race.create"], "seats": seats}).seats == seats


@pytest.mark.parametrize("seats", [-1, 0, 1, 9, 100, 2**40])
def test_seats_out_of_bounds(seats: int) -> None:
    assert parse_code({**VALID["race.create"], "seats": seats}) == "bad_option"


@pytest.mark.parametrize("limit", [30, 600, 7200])
def test_time_limit_in_bounds(limit: int) -> None:
    req = P.parse_request({**VALID["race.create"], "time_limit": limit})
    assert req.time_limit == limit


@pytest.mark.parametrize("limit", [-30, 0, 29, 7201, 86400])
def test_time_limit_out_of_bounds(limit: int) -> None:
    assert parse_code({**VALID["race.create"], "time_limit": limit}) == "bad_option"


@pytest.mark.parametrize("kind", ["race.create", "quick"])
def test_options(kind: str) -> None:
    ok = {f"o{i}": str(i) for i in range(16)}
    assert P.parse_request({**VALID[kind], "options": ok}).options == ok
    assert P.parse_request({**VALID[kind], "options": {"draw": 3}}).options == {"draw": 3}
    too_many = {f"o{i}": "x" for i in range(17)}
    assert parse_code({**VALID[kind], "options": too_many}) == "bad_option"
    for bad_value in (True, 1.5, None, ["3"], {"x": "y"}, b"3"):
        assert parse_code({**VALID[kind], "options": {"draw": bad_value}}) == "bad_option"
    assert parse_code({**VALID[kind], "options": {b"draw": "3"}}) == "bad_option"


@pytest.mark.parametrize("kind", ["daily", "daily.start", "leaderboard", "race.create",
                                  "quick"])
def test_difficulty_is_easy_medium_or_hard(kind: str) -> None:
    for level in ("easy", "medium", "hard"):
        assert P.parse_request({**VALID[kind], "difficulty": level}).difficulty == level
    for bad in ("Hard", "", "extreme", "easy "):
        assert parse_code({**VALID[kind], "difficulty": bad}) == "bad_option"
    assert parse_code({**VALID[kind], "difficulty": 2}) == "bad_message"


@pytest.mark.parametrize("kind", ["race.create", "quick"])
def test_a_race_difficulty_needs_winnable(kind: str) -> None:
    assert parse_code({**VALID[kind], "winnable": False}) == "bad_option"
    msg = {k: v for k, v in VALID[kind].items() if k != "difficulty"}
    assert P.parse_request({**msg, "winnable": False}).difficulty is None


def test_hint_names_a_race_and_nothing_else() -> None:
    req = P.parse_request({"t": "hint", "id": 1, "race": RACE})
    assert isinstance(req, P.Hint) and req.race == RACE
    for bad in ({"t": "hint", "id": 1}, {"t": "hint", "race": RACE, "seq": 3},
                {"t": "hint", "race": RACE, "move": "t3t5"}, {"t": "hint", "race": 7},
                {"t": "hint", "race": None}, {"t": "hint", "race": RACE, "id": True}):
        assert parse_code(bad) == "bad_message", bad
    assert parse_code({"t": "hint", "race": "NOT-A-RACE"}) == "race_not_found"
    assert "not_practice" in P.ERROR_CODES


def test_practice_start_bounds() -> None:
    base = VALID["practice.start"]
    for ok in ({"bots": []}, {"bots": ["strong"] * 7}, {"bots": ["medium", "weak"]},
               {"time_limit": 30}, {"time_limit": 3600}, {"seed": 0}, {"seed": None},
               {"seed": 2**64 - 1}):
        req = P.parse_request({**base, **ok})
        assert isinstance(req, P.PracticeStart)
        for name, value in ok.items():
            assert getattr(req, name) == value
    for bad in ({"bots": ["weak"] * 8}, {"bots": ["expert"]}, {"bots": ["Weak"]},
                {"bots": [1]}, {"bots": [None]}, {"bots": [["weak"]]}, {"bots": ["weak", ""]},
                {"time_limit": 29}, {"time_limit": 3601}, {"time_limit": 0},
                {"seed": -1}, {"options": {"draw": ["3"]}}):
        assert parse_code({**base, **bad}) == "bad_option", bad
    assert parse_code({**base, "bots": "weak"}) == "bad_message"  # not a list at all
    assert P.BOT_STRENGTHS == ("weak", "medium", "strong") and P.MAX_BOTS == 7


def test_moves() -> None:
    base = VALID["move"]
    assert P.parse_request({**base, "seq": 0}).seq == 0
    assert P.parse_request({**base, "seq": 10_000}).seq == 10_000
    assert parse_code({**base, "seq": -1}) == "bad_message"
    sixteen = "t1t2:" + "1" * 11
    assert P.parse_request({**base, "move": sixteen}).move == sixteen
    assert parse_code({**base, "move": sixteen + "1"}) == "bad_notation"
    # The notation itself is the engine's business: the protocol passes short text through.
    assert P.parse_request({**base, "move": "zz"}).move == "zz"


def test_since() -> None:
    assert P.parse_request({**VALID["sync"], "since": 0}).since == 0
    assert parse_code({**VALID["sync"], "since": -1}) == "bad_message"
    assert P.parse_request({**VALID["watch"], "since": 9}).since == 9
    assert parse_code({**VALID["watch"], "since": -1}) == "bad_message"


@pytest.mark.parametrize("limit", [1, 20, 100])
def test_live_limit_in_bounds(limit: int) -> None:
    assert P.parse_request({**VALID["races.live"], "limit": limit}).limit == limit


@pytest.mark.parametrize("limit", [-1, 0, 101, 1000])
def test_live_limit_out_of_bounds(limit: int) -> None:
    assert parse_code({**VALID["races.live"], "limit": limit}) == "bad_message"


def test_live_cursor_may_be_nil() -> None:
    assert P.parse_request({**VALID["races.live"], "before": None}).before is None


def test_leaderboard_bounds() -> None:
    base = VALID["leaderboard"]
    for ok in ({"limit": 1}, {"limit": 100}, {"offset": 0}, {"offset": 10**6},
               {"date": None}, {"date": "2026-01-31"}):
        req = P.parse_request({**base, **ok})
        for name, value in ok.items():
            assert getattr(req, name) == value
    for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"date": "29-11-2026"},
                {"date": "2026-1-1"}, {"date": "today"}, {"date": ""}):
        assert parse_code({**base, **bad}) == "bad_message", bad


def test_profile_names() -> None:
    assert P.parse_request({"t": "profile"}).name is None
    assert P.parse_request({"t": "profile", "name": "bob_2"}).name == "bob_2"
    for bad in ("b", "-bob", "bob smith", "a" * 21):
        assert parse_code({"t": "profile", "name": bad}) == "bad_name", bad


def test_requests_are_immutable() -> None:
    req = P.parse_request(dict(VALID["move"]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.seq = 5  # type: ignore[misc]


def test_constructing_a_request_directly_validates_too() -> None:
    with pytest.raises(ProtocolError):
        P.CreateRace(variant="unlimited", seats=1)
    with pytest.raises(ProtocolError):
        P.MakeMove(race="BAD", seq=0, move="sw")


# ----------------------------------------------------------------------------- replies, errors


def test_reply_echoes_the_request_id() -> None:
    assert P.reply(5, "pong", server_time=1) == {"t": "pong", "server_time": 1, "re": 5}
    assert P.reply("a", "pong", server_time=1)["re"] == "a"
    assert "re" not in P.reply(None, "pong", server_time=1)
    assert P.reply(0, "pong", server_time=1)["re"] == 0


def test_error_shape() -> None:
    msg = P.error(3, "stale_seq", "your game has 4 moves", seq=4)
    assert msg == {"t": "error", "code": "stale_seq", "reason": "your game has 4 moves",
                   "seq": 4, "re": 3}
    assert P.decode(P.encode(msg)) == msg
    assert "re" not in P.error(None, "rate_limited", "slow down")


@pytest.mark.parametrize("code", P.ERROR_CODES)
def test_every_known_code_makes_an_error(code: str) -> None:
    assert P.error(1, code, "why")["code"] == code
    assert ProtocolError(code, "why").code == code


@pytest.mark.parametrize("code", ["nope", "", "BAD_MESSAGE", "bad message", "error"])
def test_unknown_codes_are_refused(code: str) -> None:
    with pytest.raises((AssertionError, ValueError)):
        P.error(1, code, "why")
    with pytest.raises((AssertionError, ValueError)):
        ProtocolError(code, "why")


def test_error_codes_are_stable_identifiers() -> None:
    assert len(set(P.ERROR_CODES)) == len(P.ERROR_CODES)
    for code in P.ERROR_CODES:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code), code
    # The codes the issue names must exist.
    for code in ("bad_message", "unknown_type", "not_authenticated", "not_your_game",
                 "illegal_move", "stale_seq", "race_full", "race_not_found", "rate_limited",
                 "too_large", "unsupported_version"):
        assert code in P.ERROR_CODES


def test_protocol_error_carries_extra_fields() -> None:
    exc = ProtocolError("illegal_move", "that card does not go on f1", detail="does_not_fit")
    assert str(exc) == exc.reason == "that card does not go on f1"
    assert P.error(9, exc.code, exc.reason, **exc.extra)["detail"] == "does_not_fit"


def test_racer_events_lose_spectator_only_fields() -> None:
    event = {"k": "progress", "player": "p", "home": 3, "moves": 4, "elapsed": 10,
             "move": "t1f1", "delta": {"home": 3}, "at": 1, "v": 8}
    seen = P.racer_event(event)
    assert seen == {"k": "progress", "player": "p", "home": 3, "moves": 4, "elapsed": 10,
                    "at": 1, "v": 8}
    assert "move" in event and "delta" in event  # the original is untouched
    plain = {"k": "join", "player": "p", "name": "bob", "v": 1}
    assert P.racer_event(plain) == plain
    assert sorted(P.SPECTATOR_ONLY) == ["boards", "delta", "move", "reveal"]


# ----------------------------------------------------------------------------- the document


def _doc() -> str:
    assert DOC.exists(), "docs/protocol.md is the contract; it must exist"
    return DOC.read_text(encoding="utf-8")


def test_doc_lists_every_error_code() -> None:
    text = _doc()
    missing = [c for c in P.ERROR_CODES if f"`{c}`" not in text]
    assert not missing, f"error codes not in docs/protocol.md: {missing}"


def test_doc_lists_every_request_type_and_field() -> None:
    text = _doc()
    missing = [t for t in P.request_types() if f"`{t}`" not in text]
    assert not missing, f"request types not in docs/protocol.md: {missing}"
    for kind, cls in P.request_types().items():
        head = re.search(rf"^#+ .*`{re.escape(kind)}`", text, re.MULTILINE)
        assert head, f"docs/protocol.md has no heading for `{kind}`"
        for f in dataclasses.fields(cls):
            assert f"`{f.name}`" in text, f"field {kind}.{f.name} not in docs/protocol.md"


def test_doc_states_the_limits_and_version() -> None:
    text = _doc()
    assert f"{P.MAX_FRAME}" in text or f"{P.MAX_FRAME // 1024} KiB" in text
    assert f'"v": {P.PROTOCOL_VERSION}' in text
    for name in P.SPECTATOR_ONLY:
        assert f"`{name}`" in text


def test_remembered_race_ids_are_only_valid_ones_and_bounded(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    from solrace.shared.protocol import requests as R

    monkeypatch.setattr(R, "_RACES_OK", set())
    monkeypatch.setattr(R, "_RACES_OK_CAP", 3)
    for _ in range(2):  # the second time from the remembered set: the same answers
        for race in ("abcdefgh", "0123456789abcdef", "zzzzzzzz9"):
            assert P.parse_request({"t": "resign", "race": race}).race == race
        for bad in ("ABCDEFGH", "short", "abcdefgh\n", "a" * 33):
            with pytest.raises(ProtocolError) as info:
                P.parse_request({"t": "resign", "race": bad})
            assert info.value.code == "race_not_found"
    assert R._RACES_OK.issubset({"abcdefgh", "0123456789abcdef", "zzzzzzzz9"})
    assert len(R._RACES_OK) <= 3


def _reference_parse(msg: dict[str, Any]) -> P.Request:
    """parse_request as it was written first: the type checks, then the dataclass's own
    ``__init__`` with keyword arguments (which sets the defaults and runs ``__post_init__``)."""
    from solrace.shared.protocol import messages as M

    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "missing type field 't'")
    cls = M._REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown request type {kind!r}")
    kwargs: dict[str, Any] = {}
    for name, ok, required, *_ in M._fields(cls):
        if name in msg:
            if not ok(msg[name]):
                raise ProtocolError("bad_message", f"{kind}: field {name!r} has the wrong type")
            kwargs[name] = msg[name]
        elif required:
            raise ProtocolError("bad_message", f"{kind}: missing field {name!r}")
    if len(msg) != len(kwargs) + 1:
        extra = set(msg) - set(kwargs) - {"t"}
        raise ProtocolError("bad_message", f"{kind}: unknown field {sorted(map(repr, extra))[0]}")
    return cls(**kwargs)


def _outcome(parse: Any, msg: dict[str, Any]) -> Any:
    try:
        req = parse(dict(msg))
    except ProtocolError as exc:
        return ("error", exc.code, exc.reason, exc.extra)
    return ("ok", type(req), dataclasses.asdict(req))


_field_values = st.none() | st.booleans() | st.integers(-3, 2**53 + 3) | st.sampled_from(
    ["", "abcdefgh", "0123456789abcdef", "ABCDEFGH", "t3f1", "w", "x" * 70, "KJ2345", "2026-02-30",
     "2026-01-31", "solrace-cli 0.1", "alice", "unlimited"]) | st.text(max_size=20) | st.lists(
    st.integers(0, 60), max_size=3) | st.dictionaries(st.sampled_from(["draw", "redeals"]),
                                                      st.sampled_from(["1", "3", "x"]), max_size=2)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(P.request_types())), data=st.data())
def test_parse_request_builds_what_the_dataclass_would(kind: str, data: st.DataObject) -> None:
    """Every request type, with fields present, missing, of the wrong type, out of range or
    unknown: the same request (or the same error) as the dataclass's own construction."""
    cls = P.request_types()[kind]
    names = [f.name for f in dataclasses.fields(cls)]
    chosen = data.draw(st.lists(st.sampled_from([*names, "bogus"]), unique=True))
    base = VALID.get(kind, {"t": kind})
    msg: dict[str, Any] = {"t": kind}
    for name in chosen:
        use_valid = name in base and data.draw(st.booleans())
        msg[name] = base[name] if use_valid else data.draw(_field_values)
    assert _outcome(P.parse_request, msg) == _outcome(_reference_parse, msg)
    assert _outcome(P.parse_request, {**base}) == _outcome(_reference_parse, {**base})


_move_values = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
    [0, 612, 2**53 - 1, 2**53, -1, "", "t3f1", " t3f1 ", "t3f1" + " " * 14, "t3f1" * 5,
     "0123456789abcdef", "abcdefgh", "ABCDEFGH", "x" * 64, "x" * 65, 1.5, b"t3f1", [1], {}])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_move_fast_path_builds_what_the_dataclass_would(data: st.DataObject) -> None:
    """``move`` maps near the common shape (each field valid, of another type, out of range,
    missing, or an unknown one added): the fast path (``messages._move``) or the general one
    gives the same request or the same error as the dataclass's own construction."""
    base = {"t": "move", "id": 17, "race": "0123456789abcdef", "seq": 612, "move": "t3f1",
            "auto": False}
    msg: dict[str, Any] = {"t": "move"}
    for name in data.draw(st.permutations(["id", "race", "seq", "move", "auto", "bogus", b"id"])):
        how = data.draw(st.sampled_from(["valid", "valid", "other", "absent"]))
        if how == "valid" and name in base:
            msg[name] = base[name]
        elif how != "absent":
            msg[name] = data.draw(_move_values)
    assert _outcome(P.parse_request, msg) == _outcome(_reference_parse, msg)


def test_the_common_move_frame_takes_the_fast_path() -> None:
    from solrace.shared.protocol import messages as M

    P.parse_request({"t": "resign", "race": "0123456789abcdef"})  # the race id checked once
    for msg in ({"t": "move", "id": 17, "race": "0123456789abcdef", "seq": 612, "move": "t3f1"},
                {"t": "move", "race": "0123456789abcdef", "seq": 0, "move": "w", "auto": True},
                {"t": "move", "id": None, "race": "0123456789abcdef", "seq": 3, "move": "s"},
                {"t": "move", "id": "x" * 64, "race": "0123456789abcdef", "seq": 3,
                 "move": "t3"}):
        fast = M._move(dict(msg))
        assert fast is not None and fast == _reference_parse(dict(msg))
        assert type(fast) is P.MakeMove and fast.auto is msg.get("auto", False)
    for msg in ({"t": "move", "id": True, "race": "0123456789abcdef", "seq": 1, "move": "w"},
                {"t": "move", "race": "0123456789abcdef", "seq": -1, "move": "w"},
                {"t": "move", "race": "notaraceid!", "seq": 1, "move": "w"},
                {"t": "move", "race": "0123456789abcdef", "seq": 1, "move": "w", "x": 1},
                {"t": "move", "race": "0123456789abcdef", "seq": 1, "move": "w" * 17}):
        assert M._move(dict(msg)) is None  # the general path answers these


class _Kind(enum.IntEnum):
    A = 3


class _Text(str):
    pass


class _Pair(NamedTuple):
    a: Any
    b: Any


_leaves = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False)
           | st.text(max_size=8) | st.binary(max_size=8) | st.sampled_from(list(_Kind))
           | st.text(max_size=8).map(_Text) | st.binary(max_size=4).map(bytearray))
_values = st.recursive(_leaves, lambda inner: (
    st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple)
    | st.builds(_Pair, inner, inner) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4).map(collections.OrderedDict)),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(message=st.dictionaries(st.text(max_size=6), _values, max_size=5))
def test_encode_packs_exactly_what_packb_packs(message: dict[str, Any]) -> None:
    """The strict Packer of ``encode`` (with its ``default``) writes the bytes of
    ``msgpack.packb(..., use_bin_type=True)``, also for tuples, named tuples, enums and
    subclasses of str, dict, bytearray."""
    assert P.encode(message) == msgpack.packb(message, use_bin_type=True)


def test_encode_refuses_what_packb_refuses() -> None:
    for bad in (object(), {1, 2}, complex(1, 2)):
        with pytest.raises(TypeError) as ours:
            P.encode({"x": bad})
        with pytest.raises(TypeError) as theirs:
            msgpack.packb({"x": bad}, use_bin_type=True)
        assert str(ours.value) == str(theirs.value)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.sampled_from(["k", "player", "move", "delta", "reveal", "boards", "v",
                                      "home", "at"]), unique=True),
       ordered=st.booleans())
def test_racer_event_keeps_the_other_keys_in_order(keys: list[str], ordered: bool) -> None:
    event: dict[str, Any] = dict.fromkeys(keys, 1)
    if ordered:
        event = collections.OrderedDict(event)
    before = list(event.items())
    seen = P.racer_event(event)
    assert list(seen.items()) == [(k, v) for k, v in before if k not in P.SPECTATOR_ONLY]
    assert list(event.items()) == before  # the original is untouched
    if P.SPECTATOR_ONLY.isdisjoint(keys):
        assert seen is event  # nothing to remove: no copy
