"""End to end: playing by pointing through a real server, Redis and clients — source-only
moves, ``auto``, ``autoplay``, ``finish`` and ``legal``; one sequence check per batch, exact
duplicates, and a server SIGKILLed between a batch's append and its ack.

Every ack is checked against an engine replica running :mod:`solrace.shared.pointing` itself,
and every board against ``view_of`` of that replica."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from harness import (
    VARIANT_NAMES,
    RawConnection,
    RecordingClient,
    choose_move,
    clients,
    close_all,
    race_info,
    read_log,
    running_server,
    start_race,
    two_processes,
    ws_url,
)
from solrace.client.library import ClientError
from solrace.shared import protocol as P
from solrace.shared.engine import Game
from solrace.shared.errors import CannotFinish, NoLegalMove
from solrace.shared.pointing import autoplay, finish, legal_texts, plan, resolve_source
from solrace.shared.solver import Budget, Outcome, solve
from solrace.shared.views import view_of

pytestmark = pytest.mark.timeout(90)
FAST = {"rate": 1000.0, "burst": 1000}  # whole games played back to back

# (variant, options, seed): deals the solver wins within a small budget (tests/shared)
WON = {
    "sixes-and-sevens": ({}, 1),
    "seven-by-five": ({"cells": "5", "empty_fill": "any"}, 8),
    "double-aces-and-kings": ({}, 30),
    "unlimited": ({}, 5),
    "forty-and-eight": ({}, 10),
}


def matches(c: Any, rid: str, game: Game) -> None:
    board = c.boards[rid]
    assert board["seq"] == len(game.moves)
    assert board["view"] == view_of(game).wire(), "client board != engine replica"
    assert board["legal"] == legal_texts(game)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
async def test_pile_moves_then_finish_win_a_practice_game(redis_url: str, variant: str) -> None:
    """A solver-won deal played by clicks wherever a click makes the solver's move, full
    notation elsewhere, then ``finish`` as soon as the rest plays itself: won, every ack and
    board equal to the replica's, the log equal to the replica's moves."""
    options, seed = WON[variant]
    line = solve((variant, options, seed), Budget(nodes=4_000))
    assert line.outcome is Outcome.WON
    async with running_server(redis_url, **FAST) as server, clients(
            ws_url(server), "alice", cls=RecordingClient) as (alice,):
        rid = (await alice.practice_start(variant, options, seed=seed))["race"]
        await alice.wait_running(rid)
        game = Game(variant, options, seed)
        assert alice.boards[rid]["legal"] == legal_texts(game)  # the start event carries it
        clicks = finished = 0
        end: dict[str, Any] = {}
        for text in line.move_texts():
            try:
                finish(game.copy())
            except CannotFinish:
                pass
            else:
                seq = len(game.moves)
                expected = finish(game)
                ack = await alice.finish(rid)
                assert ack["moves"] == [m.text() for m in expected] and ack["status"] == "won"
                finished = len(expected)
                end = await alice.next_event(t="event", race=rid, k="end")
                dup = await alice.finish(rid, seq=seq)  # its ack lost: recognised, once
                assert dup["duplicate"] and dup["moves"] == ack["moves"], dup
                break
            click = _click(game, text)
            ack = await alice.move(rid, click or text)
            game.push(text)
            clicks += click is not None
            assert ack["move"] == text and ack["moves"] == [text], (click, ack)
            matches(alice, rid, game)
        assert finished and clicks, (finished, clicks)
        matches(alice, rid, game)
        assert await read_log(redis_url, rid, alice.player) == [m.text() for m in game.moves]
        assert end["standings"][0]["result"] == "won"
        assert end["standings"][0]["moves"] == len(game.moves)


def _click(game: Game, text: str) -> str | None:
    src = text.split(":")[0]
    src = src[:1] if src[0] in "sw" else src[: 2 + src[2:3].isdigit()]
    for click in (src, src + text[len(text.split(":")[0]):]):
        try:
            if resolve_source(game, click).text() == text:
                return click
        except Exception:  # no click makes it: full notation then
            continue
    return None


async def test_auto_moves_reach_rivals_as_one_progress_event_each(redis_url: str) -> None:
    """Moves with ``auto`` in a two-racer race: the ack carries the batch (its moves, one
    combined delta, the last version, ``legal``); the rival sees one progress event per move
    with honest move counts, and versions stay gap-free for both."""
    async with running_server(redis_url, **FAST) as server:
        # The deal is random (racers never choose seeds) and about 1 deal in 75 gives no
        # autoplay within the loop below: every check holds on any deal, and a new race is
        # dealt until one showed a batch.
        for attempt in range(6):
            if await _auto_race(server, redis_url, attempt):
                return
        raise AssertionError("no move was followed by autoplay in six deals")


async def _auto_race(server: Any, redis_url: str, attempt: int) -> bool:
    """One race of :func:`test_auto_moves_reach_rivals_as_one_progress_event_each`; True when
    some move was followed by autoplay."""
    cs, summary = await start_race(ws_url(server), redis_url, "unlimited",
                                   [f"alice{attempt}", f"bob{attempt}"],
                                   cls=RecordingClient)
    alice, bob = cs
    rid = summary["race"]
    try:
        game = (await race_info(redis_url, rid)).game()
        seen = {game.position_text()}
        batches = 0
        acks = []
        for _ in range(80):
            move = _batching_move(game, seen) or choose_move(game, seen)
            if move is None:
                break
            expect = plan(game.copy(), "move", move.text(), auto=True)
            ack = await alice.move(rid, move.text(), auto=True)
            acks.append(ack)
            assert ack["moves"] == [m.text() for m in expect], ack
            assert ack["move"] == move.text()
            for m in expect:
                game.push(m)
            seen.add(game.position_text())
            matches(alice, rid, game)
            batches += len(expect) > 1
            if ack["status"] != "playing":
                break
        await bob.next_event(t="event", race=rid, k="progress", player=alice.player,
                             moves=len(game.moves))
        counts = [e["moves"] for e in bob.raw_events
                  if e.get("k") == "progress" and e["player"] == alice.player]
        assert counts == list(range(1, len(game.moves) + 1))
        assert not [e for e in alice.raw_events if e.get("k") == "progress"
                    and e["player"] == alice.player], "own progress events sent back"
        seen_v = bob.versions_seen(rid)
        assert seen_v == list(range(seen_v[0], seen_v[-1] + 1)), "a gap for the rival"
        covered = set(alice.versions_seen(rid))
        for ack in acks:  # an ack stands for the versions of its moves' events
            covered |= set(range(ack["v"] - len(ack["moves"]) + 1, ack["v"] + 1))
        assert sorted(covered) == list(range(min(covered), max(covered) + 1)), covered
        assert await read_log(redis_url, rid, alice.player) == [m.text() for m in game.moves]
        return batches > 0
    finally:
        await close_all(cs)


def _batching_move(game: Game, seen: set[str]) -> Any:
    """A legal move after which autoplay has something to do (to a new position), if any."""
    for m in game.legal_moves():
        trial = game.copy()
        if len(plan(trial, "move", m.text(), auto=True)) > 1 and \
                trial.position_text() not in seen:
            return m
    return None


async def test_autoplay_legal_errors_stale_and_duplicates(redis_url: str) -> None:
    async with running_server(redis_url, **FAST) as server, clients(
            ws_url(server), "alice", cls=RecordingClient) as (alice,):
        rid = (await alice.practice_start("unlimited", {}, seed=5))["race"]
        await alice.wait_running(rid)
        game = Game("unlimited", {}, 5)
        assert await alice.legal(rid) == legal_texts(game)
        # play until autoplay has something to do
        seen = {game.position_text()}
        while not autoplay(game.copy()):
            move = choose_move(game, seen)
            assert move is not None
            await alice.move(rid, move.text())
            game.push(move)
            seen.add(game.position_text())
        seq = len(game.moves)
        ack = await alice.autoplay(rid)
        expected = autoplay(game)
        assert ack["moves"] == [m.text() for m in expected] and ack["seq"] == len(game.moves)
        matches(alice, rid, game)
        # a retry of the same request at the old seq (its ack lost): recognised, not re-applied
        dup = await alice.autoplay(rid, seq=seq)
        assert dup["duplicate"] and dup["moves"] == ack["moves"]
        assert dup["view"] == view_of(game).wire() and dup["legal"] == legal_texts(game)
        # another request at that old seq is stale, with the current count
        with pytest.raises(ClientError) as info:
            await alice.finish(rid, seq=seq)
        assert info.value.code == "stale_seq" and info.value.extra["seq"] == len(game.moves)
        with pytest.raises(ClientError) as info:
            await alice.autoplay(rid, seq=len(game.moves) + 3)
        assert info.value.code == "stale_seq"
        # nothing safe left: an empty ack, nothing appended
        empty = await alice.autoplay(rid)
        assert empty["moves"] == [] and empty["seq"] == len(game.moves)
        # refusals with their codes; nothing applied
        with pytest.raises(ClientError) as info:
            await alice.finish(rid)
        assert info.value.code == "cannot_finish" and "face-down" in info.value.reason
        blocked = next(p for p in game.layout.ids if p != "s" and _refused(game, p))
        with pytest.raises(ClientError) as info:
            await alice.move(rid, blocked)
        assert info.value.code == "no_legal_move" and info.value.reason
        with pytest.raises(ClientError) as info:
            await alice.move(rid, "c1")
        assert info.value.code == "illegal_move"
        with pytest.raises(ClientError) as info:
            await alice.move(rid, "x9")
        assert info.value.code == "bad_notation"
        assert await read_log(redis_url, rid, alice.player) == [m.text() for m in game.moves]
        # a source-only move, then its retry: the duplicate names the move it made
        click = next(p for p in game.layout.ids if not _refused(game, p))
        seq = len(game.moves)
        made = resolve_source(game, click)
        ack = await alice.move(rid, click)
        game.push(made)
        assert ack["move"] == made.text()
        dup = await alice.move(rid, click, seq=seq)
        assert dup["duplicate"] and dup["move"] == made.text()
        assert await read_log(redis_url, rid, alice.player) == [m.text() for m in game.moves]


def _refused(game: Game, pile: str) -> bool:
    try:
        resolve_source(game, pile)
    except NoLegalMove:
        return True
    return False


def _finishable(game: Game) -> bool:
    try:
        finish(game.copy())
    except CannotFinish:
        return False
    return True


@pytest.mark.parametrize("kind", ["autoplay", "finish"])
async def test_sigkill_between_a_batch_append_and_its_ack(redis_url: str, tmp_path: Path,
                                                          kind: str) -> None:
    """A batch reaches the log, then the process dies before the client reads the ack. On
    another process (which never held the game) the client retries the same request at the
    same seq: a duplicate naming the same moves; nothing lost, nothing doubled; the game goes
    on (autoplay) or the race is over and still recognises the retry (finish)."""
    line = solve(("unlimited", {}, 5), Budget(nodes=4_000)).move_texts()
    async with two_processes(redis_url, tmp_path, "--rate", "1000", "--burst", "1000") as (one,
                                                                                  two):
        alice = RecordingClient(one.url, name="alice")
        await alice.connect()
        try:
            rid = (await alice.practice_start("unlimited", {}, seed=5))["race"]
            await alice.wait_running(rid)
            game = Game("unlimited", {}, 5)
            ready = (lambda g: bool(autoplay(g.copy()))) if kind == "autoplay" else _finishable
            while not ready(game):
                text = line[len(game.moves)]
                await alice.move(rid, text)
                game.push(text)
            seq = len(game.moves)
            expected = [m.text() for m in plan(game.copy(), kind)]
            # a raw socket of the same session sends the batch and never reads its ack
            raw = await RawConnection.open(one.url)
            welcome = await raw.request("hello", v=P.PROTOCOL_VERSION, token=alice.token)
            assert welcome["t"] == "welcome", welcome
            await raw.send(P.encode({"t": kind, "id": 99, "race": rid, "seq": seq}))
            for _ in range(500):  # until the batch is durable
                if len(await read_log(redis_url, rid, alice.player)) > seq:
                    break
                await asyncio.sleep(0.01)
            await asyncio.to_thread(one.kill)
            log = await read_log(redis_url, rid, alice.player)
            assert log == [m.text() for m in game.moves] + expected, "not all or none"

            alice.url = two.url
            await alice.reconnect()
            await alice.sync(rid)
            retry = alice.autoplay if kind == "autoplay" else alice.finish
            dup = await retry(rid, seq=seq)
            assert dup["duplicate"] and dup["moves"] == expected
            for text in expected:
                game.push(text)
            matches(alice, rid, game)
            assert await read_log(redis_url, rid, alice.player) == log, "a move was doubled"
            if kind == "finish":
                assert game.status.value == "won"
                with pytest.raises(ClientError) as info:
                    await alice.finish(rid)
                assert info.value.code == "cannot_finish" and "over" in info.value.reason
            else:
                move = choose_move(game, {game.position_text()})
                assert move is not None
                ack = await alice.move(rid, move.text())
                game.push(move)
                assert ack["seq"] == len(game.moves)
                assert await read_log(redis_url, rid, alice.player) == [
                    m.text() for m in game.moves]
            assert two.running, two.log()
        finally:
            await close_all([alice])


async def test_a_second_connection_sees_each_batch_move_and_is_stale(redis_url: str) -> None:
    """Two connections of one player: a batch on one reaches the other as one progress event
    per move (only the batch's own connection skips them), and the other's next request with
    its old seq is refused as stale, then succeeds after a sync."""
    async with running_server(redis_url, **FAST) as server, clients(
            ws_url(server), "alice", cls=RecordingClient) as (alice,):
        rid = (await alice.practice_start("unlimited", {}, seed=5))["race"]
        await alice.wait_running(rid)
        other = RecordingClient(ws_url(server), token=alice.token)
        await other.connect()
        try:
            await other.sync(rid)
            game = Game("unlimited", {}, 5)
            seen = {game.position_text()}
            while not autoplay(game.copy()):
                move = choose_move(game, seen)
                assert move is not None
                await alice.move(rid, move.text())
                game.push(move)
                seen.add(game.position_text())
            before = len(game.moves)
            ack = await alice.autoplay(rid)
            for text in ack["moves"]:
                game.push(text)
            await other.next_event(t="event", race=rid, k="progress", moves=len(game.moves))
            counts = [e["moves"] for e in other.raw_events if e.get("k") == "progress"]
            assert counts[-len(ack["moves"]):] == list(range(before + 1, len(game.moves) + 1))
            assert other.boards[rid]["seq"] == 0  # its board never moved
            with pytest.raises(ClientError) as info:
                await other.finish(rid)
            assert info.value.code == "stale_seq" and info.value.extra["seq"] == len(game.moves)
            if before == 0:  # autoplay at move 0 again: exactly the batch made, a duplicate
                assert (await other.autoplay(rid, seq=0))["duplicate"]
            await other.sync(rid)
            matches(other, rid, game)
            click = next(p for p in game.layout.ids if not _refused(game, p))
            made = resolve_source(game, click)
            reply = await other.move(rid, click)
            game.push(made)
            assert reply["move"] == made.text() and reply["seq"] == len(game.moves)
            assert await read_log(redis_url, rid, alice.player) == [m.text() for m in game.moves]
        finally:
            await other.close()
