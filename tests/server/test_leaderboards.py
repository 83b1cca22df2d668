"""Leaderboards, all-time stats and ratings: ordering, paging, exactly-once writes.

The ranking rule is restated here as a tuple (``documented_key``), the way
``docs/leaderboards.md`` words it, and every order the server produces is checked against it —
in memory (``rank_key``), in Redis (lexicographic zset order) and end to end with real games
finishing at once on several server processes. Ratings are checked against a Glicko-2 update
computed in the test from the standings, and must be stored exactly once per race.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path
from typing import Any

import harness
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.client import cli
from solrace.client.library import Client, ClientError
from solrace.server.game.daily import rank_key
from solrace.server.game.results import parse_rating, rating_text
from solrace.server.store import Keys
from solrace.shared import protocol as P
from solrace.shared.ratings import Rating, update
from test_daily import (  # the daily tests' helpers: stored dailies, the winning line
    FAST,
    WIN_SEED,
    WIN_VARIANT,
    daily_start,
    end_of,
    eventually,
    open_store,
    play,
    redis_today,
    store_daily,
    winning_line,
)

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)


def documented_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """docs/leaderboards.md: winners first by time, then fewer moves, then earlier finish; the
    others by more cards home, earlier last progress (none: last), more moves, shorter time,
    earlier finish; then player id."""
    if row["result"] == "won":
        return (0, row["time"], row["moves"], row["finished_at"], row["player"])
    progress = row.get("progress_at")
    progress = float("inf") if progress is None else progress
    return (1, -row["home"], progress, -row["moves"], row["time"], row["finished_at"],
            row["player"])


def entry(player: str, result: str, time: int, moves: int, home: int, finished_at: int,
          name: str | None = None, progress_at: int | None = None) -> dict[str, Any]:
    return {"player": player, "name": name or f"n{player[:6]}", "result": result, "time": time,
            "moves": moves, "home": home, "finished_at": finished_at, "race": "r" + player,
            "progress_at": progress_at}


def pid() -> str:
    return secrets.token_hex(8)


# ----------------------------------------------------------------------------- ordering


rows_strategy = st.lists(
    st.builds(
        entry,
        player=st.text("0123456789abcdef", min_size=16, max_size=16),
        result=st.sampled_from(["won", "lost", "resigned", "timeout"]),
        time=st.integers(0, 3_600_000),
        moves=st.integers(0, 3000),
        home=st.integers(0, 208),
        finished_at=st.integers(1_700_000_000_000, 1_700_000_000_000 + 86_400_000),
        progress_at=st.none() | st.integers(0, 3_600_000),
    ),
    max_size=30,
    unique_by=lambda r: r["player"],
)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_rank_key_sorts_in_the_documented_order(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        if r["result"] == "won":
            r["home"] = 52
    assert sorted(rows, key=rank_key) == sorted(rows, key=documented_key)


def test_ties_are_broken_by_finish_then_player() -> None:
    a, b, c, d = "a" * 16, "b" * 16, "c" * 16, "d" * 16
    rows = [
        entry(d, "won", 90_000, 120, 52, 5_000),
        entry(c, "won", 90_000, 120, 52, 4_000),  # same time and moves: earlier finish first
        entry(b, "won", 90_000, 119, 52, 9_000),  # same time, fewer moves
        entry(a, "won", 90_000, 120, 52, 5_000),  # identical to d: player id decides
        entry(a[:15] + "0", "lost", 10_000, 50, 30, 1_000),
        entry(b[:15] + "0", "resigned", 10_000, 50, 30, 1_000),  # identical but the id
        entry(c[:15] + "0", "timeout", 3_600_000, 90, 30, 1_000),  # more moves beats time
        entry(d[:15] + "0", "lost", 1_000, 5, 31, 1_000),  # more home beats everything
        entry(a[:15] + "1", "resigned", 2_000, 0, 30, 1_000),  # did nothing: last of the 30s
        entry(b[:15] + "1", "lost", 9_000, 70, 30, 1_000, progress_at=8_000),  # home first
    ]
    order = [r["player"] for r in sorted(rows, key=rank_key)]
    assert order == [b, c, a, d, d[:15] + "0", b[:15] + "1", c[:15] + "0", a[:15] + "0",
                     b[:15] + "0", a[:15] + "1"]


async def test_redis_keeps_the_documented_order(redis_url: str) -> None:
    rows = [entry(pid(), "won", t, m, 52, f) for t, m, f in
            [(90_000, 120, 7), (90_000, 120, 3), (80_000, 200, 9), (90_000, 119, 8)]]
    rows += [entry(pid(), "lost", 5_000, m, h, 1) for h, m in [(40, 9), (40, 8), (41, 100),
                                                              (0, 0)]]
    rows += [entry(pid(), "timeout", 3_600_000, 8, 40, 2)]
    async with open_store(redis_url) as store:
        for r in rows:
            assert await store.record_daily("2031-05-05", "unlimited", r["player"],
                                            rank_key(r), r)
        got = await store.leaderboard_range("2031-05-05", "unlimited", 0, -1)
        assert [g["player"] for g in got] == [r["player"]
                                              for r in sorted(rows, key=documented_key)]
        assert [g["rank"] for g in got] == list(range(1, len(rows) + 1))
        for g in got:
            assert "key" not in g
        assert await store.leaderboard_size("2031-05-05", "unlimited") == len(rows)
        assert await store.leaderboard_range("2031-05-05", "sixes-and-sevens", 0, -1) == []
        ttl = await store.redis.ttl(Keys.leaderboard("2031-05-05", "unlimited"))
        assert 30 * 86400 < ttl <= 40 * 86400  # kept at least 30 days


async def test_a_duplicate_leaderboard_write_changes_nothing(redis_url: str) -> None:
    me = pid()
    first = entry(me, "lost", 60_000, 80, 20, 100)
    better = entry(me, "won", 30_000, 60, 52, 50)
    async with open_store(redis_url) as store:
        assert await store.record_daily("2031-05-06", "unlimited", me, rank_key(first), first)
        before = await store.leaderboard_range("2031-05-06", "unlimited", 0, -1)
        assert not await store.record_daily("2031-05-06", "unlimited", me, rank_key(better),
                                            better)
        assert not await store.record_daily("2031-05-06", "unlimited", me, rank_key(first),
                                            first)
        assert await store.leaderboard_range("2031-05-06", "unlimited", 0, -1) == before
        assert await store.leaderboard_size("2031-05-06", "unlimited") == 1


# ----------------------------------------------------------------------------- paging


async def fill_board(redis_url: str, day: str, rows: list[dict[str, Any]]) -> None:
    async with open_store(redis_url) as store:
        for r in rows:
            await store.record_daily(day, WIN_VARIANT, r["player"], rank_key(r), r)


async def test_top_n_pages_own_rank_and_around_me(redis_url: str) -> None:
    async with (
        harness.running_server(redis_url) as server,
        harness.accounts(harness.ws_url(server), "nora", "otto") as (nora, otto),
    ):
        assert server.ctx is not None
        day = await redis_today(server.ctx.store)
        assert nora.player is not None
        rows = [entry(pid(), "won", 60_000 + 1000 * i, 100, 52, i) for i in range(24)]
        rows.append(entry(nora.player, "won", 72_500, 100, 52, 1, name="nora"))  # 14th
        await fill_board(redis_url, day, rows)
        expected = [r["player"] for r in sorted(rows, key=documented_key)]

        top = await nora.request("leaderboard", variant=WIN_VARIANT, limit=5)
        assert top["date"] == day and top["total"] == 25 and top["offset"] == 0
        assert [r["player"] for r in top["rows"]] == expected[:5]
        assert [r["rank"] for r in top["rows"]] == [1, 2, 3, 4, 5]
        assert top["my_rank"] is None  # only computed with around_me
        page = await nora.request("leaderboard", variant=WIN_VARIANT, offset=20, limit=10)
        assert [r["player"] for r in page["rows"]] == expected[20:]
        assert page["rows"][0]["rank"] == 21

        mine = await nora.request("leaderboard", variant=WIN_VARIANT, limit=5, around_me=True)
        assert mine["my_rank"] == 14 == expected.index(nora.player) + 1
        assert mine["offset"] == 11 and [r["rank"] for r in mine["rows"]] == [12, 13, 14, 15, 16]
        me = mine["rows"][2]
        assert me["player"] == nora.player and me["name"] == "nora" and me["time"] == 72_500

        # without an entry, around_me is an ordinary page and says so
        theirs = await otto.request("leaderboard", variant=WIN_VARIANT, limit=3, offset=4,
                                    around_me=True)
        assert theirs["my_rank"] is None and theirs["offset"] == 4
        assert [r["player"] for r in theirs["rows"]] == expected[4:7]

        old = await nora.request("leaderboard", variant=WIN_VARIANT, date="2020-02-02")
        assert old["total"] == 0 and old["rows"] == [] and old["date"] == "2020-02-02"
        for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"date": "yesterday"},
                    {"date": "2026-1-1"}):
            with pytest.raises(ClientError) as err:
                await nora.request("leaderboard", variant=WIN_VARIANT, **bad)
            assert err.value.code == "bad_message", bad
        with pytest.raises(ClientError) as err:
            await nora.request("leaderboard", variant="klondike")
        assert err.value.code == "bad_option"


# ----------------------------------------------------------------------------- writes


def test_no_request_carries_a_score() -> None:
    """The protocol has no way to hand the server a result: no request type is a submission
    and no request field is a result."""
    result_fields = {"score", "time", "elapsed", "moves", "home", "result", "rank",
                     "finished_at", "won", "rating", "stats", "standings", "rows", "points"}
    for kind, cls in P.request_types().items():
        assert not any(w in kind for w in ("score", "submit", "result", "record", "rating")), kind
        names = {f for f in cls.__dataclass_fields__ if not f.startswith("_")}
        assert not names & result_fields, (kind, names & result_fields)


async def test_a_client_cannot_write_the_leaderboard(redis_url: str) -> None:
    day = await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        raw = await harness.RawConnection.open(harness.ws_url(server))
        try:
            await raw.hello("pat")
            for kind, fields in (
                ("leaderboard.submit", {"variant": WIN_VARIANT, "time": 1}),
                ("score", {"variant": WIN_VARIANT, "time": 1}),
                ("leaderboard", {"variant": WIN_VARIANT, "rows": [{"time": 1}]}),
                ("leaderboard", {"variant": WIN_VARIANT, "time": 1, "result": "won"}),
                ("daily.start", {"variant": WIN_VARIANT, "result": "won"}),
            ):
                reply = await raw.request(kind, **fields)
                assert reply["t"] == "error" and reply["code"] in ("unknown_type", "bad_message")
            board = await raw.request("leaderboard", variant=WIN_VARIANT)
            assert board["total"] == 0
        finally:
            await raw.close()
        async with harness.accounts(harness.ws_url(server), "quin") as (c,):
            race, _ = await daily_start(c)
            with pytest.raises(ClientError):  # an illegal move is refused, not scored
                await c.move(race["race"], "t1f1")
            ack = await play(c, race["race"], winning_line())
            end = await end_of(c, race["race"])
            board = await eventually(
                lambda: c.request("leaderboard", variant=WIN_VARIANT, date=day),
                lambda b: b["total"])
            (row,) = board["rows"]
            (standing,) = end["standings"]
            # what is on the board is what the server measured, nothing else
            assert (row["result"], row["time"], row["moves"], row["home"]) == (
                "won", standing["elapsed"], len(winning_line()), 52)
            assert row["time"] == ack["elapsed"]


async def test_finishes_on_several_processes_at_once_each_counted_once(
    redis_url: str, tmp_path: Path
) -> None:
    await store_daily(redis_url)
    line = winning_line()
    procs = [harness.ServerProcess(redis_url, tmp_path / n, "--daily-prepare", "-1", "--rate",
                                   "1000", "--burst", "1000", name=n) for n in ("p1", "p2")]
    await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
    clients: list[Client] = []
    try:
        async with harness.running_server(redis_url, process_id="p0", **FAST) as local:
            urls = [harness.ws_url(local), procs[0].url, procs[1].url]
            for i in range(9):
                c = harness.AccountClient(urls[i % 3], name=f"racer{i}")
                await c.connect()
                clients.append(c)
            races = [(await daily_start(c))[0] for c in clients]
            # two winners; the others make 0..6 moves (some equal) and resign at the same time
            plan = [len(line), len(line), 0, 3, 3, 6, 6, 1, 0]

            async def finish(c: Client, race: dict[str, Any], moves: int) -> None:
                await play(c, race["race"], line[:moves])
                if moves < len(line):
                    await c.request("resign", race=race["race"])

            await asyncio.gather(*(finish(c, r, n) for c, r, n in zip(clients, races, plan)))
            ends = [await end_of(c, r["race"]) for c, r in zip(clients, races)]
            expected = []
            for race, end in zip(races, ends):
                (s,) = end["standings"]
                expected.append({"player": s["player"], "result": s["result"],
                                 "time": s["elapsed"], "moves": s["moves"], "home": s["home"],
                                 "finished_at": race["started_at"] + s["elapsed"]})
            board = await eventually(
                lambda: clients[0].request("leaderboard", variant=WIN_VARIANT, limit=100),
                lambda b: b["total"] == 9)
            got = board["rows"]
            assert board["total"] == 9 and len({r["player"] for r in got}) == 9
            assert [r["player"] for r in got] == [
                r["player"] for r in sorted(expected, key=documented_key)]
            for r in got:
                mine = next(e for e in expected if e["player"] == r["player"])
                assert {k: r[k] for k in mine} == mine
            assert [r["result"] for r in got[:2]] == ["won", "won"]

            ctx = local.ctx
            assert ctx is not None
            store = ctx.store

            async def every_stats() -> list[dict[str, str]]:
                return [await store.stats(c.player or "") for c in clients]

            stats = await eventually(every_stats, lambda ss: all(
                f"{WIN_VARIANT}:dailies" in s for s in ss))
            assert [s[f"{WIN_VARIANT}:dailies"] for s in stats] == ["1"] * 9
            assert [s.get(f"{WIN_VARIANT}:wins") for s in stats] == ["1", "1"] + [None] * 7

            # replays: ending a race again, or re-running its finish hook, counts nothing
            for race in races:
                assert await ctx.races.try_finish(race["race"])
            rec = await store.read_race(races[0]["race"])
            assert rec is not None
            info = await ctx.races.info(races[0]["race"])
            await ctx.daily.on_finished(info, rec, ends[0]["standings"])
            assert [await store.stats(c.player or "") for c in clients] == stats
            again = await clients[0].request("leaderboard", variant=WIN_VARIANT, limit=100)
            assert again["rows"] == got
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                await c.close()
        for p in procs:
            p.terminate()


# ----------------------------------------------------------------------------- ratings


def expected_ratings(before: list[Rating], ranks: list[int]) -> list[Rating]:
    """Each racer's Glicko-2 update over pairwise games against every other racer."""
    out = []
    for i, me in enumerate(before):
        games = [(other, 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5)
                 for j, other in enumerate(before) if j != i]
        out.append(update(me, games))
    return out


