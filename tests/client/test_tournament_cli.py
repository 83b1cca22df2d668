"""``solrace tournament``: create a private arena, join it by its invite code, play a deal
(resigned here) on the play terminal, and read the standings — real subprocesses against a
real server."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # tests/server/harness.py: the shared server test harness
from test_account_cli import PW, run_cli

pytestmark = pytest.mark.timeout(180)


async def test_create_join_play_and_standings(redis_url: str, tmp_path: Path) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        base = ("--server", url)
        code, out, err = await run_cli(tmp_path, "register", "zoe", *base, stdin=PW + "\n")
        assert code == 0, err
        code, out, err = await run_cli(
            tmp_path, "tournament", "create", "Evening arena", "seven-by-five",
            "--option", "cells=5", "--option", "empty_fill=any", "--minutes", "10",
            "--deal-seconds", "60", *base)
        assert code == 0, err
        assert "Evening arena · arena · seven-by-five" in out and "running" in out
        invite = re.search(r"solrace tournament join ([A-F0-9]{8})", out).group(1)
        code, out, err = await run_cli(tmp_path, "tournament", "join", invite, *base)
        assert code == 0 and "1 entered" in out, err
        code, out, err = await run_cli(tmp_path, "tournament", "play", invite, *base,
                                       stdin="resign\n")
        assert code == 0, err
        assert "deal 1" in out and "standings · 1 entered · you are #1" in out
        assert re.search(r"1\. zoe\s+\d+ pts\s+0/1 won", out), out
        code, out, err = await run_cli(tmp_path, "tournament", "play", invite, *base)
        assert code == 1 and "deal_not_ready" in err  # a resignation keeps the deal's clock
        code, out, err = await run_cli(tmp_path, "tournament", "standings", invite, *base)
        assert code == 0 and "zoe" in out, err
        code, out, err = await run_cli(tmp_path, "tournament", "list", *base)
        assert code == 0 and "Evening arena" not in out and "(none)" in out, err
        code, out, err = await run_cli(tmp_path, "tournament", "join", "NOSUCH00", *base)
        assert code == 1 and "tournament_not_found" in err


async def test_a_knockout_created_joined_played_and_its_bracket(redis_url: str,
                                                                tmp_path: Path) -> None:
    """zoe creates and enters a knockout from the CLI, seven library clients enter too (all
    rated below zoe's unrated 1500: she is seed 1); ``bracket`` shows round 1; zoe plays her
    match on the terminal and resigns, and so does her opponent: a tie, zoe advances."""
    import asyncio

    from solrace.server.store.keys import Keys

    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        base = ("--server", url)
        code, out, err = await run_cli(tmp_path, "register", "zoe", *base, stdin=PW + "\n")
        assert code == 0, err
        code, out, err = await run_cli(
            tmp_path, "tournament", "create", "Cup", "seven-by-five", "--option", "cells=5",
            "--option", "empty_fill=any", "--format", "knockout", "--max-entrants", "8",
            "--starts-in", "600", "--deal-seconds", "60", *base)
        assert code == 0, err
        assert "Cup · knockout · seven-by-five" in out and "open" in out
        invite = re.search(r"solrace tournament join ([A-F0-9]{8})", out).group(1)
        code, out, err = await run_cli(tmp_path, "tournament", "join", invite, *base)
        assert code == 0 and "1 entered" in out, err
        names = [f"kc{i}" for i in range(1, 8)]
        async with harness.accounts(url, *names) as others:
            r = harness.redis_client(redis_url)
            try:
                for i, c in enumerate(others):
                    await r.hset(Keys.rating(c.player), "seven-by-five",
                                 f"{1400 - 40 * i},80.0,0.06,9")
                    await c.tournament_join(invite)
                code, out, err = await run_cli(tmp_path, "tournament", "bracket", invite,
                                               *base)
                assert code == 0 and "bracket · open" in out and "8 entered" in out, err
                tid = (await others[0].request("tournament.info", tournament=invite)
                       )["tournament"]["tournament"]
                now = int((await r.time())[0]) * 1000
                await r.hset(f"sr:t:{{t:{tid}}}", mapping={"starts_at": now - 1,
                                                           "cutoff": now - 1})
            finally:
                await r.aclose()
            code, out, err = await run_cli(tmp_path, "tournament", "bracket", invite, *base)
            assert code == 0, err
            assert "round 1 of 3" in out and re.search(r"\(1\) zoe v \(8\) kc7 .*◀ you", out)

            async def rival() -> None:
                c = others[-1]
                reply = await c.tournament_play(invite)
                await c.wait_running(reply["race"]["race"], timeout=30)
                await c.resign(reply["race"]["race"])

            (code, out, err), _ = await asyncio.gather(
                run_cli(tmp_path, "tournament", "play", invite, *base, stdin="resign\n"),
                rival())
            assert code == 0, err
            assert "round 1 of Cup: against kc7" in out
            assert re.search(r"\(1\) zoe v \(8\) kc7\s+→ zoe \(a tie: the higher seed\)", out)
async def test_a_spectator_watches_the_leaders_deal_then_may_not_enter(
        redis_url: str, tmp_path: Path) -> None:
    """``solrace tournament watch --leader`` watches the leader's live deal until it ends;
    ``solrace watch RACE`` falls back to the player's session (an anonymous spectator may not
    watch a running tournament's deal); the watcher may then not enter."""
    async with harness.running_server(redis_url, spectator_delay=0.3) as server, \
            harness.accounts(harness.ws_url(server), "zed") as (zed,):
        url = harness.ws_url(server)
        base = ("--server", url, "--no-color")
        t = await zed.tournament_create("Watched arena", "unlimited", {"draw": "1"},
                                        minutes=10, deal_seconds=120)
        await zed.tournament_join(t["tournament"])
        rid = (await zed.tournament_play(t["tournament"]))["race"]["race"]
        await zed.wait_running(rid)
        code, out, err = await run_cli(tmp_path, "register", "yan", *base, stdin=PW + "\n")
        assert code == 0, err
        code, out, err = await run_cli(tmp_path, "watch", rid, "--once", *base)
        assert code == 0 and "zed" in out, err  # with yan's session: anonymous is refused
        watching = asyncio.create_task(run_cli(tmp_path, "tournament", "watch", t["code"],
                                               "--leader", *base))
        await asyncio.sleep(3)  # the command is watching now
        await zed.resign(rid)
        code, out, err = await watching
        assert code == 0, err
        assert "watching zed's deal 1 (a watcher may not enter this tournament)" in out
        assert "standings · 1 entered" in out and "resigned" in out, out
        code, out, err = await run_cli(tmp_path, "tournament", "join", t["code"], *base)
        assert code == 1 and "watched" in err


def test_standings_name_a_leaders_live_deal_to_a_non_entrant_only() -> None:
    from solrace.client.commands.tournament import standings_lines

    row = {"rank": 1, "player": "p1", "name": "ann", "points": 5, "won": 1, "played": 1,
           "fire": False, "race": "41d2aa", "deal": 2}
    spectator = standings_lines({"entrants": 1, "my_rank": None, "rows": [row]})
    assert spectator[-1].strip() == "playing deal 2: solrace watch 41d2aa (a watcher may not enter)"
    entrant = standings_lines({"entrants": 2, "my_rank": 2, "rows": [row]})
    assert "solrace watch" not in "\n".join(entrant)


def test_the_list_names_a_live_leader_and_a_finished_podium() -> None:
    from solrace.client.commands.tournament import leaders_text

    top = [{"rank": i, "player": f"p{i}", "name": n, "points": 9 - i, "won": 3 - i}
           for i, n in enumerate(("ann", "ben", "cat"), 1)]
    assert leaders_text({"state": "running", "format": "arena", "leaders": top}) == \
        "leader: ann (8 pts)"
    assert leaders_text({"state": "final", "format": "event", "leaders": top}) == \
        "podium: 1st ann (2 won), 2nd ben (1 won), 3rd cat (0 won)"
    assert leaders_text({"state": "open", "format": "arena"}) == ""
