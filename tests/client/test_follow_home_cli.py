"""The CLI follows race homes (docs/protocol.md section 8.1) unless told not to:
``--no-follow-home`` or ``SOLRACE_FOLLOW_HOME=0``, read where every CLI client connects."""

from __future__ import annotations

from pathlib import Path

import pytest
from solrace.client import cli, session
from solrace.client.library import Client


@pytest.mark.parametrize(("value", "follows"), [
    (None, True), ("1", True), ("yes", True), ("0", False), ("off", False), (" No ", False),
    ("false", False),
])  # fmt: skip
def test_follow_home_setting(monkeypatch: pytest.MonkeyPatch, value: str | None,
                             follows: bool) -> None:
    if value is None:
        monkeypatch.delenv(session.FOLLOW_HOME_ENV, raising=False)
    else:
        monkeypatch.setenv(session.FOLLOW_HOME_ENV, value)
    assert session.follow_home() is follows


async def test_open_client_applies_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(session.FOLLOW_HOME_ENV, "0")
    client = Client("ws://127.0.0.1:9", name="alice", timeout=2)
    assert client.follow_home  # the library's default
    with pytest.raises(session.CommandError, match="cannot reach"):
        await session.open_client(client, client.url)
    assert client.follow_home is False


def test_the_flag_turns_it_off_for_the_command(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setenv(session.FOLLOW_HOME_ENV, "1")  # recorded: restored after the test
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))
    code = cli.main(["play", "unlimited", "--quick", "--no-follow-home", "--name", "alice",
                     "--server", "ws://127.0.0.1:9"])
    assert code == 1  # nobody listens there
    assert session.follow_home() is False