async def test_rated_race_standings_show_ratings_stored_once(redis_url: str) -> None:
    async with (
        harness.running_server(redis_url, **FAST) as server,
        harness.running_server(redis_url, process_id="other") as other,
    ):
        url = harness.ws_url(server)
        cs: list[Client] = []
        try:
            for name in ("rita", "sam", "tess"):
                c = harness.AccountClient(url, name=name)
                await c.connect()
                cs.append(c)
            assert server.ctx is not None and other.ctx is not None
            store = server.ctx.store
            pids = [str(c.player) for c in cs]
            assert await store.set_rating(pids[0], "unlimited", None, "1700.000,80.000,0.059000,12")
            assert await store.set_rating(pids[2], "unlimited", None, "1450.000,200.000,0.060000,3")
            race = await cs[0].create_race("unlimited", seats=3, rated=True)
            for c in cs[1:]:
                await c.join(code=race["code"])
            for c in cs:
                await c.ready(race["race"])
            for c in cs:
                await c.wait_running(race["race"])
            secrets_ = await harness.race_info(redis_url, race["race"])
            tess = harness.Racer(cs[2], race["race"], secrets_.game())
            await tess.play(4)  # different from the others, so the order is not the seats'
            for c in cs:
                await c.request("resign", race=race["race"])
            end = await end_of(cs[0], race["race"])
            stored = await eventually(  # every update landed (the first player had one)
                lambda: store.ratings(pids, "unlimited"),
                lambda texts: None not in texts
                and [parse_rating(t)[1] for t in texts] == [13, 1, 4])
            rows = {r["player"]: r for r in end["standings"]}
            before = [parse_rating(t)[0] for t in ("1700.000,80.000,0.059000,12", None,
                                                   "1450.000,200.000,0.060000,3")]
            ranks = [rows[p]["rank"] for p in pids]
            want = expected_ratings(before, ranks)
            for p, old, new, text, games in zip(pids, before, want, stored, (13, 1, 4)):
                shown = rows[p]["rating"]
                assert shown == {"before": round(old.rating), "after": round(new.rating),
                                 "rd": round(new.rd), "provisional": new.rd > 110}
                got, played = parse_rating(text)
                assert played == games
                assert got.rating == pytest.approx(new.rating, abs=0.001)
                assert got.rd == pytest.approx(new.rd, abs=0.001)
                assert got.volatility == pytest.approx(new.volatility, abs=1e-6)
            assert rating_text(parse_rating(stored[0])[0], 13) == stored[0]

            # exactly once: ending it again on another process changes nothing
            assert await other.ctx.races.try_finish(race["race"])
            assert await store.ratings(pids, "unlimited") == stored
            profile = await cs[1].request("profile", name="rita")
            assert profile["ratings"]["unlimited"] == {
                "rating": round(want[0].rating), "rd": round(want[0].rd),
                "volatility": round(want[0].volatility, 6), "games": 13,
                "provisional": want[0].rd > 110}
            sam = (await cs[1].request("profile"))["ratings"]["unlimited"]
            assert sam["provisional"] and sam["games"] == 1
        finally:
            for c in cs:
                await c.close()


