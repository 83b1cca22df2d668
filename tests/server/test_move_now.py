"""The move path's synchronous start (docs/performance.md, "The synchronous move start"): a
move on an idle connection is validated, applied and submitted from the frame callback
(``Connection._now`` → ``MovePath.move_now``) and acknowledged from the store's reply
(``Connection._moved``); when the game's lock is held the general path waits for it; a refused
move is answered in order, before the frames that followed it; the game lock is taken without
a coroutine only when ``acquire()`` would not wait."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from harness import (
    Racer,
    RawConnection,
    choose_move,
    close_all,
    race_info,
    running_server,
    start_race,
    ws_url,
)
from solrace.server.game.racemodel import GameLock
from solrace.server.game.racemoves import MovePath
from solrace.server.session.connection import Connection
from solrace.shared import protocol as P


def spy(monkeypatch: pytest.MonkeyPatch, cls: type, name: str, calls: list[str]) -> None:
    original = getattr(cls, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, wrapped)


async def test_idle_moves_start_synchronously_and_ack_after_the_store(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    spy(monkeypatch, Connection, "_moved", calls)
    spy(monkeypatch, MovePath, "move", calls)
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs, summary = await start_race(url, redis_url, "unlimited", ["alice", "bob"])
        try:
            rid = summary["race"]
            secrets = await race_info(redis_url, rid)
            alice = Racer(cs[0], rid, secrets.game())
            await alice.step()  # the first move fills the game cache (the general path)
            # the fast path needs the session held under a live notice token (a PING answered
            # after the player's channel was subscribed): on a loaded machine that can take a
            # few PING rounds, and until then every request asks Redis on the worker's path
            hub, pid = server.ctx.hub, cs[0].player or ""
            for _ in range(100):
                if hub.notices_live(pid) is not None:
                    break
                await asyncio.sleep(0.05)
            assert hub.notices_live(pid) is not None
            await alice.step()  # verified in Redis under that token: held from now on
            calls.clear()
            made = await alice.play(6)
            assert made == 6
            assert calls == ["_moved"] * made, calls  # not the general path, move()
            # the lock held (as a hint or a bot would): the general path waits for it
            lock = server.ctx.races.games[(rid, cs[0].player or "")].lock
            await lock.acquire()
            calls.clear()
            step = asyncio.create_task(alice.step())
            await asyncio.sleep(0.2)
            assert not step.done()
            lock.release()
            assert await asyncio.wait_for(step, 10) is not None
            assert calls == ["move"], calls
        finally:
            await close_all(cs)


async def test_pipelined_moves_and_refusals_are_answered_in_order(redis_url: str) -> None:
    """A duplicate (answered in the frame callback), a move in flight with a ping queued behind
    it, a move the general path refuses, another ping: the replies come in that order."""
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs, summary = await start_race(url, redis_url, "unlimited", ["alice", "bob"])
        raw = None
        try:
            rid = summary["race"]
            secrets = await race_info(redis_url, rid)
            alice = Racer(cs[0], rid, secrets.game())
            await alice.step()
            first = alice.game.moves[0].text()
            move = choose_move(alice.game)
            assert move is not None
            raw = await RawConnection.open(url)
            welcome = await raw.request("hello", v=P.PROTOCOL_VERSION, token=cs[0].token)
            assert welcome["t"] == "welcome", welcome
            frames = [
                {"t": "move", "id": 1, "race": rid, "seq": 0, "move": first},
                {"t": "move", "id": 2, "race": rid, "seq": 1, "move": move.text()},
                {"t": "ping", "id": 3},
                {"t": "move", "id": 4, "race": rid, "seq": 99, "move": move.text()},
                {"t": "ping", "id": 5},
            ]
            for f in frames:
                await raw.send(P.encode(f))
            replies = []
            while len(replies) < len(frames):
                msg = await raw.recv()
                if "re" in msg:
                    replies.append(msg)
            assert [m["re"] for m in replies] == [1, 2, 3, 4, 5], replies
            assert replies[0]["t"] == "ack" and replies[0]["duplicate"] is True, replies[0]
            assert replies[1]["t"] == "ack" and replies[1]["seq"] == 2, replies[1]
            assert replies[2]["t"] == "pong", replies[2]
            assert (replies[3]["t"], replies[3]["code"], replies[3]["seq"]) == \
                ("error", "stale_seq", 2), replies[3]
            assert replies[4]["t"] == "pong", replies[4]
        finally:
            if raw is not None:
                await raw.close()
            await close_all(cs)


async def test_the_game_lock_is_taken_at_once_only_when_acquire_would_not_wait() -> None:
    lock = GameLock()
    assert lock.try_acquire() and lock.locked()
    assert not lock.try_acquire()
    waiter = asyncio.create_task(lock.acquire())
    await asyncio.sleep(0)  # queued
    lock.release()  # free, but its turn is the waiter's
    assert not lock.try_acquire()
    assert await waiter
    assert not lock.try_acquire()
    lock.release()
    assert lock.try_acquire()
    lock.release()
    assert not lock.locked()


@pytest.mark.parametrize("req_id", [7, "abc", None])
def test_ack_reply_is_the_reply_websockets_would_carry(req_id: Any) -> None:
    """``ack_reply`` builds what ``P.reply(..., "ack", race=..., **ack)`` builds through the
    ``ack`` declaration: the same keys in the same order, so the same bytes in both codecs."""
    from solrace.server.session.fastmoves import ack_reply
    from solrace.shared.jsonwire import encode_json

    ack = {"seq": 12, "delta": {"moves": 12, "piles": {"t3": [0, ["7H"]]}}, "v": 40,
           "elapsed": 5000, "status": "playing", "move": "t3f1", "moves": ["t3f1"],
           "legal": ["s", "t1f1"]}
    want = P.reply(req_id, "ack", race="r1", **ack)
    got = ack_reply(req_id, "r1", ack)
    assert list(got.items()) == list(want.items())
    assert P.encode(got) == P.encode(want)
    assert encode_json(got) == encode_json(want)


def test_a_parsed_move_is_pushed_and_recognised_as_a_duplicate() -> None:
    """``move_now`` takes the move parsed once (``full_move``): ``_apply`` pushes it as it is,
    and a duplicate of an earlier move is recognised from it as from its text."""
    from solrace.server.game.moveservice import full_move
    from solrace.server.game.movetypes import Applied
    from solrace.server.game.racemodel import GameEntry, Player
    from solrace.shared.engine import Game
    from solrace.shared.views import view_of

    # full notation goes to the single-move path; a source only (or nonsense) to a batch
    full = {"t3f1": True, "sw": True, "t1t2:3": True, "f1t9": True, "s": False, "t3": False,
            "w1t2": False, "t1:3t2": False, "zz": False, "": False}
    assert {text: full_move(text) is not None for text in full} == full
    game = Game("unlimited", {"draw": "1"}, 5)
    e = GameEntry(game, view_of(game).wire())
    path, me = MovePath(), Player("p1", "alice")
    texts = []
    for _ in range(3):
        text = choose_move(game)
        assert text is not None
        move = full_move(text.text())
        assert move is not None
        applied = path._apply(e, me, len(game.moves), move)
        assert isinstance(applied, Applied) and applied.move == text.text()
        e.view = applied.view
        texts.append(text.text())
    dup = path._apply(e, me, 1, full_move(texts[1]))
    assert type(dup) is dict and dup["duplicate"] is True and dup["move"] == texts[1]
    with pytest.raises(P.ProtocolError):  # another move at an old seq: stale, as from text
        path._apply(e, me, 1, full_move(texts[2] if texts[2] != texts[1] else "s"))
