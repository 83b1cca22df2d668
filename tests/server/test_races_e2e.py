"""End to end: real clients drive whole races through an in-process server and a real Redis.

Each racer is mirrored by an engine replica built from the seed peeked in Redis, so every ack,
every delta and every standing is checked against an independent computation rather than
against numbers written into the test.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
from typing import Any

import pytest
from harness import (
    VARIANT_NAMES,
    Racer,
    RecordingClient,
    check_standings,
    choose_move,
    clients,
    close_all,
    race_info,
    read_log,
    redis_hset,
    running_server,
    start_race,
    ws_url,
)
from solrace.client.library import Client, ClientError
from solrace.server.store import Keys
from solrace.shared.engine import Game
from solrace.shared.views import view_of

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)

#: the tests also run on uvloop (the server's default loop), on both backends: a reconnect,
#: the sequence rules, two processes (conftest.py; the rest on the stock loop, for time)
BOTH_LOOPS = pytest.mark.loops("asyncio", "uvloop")
pytestmark = pytest.mark.timeout(60)


def events_of(c: RecordingClient, race: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in c.raw_events if e.get("race") == race and e.get("k") == kind]


def assert_no_board_leak(c: RecordingClient, race: str) -> None:
    """Racers see rivals' progress, never their moves or boards."""
    for e in c.raw_events:
        if e.get("race") == race and e.get("k") == "progress":
            assert not {"move", "delta", "view", "piles"} & set(e), f"board leaked: {e}"


def assert_consecutive(c: RecordingClient, race: str) -> None:
    """Events arrive once each, in order; with the acks (which stand for the mover's own
    progress events) they cover every version."""
    seen = c.versions_seen(race)
    assert seen, "no events at all"
    assert seen == sorted(set(seen)), f"duplicate or out of order: {seen}"
    covered = c.versions_covered(race)
    assert covered == list(range(covered[0], covered[0] + len(covered))), f"gap: {covered}"


@pytest.mark.parametrize("variant", VARIANT_NAMES)
async def test_whole_race_on_each_variant(redis_url: str, variant: str) -> None:
    async with running_server(redis_url) as server, clients(
        ws_url(server), "alice", "bob", "carol", cls=RecordingClient
    ) as (alice, bob, carol):
        summary = await alice.create_race(variant, seats=3)
        rid = summary["race"]
        assert summary["state"] == "lobby" and summary["variant"] == variant
        published = summary["commitment"]
        joined = await bob.join(code=summary["code"].lower())  # codes are case-insensitive
        assert joined["race"] == rid
        await carol.join(code=summary["code"])
        for c in (alice, bob, carol):
            await c.ready(rid)

        countdowns = [await c.next_event(t="event", race=rid, k="countdown") for c in
                      (alice, bob, carol)]
        assert {cd["commitment"] for cd in countdowns} == {published}
        assert {cd["starts_at"] for cd in countdowns} == {countdowns[0]["starts_at"]}
        boards = [copy.deepcopy(await c.wait_running(rid)) for c in (alice, bob, carol)]
        assert boards[0] == boards[1] == boards[2], "racers got different deals"
        start = events_of(alice, rid, "start")[0]
        assert start["started_at"] == countdowns[0]["starts_at"]

        secrets = await race_info(redis_url, rid)
        assert boards[0]["view"] == view_of(secrets.game()).wire()
        ra, rb, rc = (Racer(c, rid, secrets.game()) for c in (alice, bob, carol))

        # Interleave alice's and bob's moves; carol never moves and resigns.
        for _ in range(12):
            for r in (ra, rb):
                if not r.over:
                    await r.step()
        await rc.client.resign(rid)
        if not rb.over:
            await bob.resign(rid)
        await ra.play(25)
        if not ra.over:
            await alice.resign(rid)

        ends = [await c.next_event(t="event", race=rid, k="end") for c in (alice, bob, carol)]
        end = ends[0]
        assert all(e == end for e in ends)
        assert end["reason"] == "done"
        seed = end["seed"]
        assert hashlib.sha256(seed.to_bytes(8, "big")).hexdigest() == published
        replayed = Game(variant, summary["options"], seed)
        assert view_of(replayed).wire() == boards[0]["view"], "the revealed seed is not the deal"

        rows = {row["name"]: row for row in end["standings"]}
        for name, r in (("alice", ra), ("bob", rb), ("carol", rc)):
            assert rows[name]["moves"] == len(r.game.moves), (name, rows[name])
            assert rows[name]["home"] == r.game.cards_home, (
                f"{name}'s standing says {rows[name]['home']} cards home, the game has "
                f"{r.game.cards_home}"
            )
            assert await read_log(redis_url, rid, r.client.player) == [
                m.text() for m in r.game.moves
            ]
        assert rows["carol"]["result"] == "resigned"
        check_standings(end["standings"])

        # Progress of the others reached each racer, without their boards.
        for c in (alice, bob, carol):
            assert_no_board_leak(c, rid)
            assert_consecutive(c, rid)
        bob_progress = [e for e in events_of(alice, rid, "progress") if e["player"] == bob.player]
        assert bob_progress[-1]["moves"] == len(rb.game.moves)


