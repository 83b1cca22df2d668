"""The server's per-move path in ``shared/`` (``server/game/racemoves.py`` ``_apply``, ``_acked``)
against a straightforward reference, byte for byte: the legal moves, their texts, the status,
the view and its delta, the ack and the progress event as encoded, and the refusal of every illegal
move with its reason.

The optimised path shares one generation of the legal moves between validation, the status
check and the ack (``Game.legal_triples``), checks the cheap proofs of a status first, and
builds views and texts from tables. The reference here shares nothing and takes no shortcut:

* legal moves: every (source, destination, count) the rules allow by ``Game._check`` — the
  one-pair-at-a-time rule test — listed in the documented order (to foundations by source,
  tableau runs by source then count, single cards onto the tableau, reserve cards into spaces,
  to cells, then draw or redeal; destinations in pile order);
* status: the definition in ``shared/status.py``'s docstring: won, no legal move, the Klondike
  test (over every card the stock and waste simulation brings to the waste top) or the
  reachability search, with no early answer;
* view: ``view_of`` of the whole game, and ``delta`` of two whole views;
* encoding: ``msgpack.packb`` of the same maps.
"""

from __future__ import annotations

import os
import random

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.engine import Game, Status
from solrace.shared.errors import IllegalMove
from solrace.shared.jsonwire import encode_json
from solrace.shared.pointing import legal_texts
from solrace.shared.rules import LostCheck
from solrace.shared.status import REACHABILITY_BUDGET, _makes_progress, _search, waste_reachable
from solrace.shared.views import advance, delta, view_of

CONFIGS = [
    ("sixes-and-sevens", {}),
    ("seven-by-five", {}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}),
    ("double-aces-and-kings", {}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}),
    ("unlimited", {}),
    ("unlimited", {"draw": "3"}),
    ("unlimited", {"foundation_takeback": "no"}),
    ("forty-and-eight", {}),
    ("forty-and-eight", {"foundation_takeback": "yes"}),
]
EXAMPLES = int(os.environ.get("SOLRACE_PROPERTY_EXAMPLES", "40"))


def _passes(game: Game, t: tuple[int, int, int]) -> bool:
    try:
        game._check(*t)
    except IllegalMove:
        return False
    return True


def reference_legal(game: Game) -> list[tuple[int, int, int]]:
    lay = game.layout
    F, T, R, C = list(lay.foundations), list(lay.tableau), list(lay.reserve), list(lay.cells)
    S, W = lay.stock, lay.waste
    waste = [W] if W >= 0 else []
    piles = game.pos.piles
    groups = [
        [(s, f, 1) for s in T + R + C + waste + F for f in F],
        [(s, d, n) for s in T for n in range(1, len(piles[s]) + 1) for d in T],
        [(s, d, 1) for s in waste + C + F for d in T],
        [(s, d, 1) for s in R for d in T],
        [(s, c, 1) for s in T + waste for c in C],
        [(S, W, 1), (W, S, 1)] if S >= 0 else [],
    ]
    return [t for group in groups for t in group if t[0] != t[1] and _passes(game, t)]


def reference_status(game: Game) -> Status:
    if game.resigned:
        return Status.RESIGNED
    if game.cards_home == game.total_cards:
        return Status.WON
    moves = reference_legal(game)
    if not moves:
        return Status.LOST
    if game.rules.lost_check is LostCheck.KLONDIKE:
        F, T = game.layout.foundations, game.layout.tableau
        plays = any(game._fits_foundation(c, f) for c in waste_reachable(game) for f in F) or \
            any(game._fits_tableau(c, t, 1) for c in waste_reachable(game) for t in T)
        return Status.PLAYING if plays or _makes_progress(game, moves) else Status.LOST
    lost = _search(game, REACHABILITY_BUDGET, moves, eager=True) is False
    return Status.LOST if lost else Status.PLAYING


def _ack(seq: int, change: dict, status: str, done: str, legal: list[str]) -> dict:
    return P.reply(7, "ack", race="0123456789abcdef", seq=seq, delta=change, v=seq + 3,
                   elapsed=1000, status=status, move=done, moves=[done], legal=legal)


def _event(game: Game, change: dict, done: str, result: str) -> dict:
    event = {"k": "progress", "player": "p1", "home": game.cards_home,
             "moves": len(game.moves), "move": done, "delta": change}
    if result:
        event["result"] = result
    return event


def _refusal(game: Game, t: tuple[int, int, int]) -> tuple[str, str] | None:
    try:
        game._check(*t)
    except IllegalMove as exc:
        return exc.detail, exc.reason
    return None


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(CONFIGS), st.integers(0, 2**64 - 1), st.integers(0, 2**32),
       st.integers(20, 250))
def test_the_move_path_equals_the_reference(config: tuple, seed: int, rng_seed: int,
                                            length: int) -> None:
    variant, options = config
    game = Game(variant, options, seed)
    ref = Game(variant, options, seed)  # the same moves, nothing shared or cached
    rng = random.Random(rng_seed)
    view = view_of(game).wire()
    ids = game.layout.ids
    size = len(ids)

    def text_of(t: tuple[int, int, int]) -> str:
        return f"{ids[t[0]]}{ids[t[1]]}" + (f":{t[2]}" if t[2] > 1 else "")

    legal = legal_texts(game)
    for _ in range(length):
        expected = reference_legal(ref)
        assert game.legal_triples() == expected
        assert legal == [text_of(t) for t in expected]
        if not expected or reference_status(ref) is not Status.PLAYING:
            break
        # an illegal move is refused with _check's reason, the game unchanged
        for _ in range(3):
            t = (rng.randrange(size), rng.randrange(size), rng.choice((1, 1, 2, 3)))
            if t[0] == t[1] or t in expected:
                continue
            try:
                game.push(text_of(t))
                raised = None
            except IllegalMove as exc:
                raised = exc.detail, exc.reason
            assert raised == _refusal(ref, t)
            assert game.position_text() == ref.position_text()
        text = text_of(rng.choice(expected))
        before = view
        # the server's sequence: push, status, view delta, event, legal texts, ack
        move = game.push(text)
        status = game.status
        view, change = advance(game, before)
        done = move.text()
        result = status.value if status in (Status.WON, Status.LOST) else ""
        event = _event(game, change, done, result)
        legal = legal_texts(game)
        ack = _ack(len(game.moves), change, status.value, done, legal)

        ref.push(text)
        ref_status = reference_status(ref)
        full = view_of(ref).wire()
        ref_change = delta(before, full)
        ref_result = ref_status.value if ref_status in (Status.WON, Status.LOST) else ""
        assert status is ref_status
        assert msgpack.packb(view) == msgpack.packb(full)
        assert msgpack.packb(change) == msgpack.packb(ref_change)
        assert P.encode(event) == msgpack.packb(_event(ref, ref_change, done, ref_result),
                                                use_bin_type=True)
        ref_ack = _ack(len(ref.moves), ref_change, ref_status.value, done,
                       [text_of(t) for t in reference_legal(ref)])
        assert P.encode(ack) == msgpack.packb(ref_ack, use_bin_type=True)
        assert encode_json(ack) == encode_json(ref_ack)
        assert game.position_text() == ref.position_text()