async def test_two_rated_races_ending_together_lose_no_rating_update(redis_url: str) -> None:
    """Rita ends two rated races at the same moment (say on two processes): both updates were
    computed from her old rating before either was stored. Compare-and-set makes the second
    one apply its results to the rating the first stored — nothing is lost."""
    from solrace.server.game.races import RaceInfo
    from solrace.server.game.results import Results

    class Hooks:  # the two lists Results registers on
        def __init__(self) -> None:
            self.annotators: list[Any] = []
            self.on_finished: list[Any] = []

    rita, sam, tess = (f"p{secrets.token_hex(6)}" for _ in range(3))
    texts = {rita: "1500.000,200.000,0.060000,5", sam: "1400.000,30.000,0.060000,40",
             tess: "1550.000,100.000,0.060000,8"}
    async with open_store(redis_url) as store:
        for pid, text in texts.items():
            assert await store.set_rating(pid, "unlimited", None, text)
        # two processes' Results, one race each
        one, two = Results(store, Hooks()), Results(store, Hooks())  # type: ignore[arg-type]

        def info(rid: str) -> RaceInfo:
            return RaceInfo(rid, "unlimited", {}, 1, 2, 600, True, "ABCDEF", rita)

        a = [{"player": rita, "rank": 1, "result": "resigned", "elapsed": 1},
             {"player": sam, "rank": 2, "result": "resigned", "elapsed": 1}]
        b = [{"player": tess, "rank": 1, "result": "resigned", "elapsed": 1},
             {"player": rita, "rank": 2, "result": "resigned", "elapsed": 1}]
        await one.annotate(info("race-a"), a)
        await two.annotate(info("race-b"), b)
        await one.on_finished(info("race-a"), None, a)  # type: ignore[arg-type]
        await two.on_finished(info("race-b"), None, b)  # type: ignore[arg-type]

        old = {pid: parse_rating(t)[0] for pid, t in texts.items()}
        after_a = update(old[rita], [(old[sam], 1.0)])
        after_b = update(after_a, [(old[tess], 0.0)])  # race b's results, on top of race a
        got, games = parse_rating((await store.ratings([rita], "unlimited"))[0])
        assert games == 7
        assert got.rating == pytest.approx(after_b.rating, abs=0.001)
        assert got.rd == pytest.approx(after_b.rd, abs=0.001)
        # the others each played one race, computed from the pre-race ratings
        for pid, opp, score in ((sam, rita, 0.0), (tess, rita, 1.0)):
            got, games = parse_rating((await store.ratings([pid], "unlimited"))[0])
            want = update(old[pid], [(old[opp], score)])
            assert got.rating == pytest.approx(want.rating, abs=0.001)
            assert games == parse_rating(texts[pid])[1] + 1
        # what race b's standings showed was computed before race a's update landed
        assert b[1]["rating"]["before"] == 1500