async def test_unmoved_racer_keeps_cards_dealt_home(redis_url: str) -> None:
    """Sixes and Sevens deals 16 cards to the foundations; a racer who resigns at once still
    has them home, in the progress event and in the standings."""
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "sixes-and-sevens",
                                       ["alice", "bob"])
        try:
            rid = summary["race"]
            dealt = (await race_info(redis_url, rid)).game().cards_home
            assert dealt > 0
            await cs[1].resign(rid)
            progress = await cs[0].next_event(t="event", race=rid, k="progress")
            await cs[0].resign(rid)
            end = await cs[0].next_event(t="event", race=rid, k="end")
            assert progress["home"] == dealt, progress
            assert [r["home"] for r in end["standings"]] == [dealt, dealt], end["standings"]
        finally:
            await close_all(cs)


@BOTH_LOOPS
async def test_reconnect_mid_race_loses_and_repeats_nothing(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs, summary = await start_race(url, redis_url, "unlimited", ["alice", "bob"],
                                       cls=RecordingClient)
        alice, bob = cs
        rid = summary["race"]
        try:
            secrets = await race_info(redis_url, rid)
            ra, rb = Racer(alice, rid, secrets.game()), Racer(bob, rid, secrets.game())
            await ra.play(4)
            await rb.play(3)
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            before = alice.versions[rid]
            assert alice.ws is not None
            alice.ws.transport.abort()  # the network drops: no close handshake
            await alice.next_event(t="closed")

            missed = await rb.play(5)  # events alice does not see live
            assert missed > 0
            welcome = await alice.reconnect()
            assert welcome["player"] == alice.player and "token" not in welcome
            assert rid in [r["race"] for r in welcome["races"]]
            ra.board_matches()  # the board the sync sent continues exactly
            assert alice.versions[rid] > before
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            assert await ra.play(4) > 0  # seq continues from the last ack
            await rb.play(2)
            await alice.resign(rid)
            await bob.resign(rid)
            end = await alice.next_event(t="event", race=rid, k="end")
            assert end["reason"] == "done"
            assert_consecutive(alice, rid)
            assert_consecutive(bob, rid)
            # Every version from the first alice saw up to the end arrived exactly once.
            assert alice.versions_seen(rid)[-1] == end["v"] == bob.versions_seen(rid)[-1]
            assert await read_log(redis_url, rid, alice.player) == [
                m.text() for m in ra.game.moves]
        finally:
            await close_all(cs)


async def test_repeated_sync_on_an_attached_connection_repeats_nothing(redis_url: str
                                                                         ) -> None:
    """A client that syncs again while live events are still in flight (its ``since`` lags
    behind what the server already queued) gets each version once; ``since: 0`` still gives
    the history from before the connection was attached."""
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "unlimited", ["alice", "bob"],
                                       cls=RecordingClient)
        alice, bob = cs
        rid = summary["race"]
        try:
            secrets = await race_info(redis_url, rid)
            ra, rb = Racer(alice, rid, secrets.game()), Racer(bob, rid, secrets.game())
            await rb.play(3)
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            # Syncs racing the live stream: the rival moves while alice asks from stale points.
            lagging = [alice.request("sync", race=rid, since=max(0, alice.versions[rid] - k))
                       for k in (3, 2, 1)]
            replies = await asyncio.gather(rb.play(4), *lagging)
            for reply in replies[1:]:
                for ev in reply["events"]:
                    alice._on_event({"t": "event", "race": rid, **ev})
            await ra.play(2)
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            assert_consecutive(alice, rid)

            # Bob joined after alice created the race: what came before his join is history
            # his connection was never sent, and a sync from 0 gives exactly that, once.
            first_live = bob.versions_seen(rid)[0]
            history = await bob.request("sync", race=rid, since=0)
            got = [ev["v"] for ev in history["events"]]
            assert got and got == list(range(1, got[-1] + 1)), got
            assert got[-1] < first_live, (got, first_live)
            assert not history["more"]
            assert history["board"]["seq"] == len(rb.game.moves)
        finally:
            await close_all(cs)


