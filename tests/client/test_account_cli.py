"""``solrace register / login / logout / sessions`` and who the CLI plays as, run as real
subprocesses (each with its own ``SOLRACE_HOME``: one machine each) against a real server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from solrace.client.library import Client
from solrace.client.session import SessionStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness  # tests/server/harness.py: the shared server test harness

pytestmark = pytest.mark.timeout(120)
PW = "a-long-enough-password"


async def run_cli(home: Path, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    env.update(SOLRACE_HOME=str(home), PYTHONUNBUFFERED="1", COLUMNS="200", USER="root")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "solrace.client.cli", *argv, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_no_os_user_name_a_generated_guest_and_profiles_need_no_name(
    redis_url: str, tmp_path: Path
) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        alice = Client(url, name="alice")
        await alice.connect()
        try:
            # someone else's profile: no session of one's own is made (no name claimed)
            code, out, err = await run_cli(tmp_path / "a", "profile", "alice", "--json",
                                           "--server", url)
            assert code == 0, err
            assert json.loads(out)["name"] == "alice"
            assert SessionStore(tmp_path / "a" / "session.json").current(url) is None
            # one's own profile with no session: a generated guest, said on stderr, not $USER
            code, out, err = await run_cli(tmp_path / "a", "profile", "--json", "--server", url)
            assert code == 0, err
            me = json.loads(out)
            assert me["name"].startswith("guest-") and "root" not in me["name"]
            assert f"playing as guest {me['name']}" in err and "solrace register" in err
            code, out, err = await run_cli(tmp_path / "a", "profile", "--json", "--server", url)
            assert code == 0 and json.loads(out)["player"] == me["player"], err
            assert "playing as guest" not in err  # the saved session resumed
            # another machine is another player
            code, out, err = await run_cli(tmp_path / "b", "profile", "--json", "--server", url)
            assert code == 0 and json.loads(out)["player"] != me["player"], err
            # a guest asking for ranked play is told to register
            code, out, err = await run_cli(tmp_path / "a", "race", "create", "unlimited",
                                           "--rated", "--no-wait", "--server", url)
            assert code == 1 and "account_required" in err and "solrace register" in err
        finally:
            await alice.close()


async def test_register_login_sessions_revoke_logout(redis_url: str, tmp_path: Path) -> None:
    laptop, phone = tmp_path / "laptop", tmp_path / "phone"
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        base = ("--server", url)
        code, out, err = await run_cli(laptop, "register", "zoe", *base, stdin=PW + "\n")
        assert code == 0 and "registered zoe" in out, err
        saved = SessionStore(laptop / "session.json").current(url)
        assert saved is not None and saved.account and saved.name == "zoe"
        assert PW not in (laptop / "session.json").read_text()

        code, out, err = await run_cli(phone, "login", "zoe", *base, stdin="wrong-password\n")
        assert code == 1 and "bad_credentials" in err
        code, out, err = await run_cli(phone, "login", "ZOE", *base, stdin=PW + "\n")
        assert code == 0 and "logged in as zoe" in out, err

        code, out, err = await run_cli(laptop, "sessions", "--json", *base)
        assert code == 0, err
        rows = json.loads(out)
        assert len(rows) == 2 and [r["current"] for r in rows] == [True, False]
        assert all(r["client"].startswith("solrace-cli") for r in rows)
        code, out, err = await run_cli(laptop, "sessions", *base)
        assert code == 0 and "you are zoe (account)" in out, err

        code, out, err = await run_cli(laptop, "sessions", "--revoke", rows[1]["session"], *base)
        assert code == 0 and "revoked" in out, err
        code, out, err = await run_cli(phone, "sessions", *base)
        assert code == 1 and "solrace login zoe" in err  # the phone's session has ended

        code, out, err = await run_cli(laptop, "logout", *base)
        assert code == 0 and "logged out zoe" in out, err
        assert SessionStore(laptop / "session.json").current(url) is None
        code, out, err = await run_cli(laptop, "sessions", *base)
        assert code == 0 and "no session" in out


async def test_register_upgrades_the_current_guest(redis_url: str, tmp_path: Path) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        code, out, err = await run_cli(tmp_path, "profile", "--json", "--name", "yuri",
                                       "--server", url)
        assert code == 0, err
        guest = json.loads(out)
        code, out, err = await run_cli(tmp_path, "register", "--server", url, stdin=PW + "\n")
        assert code == 0 and "registered yuri" in out and "history is kept" in out, err
        code, out, err = await run_cli(tmp_path, "profile", "--json", "--server", url)
        assert code == 0 and json.loads(out)["player"] == guest["player"], err
