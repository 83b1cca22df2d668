"""RaceMask (server/fanout/spectate.py): one process's masked forms of a race, shared by its
spectators.

A fake store serves a race's events; the forms must equal a fresh Masker's fold whatever
order spectators ask in (ahead, behind, after a gap), a version after a gap must not be
masked from the wrong state (``None``: the feed then fails closed), and the registry drops a
race's forms with its last holder.
"""

from __future__ import annotations

import asyncio
from typing import Any

from solrace.server.fanout.spectate import Masks, RaceMask, final_boards
from solrace.server.game.races import RaceInfo
from solrace.shared.engine import Game
from solrace.shared.masking import Masker
from solrace.shared.views import advance, view_of


class FakeStore:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.reads = 0

    async def events_since(self, rid: str, since: int, limit: int = 10_000
                           ) -> list[dict[str, Any]]:
        self.reads += 1
        return [dict(e) for e in self.events if e["v"] > since][:limit]


def info(seed: int = 9) -> RaceInfo:
    return RaceInfo(rid="r1", variant="unlimited", options={"draw": "1"}, seed=seed, seats=2,
                    time_limit=600, rated=False, code="ABCDEF", host="a")


def race(seed: int = 9, moves: int = 30) -> list[dict[str, Any]]:
    games = {p: Game("unlimited", {"draw": "1"}, seed) for p in ("a", "b")}
    views = {p: view_of(g).wire() for p, g in games.items()}
    out: list[dict[str, Any]] = [{"k": "join", "player": p} for p in games]
    out.append({"k": "start", "view": view_of(Game("unlimited", {"draw": "1"}, seed)).wire()})
    for i in range(moves):
        p = "ab"[i % 2]
        g = games[p]
        move = g.legal_moves()[-1]
        g.push(move)
        views[p], change = advance(g, views[p])
        out.append({"k": "progress", "player": p, "moves": len(g.moves), "move": move.text(),
                    "delta": change, "home": g.cards_home})
    out.append({"k": "end", "reason": "done", "standings": []})
    for v, ev in enumerate(out, 1):
        ev["v"] = v
    return out


def test_forms_equal_a_fresh_fold_whatever_order_they_are_asked_in() -> None:
    events = race()
    reference = Masker("unlimited", {"draw": "1"}, 9)
    want = [reference.push(e) for e in events]
    store = FakeStore(events)
    mask = RaceMask(info())

    async def go() -> None:
        await mask.ensure(store, "r1", 10, events[:4])  # known events, then the stream
        assert mask.head == 10
        assert mask.form(events[20]) is None  # after a gap: never masked from a stale state
        assert mask.form(events[10]) == want[10]  # the next one folds
        assert mask.form(events[3]) == want[3]  # a behind spectator gets the same form
        await mask.ensure(store, "r1", len(events))
        assert mask.since(0, len(events)) == want
        assert mask.forms[len(events)]["boards"] == await final_boards(store, "r1")

    asyncio.run(go())


def test_concurrent_ensures_fold_each_version_once() -> None:
    events = race()
    store = FakeStore(events)
    mask = RaceMask(info())

    async def go() -> None:
        last = len(events)
        await asyncio.gather(*(mask.ensure(store, "r1", n) for n in (5, last, 12, 30)))
        assert mask.head == last
        assert [f["v"] for f in mask.since(0, last)] == list(range(1, last + 1))
        await mask.ensure(store, "r1", last + 5)  # beyond the race: up to its last version
        assert mask.head == last

    asyncio.run(go())


def test_the_registry_keeps_a_mask_while_someone_holds_it() -> None:
    masks = Masks()
    a = masks.acquire(info())
    assert masks.acquire(info()) is a and len(masks) == 1
    masks.release("r1")
    assert masks.get("r1") is a
    masks.release("r1")
    assert masks.get("r1") is None and len(masks) == 0
    assert masks.acquire(info()) is not a  # a new holder folds afresh