async def test_illegal_move_changes_nothing(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "unlimited", ["alice", "bob"])
        alice = cs[0]
        rid = summary["race"]
        try:
            r = Racer(alice, rid, (await race_info(redis_url, rid)).game())
            await r.play(2)
            legal = {m.text() for m in r.game.legal_moves()}
            illegal = next(f"t{a}t{b}" for a in range(1, 8) for b in range(1, 8)
                           if a != b and f"t{a}t{b}" not in legal)
            with pytest.raises(ClientError) as err:
                await alice.move(rid, illegal)
            assert err.value.code == "illegal_move"
            assert err.value.extra.get("detail"), err.value.extra
            with pytest.raises(ClientError) as err:
                await alice.move(rid, "zz9")
            assert err.value.code == "bad_notation"
            assert alice.boards[rid]["seq"] == r.seq
            assert await read_log(redis_url, rid, alice.player) == [m.text() for m in
                                                                    r.game.moves]
            synced = await alice.sync(rid)
            assert synced["board"]["seq"] == r.seq
            r.board_matches()
            ack = await r.step()  # a legal move with the very same seq is accepted
            assert ack is not None and ack["seq"] == 3
        finally:
            await close_all(cs)


@BOTH_LOOPS
async def test_duplicate_and_stale_sequence_numbers(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "unlimited", ["alice", "bob"])
        alice = cs[0]
        rid = summary["race"]
        try:
            r = Racer(alice, rid, (await race_info(redis_url, rid)).game())
            await r.play(3)
            last = r.game.moves[-1].text()
            dup = await alice.request("move", race=rid, seq=2, move=last)
            assert dup["duplicate"] is True and dup["seq"] == 3
            assert dup["view"] == view_of(r.game).wire()
            # An older move of the log, retried with its own seq, is a duplicate as well.
            first = await alice.request("move", race=rid, seq=0, move=r.game.moves[0].text())
            assert first["duplicate"] is True and first["seq"] == 3
            assert len(await read_log(redis_url, rid, alice.player)) == 3

            # Any text that is not the logged move at that seq: the seq is checked first.
            logged = {m.text() for m in r.game.moves}
            other = next(t for t in ("sw", "t1t2", "t2t3", "t3t4") if t not in logged)
            for seq in (2, 0, 4, 99):
                with pytest.raises(ClientError) as err:
                    await alice.request("move", race=rid, seq=seq, move=other)
                assert err.value.code == "stale_seq"
                assert err.value.extra["seq"] == 3, err.value.extra
            assert len(await read_log(redis_url, rid, alice.player)) == 3
            ack = await r.step()  # the right seq still works
            assert ack is not None and ack["seq"] == 4
        finally:
            await close_all(cs)


async def _race_two_connections(first: Client, second: Client, rid: str, game: Game,
                                redis_url: str) -> None:
    """Both connections of one player send a different move with the same seq at once."""
    moves = [m.text() for m in game.legal_moves() if not m.src.startswith("f")]
    a, b = moves[0], moves[-1]
    seq = len(game.moves)
    results = await asyncio.gather(
        first.request("move", race=rid, seq=seq, move=a),
        second.request("move", race=rid, seq=seq, move=b),
        return_exceptions=True,
    )
    oks = [x for x in results if isinstance(x, dict)]
    errors = [x for x in results if isinstance(x, ClientError)]
    assert len(oks) + len(errors) == 2, results
    if a == b:  # a single legal move: one applies it, the other is told it is a duplicate
        assert sorted(bool(x.get("duplicate")) for x in oks) == [False, True], results
    else:
        assert len(oks) == 1 and len(errors) == 1, f"the game forked or stalled: {results}"
        assert errors[0].code == "stale_seq" and errors[0].extra["seq"] == seq + 1
    winner = a if results[0] is oks[0] else b
    log = await read_log(redis_url, rid, first.player or "")
    assert log == [*[m.text() for m in game.moves], winner]
    game.push(winner)


