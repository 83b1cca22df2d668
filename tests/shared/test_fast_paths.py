"""The move path's fast paths give exactly what the general paths give.

* ``views.advance`` of a plain dict view (``_advance_dict``: one copy, five stores) against
  the general code run on the same view behind a read-only mapping, on random games of every
  variant: the same new view, the same delta, keys in the same order;
* ``packed_int`` (C stores when compiled) against msgpack for every width's edges;
* the flat reader's known keys (``wire._known``) decode to the same strings as any others.
"""

from __future__ import annotations

import random
import types
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.engine import Game, Status
from solrace.shared.protocol import frames as M
from solrace.shared.protocol import wire
from solrace.shared.views import advance, view_of

VARIANTS = [("unlimited", {"draw": "1"}), ("unlimited", {"draw": "3"}),
            ("sixes-and-sevens", {}), ("seven-by-five", {}), ("double-aces-and-kings", {}),
            ("forty-and-eight", {})]


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
@pytest.mark.parametrize("seed", range(1, 6))
def test_advance_of_a_dict_view_is_the_general_result(variant: str, options: dict[str, str],
                                                      seed: int) -> None:
    game = Game(variant, options, seed)
    rng = random.Random(seed)
    view = view_of(game).wire()
    for _ in range(300):
        if game.status is not Status.PLAYING:
            break
        legal = game.legal_moves()
        if not legal:
            break
        game.push(rng.choice(legal))
        fast_new, fast_change = advance(game, view)
        slow = types.MappingProxyType({**view, "piles": types.MappingProxyType(view["piles"])})
        slow_new, slow_change = advance(game, slow)
        assert list(fast_new) == list(slow_new) and fast_new == slow_new
        assert list(fast_new["piles"]) == list(slow_new["piles"])
        assert list(fast_change) == list(slow_change) and fast_change == slow_change
        assert list(fast_change.get("piles", {})) == list(slow_change.get("piles", {}))
        assert fast_new == view_of(game).wire()
        assert P.encode(fast_change) == P.encode(slow_change)
        view = fast_new


EDGES = [0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**53 - 1, 2**64 - 1]


@pytest.mark.parametrize("x", EDGES)
def test_packed_int_at_every_width_edge(x: int) -> None:
    assert M.packed_int(x) == msgpack.packb(x, use_bin_type=True)


def test_packed_int_refuses_what_msgpack_refuses() -> None:
    with pytest.raises(OverflowError):
        msgpack.packb(2**64)
    with pytest.raises(OverflowError):
        M.packed_int(2**64)


@given(st.integers(min_value=-(2**63), max_value=2**64 - 1))
def test_packed_int_of_any_int(x: int) -> None:
    assert M.packed_int(x) == msgpack.packb(x, use_bin_type=True)


KEYS = ["t", "id", "race", "seq", "move", "auto", "tt", "ie", "sea", "mova", "racf", "autp",
        "a", "", "moves", "é"]


@given(st.dictionaries(st.sampled_from(KEYS), st.one_of(st.sampled_from(KEYS), st.integers(0, 300)),
                       max_size=8))
def test_known_keys_decode_as_msgpack_decodes_them(msg: dict[str, Any]) -> None:
    data = msgpack.packb(msg, use_bin_type=True)
    got = P.decode(data)
    assert got == msgpack.unpackb(data, raw=False)
    assert list(got) == list(msg)
    flat = wire._flat_map(data)
    assert flat is None or (flat == msg and list(flat) == list(msg))
