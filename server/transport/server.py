"""The listening side: :func:`serve` opens a TCP listener whose connections are
:class:`~.connection.WsConnection` s, runs each one's handshake and handler in a task, and
closes them all on :meth:`WsServer.close` (code 1001, going away).

The same settings as ``websockets.asyncio.server.serve`` where the server uses one
(``process_request``, ``select_subprotocol``, ``max_size``, ``ping_interval``,
``ping_timeout``, ``close_timeout``, ``open_timeout``), no compression ever."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from solrace.server.transport.connection import WsConnection
from websockets.http11 import Request, Response
from websockets.protocol import OPEN
from websockets.server import ServerProtocol

log = logging.getLogger("solrace.transport")

Handler = Callable[[WsConnection], Awaitable[None]]
ProcessRequest = Callable[[WsConnection, Request], Awaitable[Response | None]]


class WsServer:
    """Listening sockets, the open connections and their handler tasks."""

    def __init__(self, handler: Handler, *, process_request: ProcessRequest | None,
                 select_subprotocol: Callable[[Sequence[str]], str | None] | None,
                 max_size: int, ping_interval: float | None, ping_timeout: float | None,
                 close_timeout: float, open_timeout: float) -> None:
        self.handler = handler
        self.process_request = process_request
        self.select_subprotocol = select_subprotocol
        self.max_size = max_size
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.close_timeout = close_timeout
        self.open_timeout = open_timeout
        self.connections: set[WsConnection] = set()
        self.handler_tasks: set[asyncio.Task[None]] = set()
        self.server: asyncio.Server | None = None
        self._closing: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ connections

    def protocol(self) -> WsConnection:
        """A new connection's protocol (the listener's factory)."""
        choose = self.select_subprotocol

        def select(_proto: ServerProtocol, offered: Sequence[str]) -> Any:
            return choose(offered) if choose is not None else None

        proto = ServerProtocol(select_subprotocol=select if choose else None,
                               max_size=self.max_size, logger=log)
        return WsConnection(self, proto)

    def opened(self, conn: WsConnection) -> None:
        self.connections.add(conn)

    def closed(self, conn: WsConnection) -> None:
        self.connections.discard(conn)

    def start_handler(self, conn: WsConnection) -> None:
        task = asyncio.get_running_loop().create_task(self._run(conn))
        self.handler_tasks.add(task)
        task.add_done_callback(self.handler_tasks.discard)

    async def _run(self, conn: WsConnection) -> None:
        """The handshake, the handler, the close; the connection is over when this returns."""
        try:
            if not await conn.handshake(self.process_request):
                await conn.close()  # an HTTP response: the client ends the connection
                return
            try:
                await self.handler(conn)
            except Exception:
                log.exception("connection handler failed")
            await conn.close(1000)
        except Exception:
            log.exception("connection failed")
            if conn.transport is not None:
                conn.transport.abort()

    # ------------------------------------------------------------------ the listener

    @property
    def sockets(self) -> tuple[Any, ...]:
        return tuple(self.server.sockets) if self.server is not None else ()

    def is_serving(self) -> bool:
        return self.server is not None and self.server.is_serving()

    def close(self, code: int = 1001, reason: str = "") -> None:
        """Stop listening and close every open connection (in the background; see
        :meth:`wait_closed`)."""
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        if self.server is not None:
            self.server.close()
        closes = [asyncio.ensure_future(c.close(code, reason)) for c in list(self.connections)
                  if c.protocol.state is OPEN]
        if closes:
            await asyncio.wait(closes)
        if self.server is not None:
            await self.server.wait_closed()

    async def wait_closed(self) -> None:
        """Until :meth:`close` is done and every handler has returned."""
        if self._closing is not None:
            await asyncio.shield(self._closing)
        while self.handler_tasks:
            await asyncio.wait(list(self.handler_tasks))


async def serve(handler: Handler, host: str | None, port: int, *,
                process_request: ProcessRequest | None = None,
                select_subprotocol: Callable[[Sequence[str]], str | None] | None = None,
                max_size: int = 1 << 20, ping_interval: float | None = 20.0,
                ping_timeout: float | None = 20.0, close_timeout: float = 10.0,
                open_timeout: float = 10.0) -> WsServer:
    """A listening :class:`WsServer` on ``host``:``port`` (0: any free port)."""
    server = WsServer(handler, process_request=process_request,
                      select_subprotocol=select_subprotocol, max_size=max_size,
                      ping_interval=ping_interval, ping_timeout=ping_timeout,
                      close_timeout=close_timeout, open_timeout=open_timeout)
    server.server = await asyncio.get_running_loop().create_server(server.protocol, host, port)
    return server