async def test_two_connections_of_one_player_never_fork(redis_url: str) -> None:
    async with running_server(redis_url) as s1, running_server(redis_url) as s2:
        cs, summary = await start_race(ws_url(s1), redis_url, "unlimited", ["alice", "bob"])
        alice = cs[0]
        rid = summary["race"]
        twin = Client(ws_url(s1), token=alice.token)  # same process
        other = Client(ws_url(s2), token=alice.token)  # another process, same Redis
        try:
            await twin.connect()
            await other.connect()
            assert twin.player == other.player == alice.player
            game = (await race_info(redis_url, rid)).game()
            for _ in range(3):
                await _race_two_connections(alice, twin, rid, game, redis_url)
            for _ in range(3):
                await _race_two_connections(alice, other, rid, game, redis_url)
                await _race_two_connections(other, twin, rid, game, redis_url)
            for c in (alice, twin, other):
                synced = await c.sync(rid)
                assert synced["board"]["seq"] == len(game.moves)
                assert synced["board"]["view"] == view_of(game).wire()
        finally:
            await close_all([twin, other, *cs])


async def test_actions_on_other_players_races(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        async with clients(url, "alice", "bob", "carol", "dave") as (alice, bob, carol, dave):
            lobby = await alice.create_race("unlimited", seats=2)
            rid = lobby["race"]
            for call in (carol.ready(rid), carol.leave(rid), carol.sync(rid)):
                with pytest.raises(ClientError) as err:
                    await call
                assert err.value.code == "not_in_race"
            await bob.join(code=lobby["code"])
            with pytest.raises(ClientError) as err:
                await carol.join(code=lobby["code"])
            assert err.value.code == "race_full"
            with pytest.raises(ClientError) as err:
                await carol.join(race="0123456789abcdef")
            assert err.value.code == "race_not_found"
            with pytest.raises(ClientError) as err:
                await carol.join(code="ZZZZZZ")
            assert err.value.code == "race_not_found"

            await alice.ready(rid)
            await bob.ready(rid)
            await alice.wait_running(rid)
            game = (await race_info(redis_url, rid)).game()
            move = choose_move(game)
            assert move is not None
            with pytest.raises(ClientError) as err:
                await carol.request("move", race=rid, seq=0, move=move.text())
            assert err.value.code in ("not_your_game", "not_in_race")
            with pytest.raises(ClientError) as err:
                await carol.resign(rid)
            assert err.value.code in ("not_your_game", "not_in_race")
            with pytest.raises(ClientError) as err:
                await dave.join(code=lobby["code"])
            assert err.value.code in ("race_started", "race_full", "race_not_found")
            with pytest.raises(ClientError) as err:
                await alice.leave(rid)
            assert err.value.code == "race_started"
            # Nothing of the above touched alice's game.
            assert await read_log(redis_url, rid, alice.player) == []
            await alice.move(rid, move.text())
            assert await read_log(redis_url, rid, alice.player) == [move.text()]


async def test_quick_pairing_starts_a_race_for_both(redis_url: str) -> None:
    async with running_server(redis_url) as server, clients(
        ws_url(server), "alice", "bob", "carol"
    ) as (alice, bob, carol):
        first = await alice.quick("unlimited", {"draw": "3"})
        assert first["t"] == "queued"
        other_queue = await carol.quick("unlimited", {"draw": "1"})  # another queue: no match
        assert other_queue["t"] == "queued"
        with pytest.raises(ClientError) as err:
            await alice.quick("unlimited", {"draw": "3"})
        assert err.value.code == "already_queued"
        second = await bob.quick("unlimited", {"draw": "3"})
        assert second["t"] == "race"
        rid = second["race"]["race"]
        matched = await alice.next_event(t="matched")
        assert matched["race"]["race"] == rid
        assert {r["player"] for r in second["race"]["racers"]} == {alice.player, bob.player}
        assert second["race"]["options"]["draw"] == "3"
        for c in (alice, bob):
            cd = await c.next_event(t="event", race=rid, k="countdown")
            assert cd["commitment"] == second["race"]["commitment"]
        ba, bb = await alice.wait_running(rid), await bob.wait_running(rid)  # no move yet
        assert ba == bb
        assert ba["view"] == view_of((await race_info(redis_url, rid)).game()).wire()
        cancelled = await carol.request("quick.cancel")
        assert cancelled["removed"] is True


async def test_time_limit_ends_the_race_and_ranks_by_cards_home(redis_url: str) -> None:
    """A 30 s race is too long to wait for: the test moves ``ends_at`` into the past in Redis
    (the one clock every process uses); the next move finds the time up and ends the race."""
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "sixes-and-sevens",
                                       ["alice", "bob", "carol"], time_limit=30)
        bob, carol = cs[1], cs[2]
        rid = summary["race"]
        try:
            assert summary["time_limit"] == 30
            secrets = await race_info(redis_url, rid)
            ra, rb, rc = (Racer(c, rid, secrets.game()) for c in cs)
            dealt = ra.game.cards_home
            while rb.game.cards_home < dealt + 1 and len(rb.game.moves) < 40:
                assert await rb.step() is not None
            while ra.game.cards_home < rb.game.cards_home + 2 and len(ra.game.moves) < 80:
                assert await ra.step() is not None
            await rc.play(1)  # carol: one move, and (usually) nothing home
            homes = [r.game.cards_home for r in (ra, rb, rc)]
            assert homes[0] > homes[1], homes

            await redis_hset(redis_url, Keys.race(rid), ends_at=1)
            with pytest.raises(ClientError) as err:
                await ra.step()
            assert err.value.code == "not_running"
            end = await bob.next_event(t="event", race=rid, k="end")
            assert end["reason"] == "time"
            rows = end["standings"]
            check_standings(rows)
            assert all(r["result"] not in ("won", "resigned") for r in rows), rows
            by_player = {r["player"]: r for r in rows}
            for r in (ra, rb, rc):
                assert by_player[r.client.player]["home"] == r.game.cards_home
            assert [r["home"] for r in rows] == sorted(homes, reverse=True)
            with pytest.raises(ClientError) as err:
                await carol.request("move", race=rid, seq=len(rc.game.moves), move="sw")
            assert err.value.code in ("not_running", "race_not_found")
        finally:
            await close_all(cs)


