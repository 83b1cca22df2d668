"""The CLI and winnable races / deal verdicts: ``--winnable`` deals a certified seed, the end
screen says what the solver made of the deal (at once for a certified deal, after "checking"
for any other), and ``solrace watch`` of a finished race shows the stored verdict. A real
server and Redis; the playing CLI is a subprocess fed through stdin."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from solrace.client.tui import verdict_line

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness
from test_play_cli import CLI_TIMEOUT, Cli, alice_progress, inline, server_and_host

pytestmark = pytest.mark.timeout(120)
__all__ = ["inline"]  # the fixture, imported for this module's tests
SETTINGS: dict[str, Any] = {"pool_size": 1, "pool_budget": 2_000, "pool_wait": 60,
                            "verdict_budget": 2_000}


def test_verdict_line_says_each_outcome() -> None:
    assert verdict_line({"outcome": "won", "par": 97, "certified": True}) == (
        "solver: this deal was winnable in 97 moves (a certified deal)")
    assert verdict_line({"outcome": "won", "par": 12, "nodes": 40}) == (
        "solver: this deal was winnable in 12 moves")
    assert "proved lost" in str(verdict_line({"outcome": "lost", "nodes": 9}))
    assert verdict_line({"outcome": "unknown", "nodes": 2000, "budget": 2000}) == (
        "solver: undecided within 2000 positions searched")
    assert verdict_line({"outcome": "pending"}) == "solver: checking this deal…"
    assert verdict_line(None) is None


async def play_against_bob(redis_url: str, tmp_path: Path, *flags: str
                           ) -> tuple[str, dict[str, Any], str]:
    """``solrace race create unlimited FLAGS`` played by the CLI against bob, both resigning:
    the CLI's output, bob's end event and the race id."""
    async with server_and_host(redis_url, **SETTINGS) as (server, bob):
        cli = await Cli.start(tmp_path, "race", "create", "unlimited", *flags, "--server",
                              harness.ws_url(server), "--no-color", "--name", "dora")
        out = await cli.read_until("press enter when you are ready", timeout=60)
        invite = re.search(r"invite code ([A-Z2-9]{6})", out)
        assert invite, out
        joined = await bob.join(code=invite.group(1))
        await cli.read_until("bob joined (2/2)")
        await bob.ready(joined["race"])
        await cli.send("", "resign")  # stdin stays open: the CLI ends on its own
        await alice_progress(bob, result="resigned")
        await bob.resign(joined["race"])
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        if not end["verdict"].get("par") and end["verdict"]["outcome"] == "pending":
            end = {**end, **await bob.next_event(60, t="event", k="verdict")}
        code, out, err = await cli.finish(timeout=60)
        assert code == 0, err
        return out, end, joined["race"]


async def test_winnable_race_end_screen_shows_the_certified_par(
        redis_url: str, tmp_path: Path) -> None:
    out, end, _ = await play_against_bob(redis_url, tmp_path, "--winnable")
    verdict = end["verdict"]
    assert verdict["certified"] is True and verdict["outcome"] == "won"
    assert f"solver: this deal was winnable in {verdict['par']} moves (a certified deal)" in out
    assert "checking the deal" not in out  # known at the end: no wait


async def test_plain_race_end_screen_waits_for_the_verdict(
        redis_url: str, tmp_path: Path) -> None:
    out, end, _ = await play_against_bob(redis_url, tmp_path)
    assert "race over: the solver is checking the deal…" in out
    line = verdict_line(end["verdict"])
    assert line and line in out
    assert out.index("checking the deal") < out.index(line)


async def test_watch_of_a_finished_race_shows_its_verdict(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url, **SETTINGS) as server:
        url = harness.ws_url(server)
        cs, summary = await harness.start_race(url, redis_url, "unlimited", ["eve", "finn"],
                                               time_limit=60)
        rid = summary["race"]
        try:
            for c in cs:
                await c.resign(rid)
            verdict = (await cs[0].next_event(60, t="event", race=rid, k="verdict"))["verdict"]
        finally:
            await harness.close_all(cs)
        code, out, err = await inline("watch", rid, "--server", url, "--no-color")
    assert code == 0, err
    assert str(verdict_line(verdict)) in out


async def test_watch_of_a_live_race_waits_for_the_verdict(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url, **SETTINGS) as server:
        url = harness.ws_url(server)
        cs, summary = await harness.start_race(url, redis_url, "unlimited", ["gil", "hana"],
                                               time_limit=60)
        rid = summary["race"]
        try:
            watching = asyncio.ensure_future(inline("watch", rid, "--server", url,
                                                    "--no-color"))
            await cs[0].next_event(30, t="spectators", race=rid, count=1)
            for c in cs:
                await c.resign(rid)
            verdict = (await cs[0].next_event(60, t="event", race=rid, k="verdict"))["verdict"]
            code, out, err = await asyncio.wait_for(watching, 60)
        finally:
            await harness.close_all(cs)
    assert code == 0, err
    assert str(verdict_line(verdict)) in out and "standings" in out
