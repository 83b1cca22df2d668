"""The protocol's second encoding: one JSON object per websocket text frame (sans-I/O).

A browser cannot decode msgpack without a third-party library, and solrace never copies
third-party code into its repository; JSON it reads natively. A client chooses this encoding by
offering the websocket subprotocol ``solrace.json.v1`` (``docs/protocol.md`` section 2). The
messages are the same maps as in msgpack, with the same limits and the same errors; the one
difference is that every field named ``seed`` travels as a **decimal string**, because seeds
are unsigned 64-bit integers and a JavaScript number loses precision above 2^53. A request may
send ``seed`` either as a string of decimal digits or as a number.
"""

from __future__ import annotations

import json
import re
from typing import Any

from solrace.shared.protocol import MAX_FRAME, ProtocolError

MAX_STR = 4096  # UTF-8 bytes, as msgpack's max_str_len
MAX_ARRAY = 1024
MAX_MAP = 64
MAX_DEPTH = 1024
_DIGITS = re.compile(r"^[0-9]{1,20}$")


def _seeds_as_text(value: Any) -> Any:
    """A copy of ``value`` with every integer under a ``seed`` key turned into a string."""
    if isinstance(value, dict):
        return {
            k: (str(v) if k == "seed" and isinstance(v, int) and not isinstance(v, bool)
                else _seeds_as_text(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_seeds_as_text(v) for v in value]
    return value


def encode_json(message: dict[str, Any]) -> str:
    """One server frame as JSON text (seeds as decimal strings).

    Most frames (every ack and progress event) have no ``seed`` field: they are dumped as they
    are, and only a text that has a ``"seed":`` somewhere (every map with a ``seed`` key shows
    it) is dumped again from the converted copy. Either way the text is that of the copy."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    if '"seed":' not in text:
        return text
    return json.dumps(_seeds_as_text(message), separators=(",", ":"), ensure_ascii=False)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_limits(value: Any, depth: int = 1) -> None:
    if depth > MAX_DEPTH:
        raise ValueError("nested too deep")
    if isinstance(value, str):
        if len(value) > MAX_STR // 4 and len(value.encode()) > MAX_STR:
            raise ValueError("string too long")
    elif isinstance(value, list):
        if len(value) > MAX_ARRAY:
            raise ValueError("array too long")
        for item in value:
            _check_limits(item, depth + 1)
    elif isinstance(value, dict):
        if len(value) > MAX_MAP:
            raise ValueError("map too large")
        for k, item in value.items():
            _check_limits(k, depth + 1)
            _check_limits(item, depth + 1)


def decode_json(data: bytes | str) -> dict[str, Any]:
    """A text frame to a map, with the msgpack limits; :class:`ProtocolError` otherwise."""
    if not isinstance(data, str):
        raise ProtocolError("bad_message", "frames must be JSON text on solrace.json.v1, "
                                           "not binary")
    size = len(data) if len(data) * 4 <= MAX_FRAME else len(data.encode())
    if size > MAX_FRAME:
        raise ProtocolError("too_large", f"frame of {size} bytes exceeds {MAX_FRAME}")
    try:
        obj = json.loads(data, parse_constant=_reject_constant)
        _check_limits(obj)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("bad_message", f"not a JSON frame ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise ProtocolError("bad_message", "a frame must be a JSON object")
    seed = obj.get("seed")
    if isinstance(seed, str) and _DIGITS.fullmatch(seed):
        obj["seed"] = int(seed)
    return obj