async def test_unrated_and_daily_games_leave_ratings_alone(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        cs, race = await harness.start_race(harness.ws_url(server), redis_url, "unlimited",
                                            ["uma", "vic"], cls=harness.AccountClient)
        try:
            for c in cs:
                await c.request("resign", race=race["race"])
            await end_of(cs[0], race["race"])
            daily, _ = await daily_start(cs[0])
            await cs[0].request("resign", race=daily["race"])
            end = await end_of(cs[0], daily["race"])
            assert "rating" not in end["standings"][0]
            # the daily's entry is written after the finish hook that would rate it
            await eventually(lambda: cs[0].request("leaderboard", variant=WIN_VARIANT),
                             lambda b: b["total"])
            for c in cs:
                assert (await c.request("profile"))["ratings"] == {}
        finally:
            await harness.close_all(cs)


# ----------------------------------------------------------------------------- the CLI


@pytest.fixture
def inline(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> Any:
    """Run a CLI command in this process (its own event loop on a worker thread)."""
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)

    async def run(*argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(cli.main, list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


async def test_solrace_leaderboard_and_profile(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url) as server:
        base = ("--server", harness.ws_url(server), "--name", "wade", "--no-color")
        code, out, err = await inline("profile", "--json", *base)
        assert code == 0, err
        me = json.loads(out)
        assert me["name"] == "wade" and me["ratings"] == {} and me["stats"] == {}
        assert server.ctx is not None
        store = server.ctx.store
        day = await redis_today(store)
        rows = [entry(pid(), "won", 60_000 + 1000 * i, 100, 52, i) for i in range(7)]
        rows.append(entry(me["player"], "lost", 9_000, 40, 12, 1, name="wade"))
        await fill_board(redis_url, day, rows)

        code, out, err = await inline("leaderboard", "unlimited", "--limit", "3", *base)
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0] == f"daily leaderboard · Unlimited · {day} · 8 entries"
        assert "vs par" in lines[1] and lines[2].split()[5] == "1:00.0"  # no par: blank

        await store_daily(redis_url, "unlimited", WIN_SEED, day=day, par=94)
        code, out, err = await inline("leaderboard", "unlimited", "--limit", "3", *base)
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0] == f"daily leaderboard · Unlimited · {day} · 8 entries · par 94 moves"
        assert lines[2].split()[5] == "+6"  # a winner's 100 moves against par 94
        assert "rows 1–3 of 8 · next page: --offset 3" in out
        assert "order: winners first, by time, then fewer moves" in out
        shown = [ln.split()[1] for ln in lines[2:5]]
        assert shown == [r["name"] for r in sorted(rows, key=documented_key)[:3]]
        assert "1:00.0" in lines[2]  # 60 000 ms

        code, out, err = await inline("leaderboard", "unlimited", "--around-me", "--limit", "3",
                                      *base)
        assert code == 0, err
        assert "8  wade (you)  lost" in out and "your rank: 8" in out

        code, out, err = await inline("leaderboard", "unlimited", "--offset", "3", "--limit",
                                      "2", "--json", *base)
        board = json.loads(out)
        assert [r["rank"] for r in board["rows"]] == [4, 5] and board["total"] == 8
        assert board["par"] == 94

        code, out, err = await inline("leaderboard", "unlimited", "--date", "2020-01-01", *base)
        assert code == 0 and "nobody has finished this daily yet" in out
        code, _, err = await inline("leaderboard", "unlimited", "--date", "soon", *base)
        assert code == 2 and "not a date" in err

        assert await store.set_rating(me["player"], "unlimited", None, "1612.400,95.000,0.060000,9")
        assert await store.set_rating(me["player"], "sixes-and-sevens", None,
                                      "1500.000,300.000,0.060000,1")
        await store.win_stats(me["player"], "unlimited", True, True, 83_400)
        await store.daily_stats(me["player"], "unlimited", "2020-01-01", "2019-12-31", True)
        await store.daily_stats(me["player"], "unlimited", "2020-01-02", "2020-01-01", True)
        await store.daily_stats(me["player"], "sixes-and-sevens", day, "", True)
        code, out, err = await inline("profile", "wade", *base)
        assert code == 0, err
        ratings, stats = out.split("all time:")
        rated = {ln.split()[0]: ln.split()[1:] for ln in ratings.splitlines()
                 if ln.startswith("  ") and "rating" not in ln}
        assert rated == {"Sixes": ["and", "Sevens", "1500", "300", "1", "provisional"],
                         "Unlimited": ["1612", "95", "9"]}
        (unlimited,) = [ln.split() for ln in stats.splitlines() if ln.startswith("  Unlimited")]
        # races, wins, best time, races won, dailies, daily wins, streak, best streak, last
        # won daily: the 2020 streak of 2 is long broken, so it shows 0 and keeps its best
        assert unlimited[1:] == ["0", "1", "1:23.4", "1", "2", "2", "0", "2", "2020-01-02"]
        (sixes,) = [ln.split() for ln in stats.splitlines() if ln.startswith("  Sixes")]
        assert sixes[-3:] == ["1", "1", day]  # today's streak is alive
        code, out, err = await inline("profile", "nobody", *base)
        assert code == 1 and "player_not_found" in err

