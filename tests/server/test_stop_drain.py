"""A clean stop always ends: a connection handler stuck in a request is logged and cancelled
after ``STOP_DRAIN`` seconds (server/ops/app.py ``Server._drain``), instead of hanging the
process."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgpack
import pytest
from harness import make_config, ws_url
from solrace.server.ops import app
from solrace.server.ops.app import Server
from solrace.server.session.handlers import HANDLERS
from solrace.shared import protocol as P
from websockets.asyncio.client import connect

LOOPS = ("asyncio", "uvloop")  # every async test runs on both event loops (conftest.py)
pytestmark = pytest.mark.timeout(60)


async def test_a_handler_stuck_in_a_request_is_cancelled_and_named(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    entered = asyncio.Event()

    async def stuck_ping(conn: Any, svc: Any, req: Any) -> dict[str, Any]:
        entered.set()
        await asyncio.Event().wait()  # a request whose await never completes
        return {}

    monkeypatch.setattr(app, "STOP_DRAIN", 0.5)
    monkeypatch.setitem(HANDLERS, P.Ping, stuck_ping)
    server = Server(make_config(redis_url))
    await server.start()
    try:
        ws = await connect(ws_url(server))
        await ws.send(msgpack.packb({"t": "hello", "id": 1, "v": 1, "name": "stuck"}))
        await ws.recv()
        await ws.send(msgpack.packb({"t": "ping", "id": 2}))
        async with asyncio.timeout(10):
            await entered.wait()
    finally:
        with caplog.at_level(logging.WARNING, logger="solrace.server"):
            async with asyncio.timeout(20):  # without the bound this waits for ever
                await server.stop()
    assert "had not returned" in caplog.text and "stuck_ping" in caplog.text
    await ws.close()


async def test_a_stop_with_idle_connections_logs_nothing(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = Server(make_config(redis_url))
    await server.start()
    ws = await connect(ws_url(server))
    await ws.send(msgpack.packb({"t": "hello", "id": 1, "v": 1, "name": "idle"}))
    await ws.recv()
    with caplog.at_level(logging.WARNING, logger="solrace.server"):
        await server.stop()
    assert "had not returned" not in caplog.text
    await ws.close()
