"""Winnable races and the solver's verdict in the browser (real Chromium, a real server process
with verdicts on, a real Redis): "Winnable deals only" in the lobby deals a certified seed, and
the standings after the race say what the solver made of the deal — for racers (race page) and
spectators (watch page, replay). The page only renders what the server sent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import serve_page
from harness import race_info
from pw import Player, claim_name, new_player
from solrace.server.store import Keys
from solrace.shared.solver import Budget, solve

pytestmark = pytest.mark.timeout(240)
BUDGET = 2_000


@pytest.fixture(scope="module")
def verdict_server(redis_proc: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server process that deals winnable races from a small pool and solves every race's
    deal after its end (small budgets: a test, not a benchmark)."""
    yield from serve_page(redis_proc, tmp_path_factory.mktemp("verdict"), "verdict",
                          "--pool-size", "1", "--pool-budget", str(BUDGET), "--pool-wait", "60",
                          "--verdict-budget", str(BUDGET))


def rid_of(p: Player) -> str:
    m = re.search(r"#/race/([a-z0-9]+)", p.page.url)
    assert m, p.page.url
    return m.group(1)


def stored_verdict(url: str, rid: str) -> dict[str, str]:
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        meta = client.hgetall(Keys.race(rid))
    finally:
        client.close()
    return {k: v for k, v in meta.items() if k.startswith("verdict")}


async def race_to_the_end(web: str, browser: Any, names: tuple[str, str], *, winnable: bool
                          ) -> tuple[Player, Player, str]:
    """The first player creates an Unlimited race (winnable or not), the second joins by the
    invite link, both ready, both resign: the two players on the standings, and the race id.
    (Names differ per test: a guest's name stays held while its session lives.)"""
    alice = await new_player(browser, web, names[0])
    bob = await new_player(browser, web, names[1])
    await claim_name(alice)
    await alice.page.get_by_text("Playing as").wait_for()
    if winnable:
        await alice.page.get_by_label("Winnable deals only").check()
    await alice.page.get_by_role("button", name="Create a Unlimited race").click()
    invite = alice.page.get_by_role("link", name=re.compile(r"join.[A-Z2-9]{6}$"))
    await invite.wait_for(timeout=90_000)  # a winnable race may wait for a certification
    await bob.page.goto(str(await invite.get_attribute("href")))
    await bob.page.get_by_text("You are invited").wait_for()
    await claim_name(bob)
    rid = rid_of(alice)
    await bob.page.wait_for_url(re.compile(rf"#/race/{rid}$"))
    for p in (alice, bob):
        await p.page.get_by_role("button", name="I'm ready").click()
    for p in (alice, bob):
        await p.page.get_by_role("button", name=re.compile(r"^stock")).wait_for(timeout=15_000)
        await p.page.get_by_role("button", name="Resign").click()
    for p in (alice, bob):
        await p.page.get_by_role("heading", name="Race over").wait_for()
    return alice, bob, rid


async def test_a_winnable_race_shows_its_certified_par_in_the_standings(
        browser, verdict_server: str, shots: Path, redis_proc) -> None:
    alice, bob, rid = await race_to_the_end(verdict_server, browser, ("alice", "bob"),
                                            winnable=True)
    await alice.page.locator(".race-meta").get_by_text("winnable deal").wait_for()
    secrets = await race_info(redis_proc.url, rid)
    result = solve(secrets.game(), Budget(nodes=BUDGET, seconds=None))
    assert result.outcome.value == "won"  # the pool's seed, from the race record
    text = f"Solver: this deal was winnable in {result.par} moves (a certified deal)."
    for p in (alice, bob):
        await p.page.locator(".race-end .verdict").filter(has_text=text).wait_for()
    assert stored_verdict(redis_proc.url, rid)["verdict_par"] == str(result.par)
    # the create's "finding a deal" notice went with its answer, not over the board
    assert await alice.page.locator(".toast", has_text="Finding a deal").count() == 0
    await alice.shot(shots, "race-end-verdict")
    for p in (alice, bob):
        assert not p.errors, p.errors


async def test_a_race_verdict_reaches_racers_spectators_and_the_replay(
        browser, verdict_server: str, shots: Path, redis_proc) -> None:
    alice, bob, rid = await race_to_the_end(verdict_server, browser, ("cleo", "dan"),
                                            winnable=False)
    secrets = await race_info(redis_proc.url, rid)
    result = solve(secrets.game(), Budget(nodes=BUDGET, seconds=None))
    words = {"won": f"Solver: this deal was winnable in {result.par} moves.",
             "lost": "Solver: this deal was proved lost — no sequence of moves wins it.",
             "unknown": f"Solver: undecided within {BUDGET} positions searched."}
    text = words[result.outcome.value]
    for p in (alice, bob):
        await p.page.locator(".race-end .verdict").filter(has_text=text).wait_for(
            timeout=60_000)
    assert stored_verdict(redis_proc.url, rid)["verdict"] == result.outcome.value
    await bob.shot(shots, "race-end-verdict-solved")
    viewer = await new_player(browser, f"{verdict_server}#/watch/{rid}", "viewer")
    await viewer.page.get_by_text("Race over").wait_for()
    await viewer.page.locator(".verdict").filter(has_text=text).wait_for()
    await viewer.page.goto(f"{verdict_server}#/replay/{rid}")
    await viewer.page.locator(".verdict").filter(has_text=text).wait_for()
    for p in (alice, bob, viewer):
        assert not p.errors, p.errors
