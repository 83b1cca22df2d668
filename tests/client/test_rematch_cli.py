"""``solrace race rematch RACE``: the CLI asks for a rematch of a finished race; the other
racer is offered it. A real server and Redis; the CLI runs in this process."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from solrace.client import cli
from solrace.client.library import Client
from solrace.client.session import SessionStore, login

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness

pytestmark = pytest.mark.timeout(60)


async def test_race_rematch_no_wait_json(redis_url: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        carol = await login(url, "carol", SessionStore(tmp_path / "session.json"))
        bob = Client(url, name="bob")
        await bob.connect()
        try:
            summary = await carol.create_race("unlimited", {"draw": "3"}, time_limit=90)
            rid = summary["race"]
            await bob.join(code=summary["code"])
            for c in (carol, bob):
                await c.ready(rid)
            for c in (carol, bob):
                await c.wait_running(rid)
                await c.resign(rid)
            await bob.next_event(t="event", race=rid, k="end")
            await carol.close()  # the CLI resumes carol's saved session
            code = await asyncio.to_thread(cli.main, [
                "race", "rematch", rid, "--no-wait", "--json", "--server", url,
                "--name", "carol"])
            out, err = capsys.readouterr()
            assert code == 0, err
            new = json.loads(out)
            assert new["race"] != rid and new["state"] == "lobby"
            assert (new["variant"], new["options"]["draw"], new["time_limit"]) == (
                "unlimited", "3", 90)
            offer = await bob.next_event(t="rematch")
            assert offer["race"]["race"] == new["race"] and offer["by"] == "carol"

            code = await asyncio.to_thread(cli.main, [
                "race", "rematch", "ffffffffffffffff", "--no-wait", "--server", url,
                "--name", "carol"])
            _, err = capsys.readouterr()
            assert code == 1 and "race_not_found" in err
        finally:
            await bob.close()
