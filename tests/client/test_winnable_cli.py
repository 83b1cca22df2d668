"""``solrace practice --winnable`` (client/raceterm/winnable.py): the terminal says from the
start whether a win still exists — a deal proved lost as lost, a won one as winnable for the
cards as they lie — and says it again only when the answer changes; without the flag, nothing."""

from __future__ import annotations

from pathlib import Path

from solrace.client.raceterm.winnable import winnable_text
from solrace.shared.learning.winnable import CLAIM_HIDDEN, CLAIM_LOST
from test_play_cli import Cli, server_and_host

LOST_SEED = 37  # tests/shared/test_learning_winnable.py: proved lost from the deal
WON_SEED = 2


def practice(server: object, seed: int, *extra: str) -> list[str]:
    from harness import ws_url

    return ["practice", "unlimited", "-o", "draw=1", "--seed", str(seed), "--server",
            ws_url(server), "--no-color", "--name", "pia", *extra]


async def test_a_lost_deal_is_said_lost_once(redis_url: str, tmp_path: Path) -> None:
    async with server_and_host(redis_url) as (server, _bob):
        cli = await Cli.start(tmp_path, *practice(server, LOST_SEED, "--winnable"))
        await cli.read_until("no longer winnable")
        await cli.send("sw", "sw")
        await cli.read_until("> sw")
        await cli.send("resign", close=True)
        code, out, err = await cli.finish()
    assert code == 0, err
    assert f"no longer winnable: {CLAIM_LOST} (proved)" in out
    assert out.count("no longer winnable") == 1, out  # lost stays lost: said once


async def test_a_won_deal_is_winnable_and_nothing_without_the_flag(redis_url: str,
                                                                   tmp_path: Path) -> None:
    async with server_and_host(redis_url) as (server, _bob):
        cli = await Cli.start(tmp_path, *practice(server, WON_SEED, "--winnable"))
        await cli.read_until("still winnable")
        await cli.send("resign", close=True)
        code, out, err = await cli.finish()
        assert code == 0, err
        assert f"still winnable: {CLAIM_HIDDEN}" in out

        cli = await Cli.start(tmp_path, *practice(server, WON_SEED))
        await cli.send("sw", "resign", close=True)
        code, out, err = await cli.finish()
    assert code == 0, err
    assert "winnable" not in out


def test_undecided_claims_nothing() -> None:
    text = winnable_text({"outcome": "undecided", "claim": None, "nodes": 20000})
    assert "undecided" in text and "nothing is claimed" in text and "20000" in text