@BOTH_LOOPS
async def test_racers_on_two_processes_see_each_other_and_the_race_ends_once(
    redis_url: str,
) -> None:
    """Alice's socket is on one server process, Bob's on another (sharing Redis): progress
    crosses processes, and although both processes may try to end the race it ends once."""
    async with running_server(redis_url) as s1, running_server(redis_url) as s2:
        alice = RecordingClient(ws_url(s1), name="alice")
        bob = RecordingClient(ws_url(s2), name="bob")
        try:
            await alice.connect()
            await bob.connect()
            lobby = await alice.create_race("double-aces-and-kings")
            rid = lobby["race"]
            await bob.join(code=lobby["code"])
            await bob.ready(rid)
            await alice.ready(rid)
            await alice.wait_running(rid)
            await bob.wait_running(rid)
            secrets = await race_info(redis_url, rid)
            ra, rb = Racer(alice, rid, secrets.game()), Racer(bob, rid, secrets.game())
            await ra.play(5)
            await rb.play(4)
            await bob.next_event(t="event", race=rid, k="progress", player=alice.player,
                                 moves=len(ra.game.moves))
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            await asyncio.gather(alice.resign(rid), bob.resign(rid))
            ends = [await c.next_event(t="event", race=rid, k="end") for c in (alice, bob)]
            assert ends[0] == ends[1]
            await asyncio.sleep(0.2)  # a second end would come right after the first
            for c in (alice, bob):
                assert len(events_of(c, rid, "end")) == 1
                assert_consecutive(c, rid)
        finally:
            await close_all([alice, bob])


async def test_moves_before_the_start_are_refused(redis_url: str) -> None:
    async with running_server(redis_url, countdown=3.0) as server, clients(
        ws_url(server), "alice", "bob"
    ) as (alice, bob):
        lobby = await alice.create_race("unlimited")
        rid = lobby["race"]
        with pytest.raises(ClientError) as err:
            await alice.request("move", race=rid, seq=0, move="sw")
        assert err.value.code == "not_running"
        await bob.join(code=lobby["code"])
        await alice.ready(rid)
        await bob.ready(rid)
        await alice.next_event(t="event", race=rid, k="countdown")
        with pytest.raises(ClientError) as err:
            await alice.request("move", race=rid, seq=0, move="sw")
        assert err.value.code == "not_running"
        assert await read_log(redis_url, rid, alice.player) == []


async def test_leaving_the_lobby(redis_url: str) -> None:
    async with running_server(redis_url) as server, clients(
        ws_url(server), "alice", "bob", "carol"
    ) as (alice, bob, carol):
        lobby = await alice.create_race("unlimited", seats=3)
        rid = lobby["race"]
        await bob.join(code=lobby["code"])
        await carol.join(code=lobby["code"])
        await alice.ready(rid)
        await bob.ready(rid)
        after = await carol.leave(rid)  # the one not ready leaves: the others start
        assert carol.player not in [r["player"] for r in after["racers"]]
        countdown = await alice.next_event(t="event", race=rid, k="countdown")
        assert countdown["racers"] == 2
        await alice.wait_running(rid)
        assert rid not in [r["race"] for r in (await carol.request("races.mine"))["races"]]
