"""Race homes in the client (docs/protocol.md section 8.1): moving to the server process
that serves a race's racers without pub/sub, keeping every request in flight.

A mixin of :class:`~solrace.client.library.Client`, apart because it is the one place where
the client holds two connections at once: the new one (to the home) takes every request from
the moment its ``hello`` succeeded; the old one only delivers the replies of requests already
sent on it — events and notices still arriving there are dropped, because the ``sync`` of every
race that follows on the new connection returns each version since — and is closed once
those replies are in. Nothing about the game depends on it: a home that cannot be reached, or
refuses the session, leaves the client where it was.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection


class HomeMixin:
    """Following ``home`` hints (state is set up by ``Client.__init__``)."""

    if TYPE_CHECKING:  # provided by Client
        follow_home: bool
        connected_url: str
        token: str | None
        timeout: float
        versions: dict[str, int]
        ws: ClientConnection | None
        _reader: asyncio.Task[None] | None
        _pending: dict[Any, asyncio.Future[dict[str, Any]]]
        _moving: asyncio.Task[None] | None
        _homes_tried: dict[str, set[str]]
        _retired: set[ClientConnection]

        async def _open(self, url: str) -> ClientConnection: ...
        def _hello(self) -> dict[str, Any]: ...
        async def _read(self, ws: ClientConnection,
                        pending: dict[Any, asyncio.Future[dict[str, Any]]]) -> None: ...
        async def request(self, kind: str, *, within: float | None = None, **fields: Any
                          ) -> dict[str, Any]: ...
        async def sync(self, race: str) -> dict[str, Any]: ...

    def _hinted(self, summary: dict[str, Any]) -> None:
        """A summary naming a ``home`` elsewhere: start moving there (once per race and
        URL, so servers that disagree about a race's home cannot bounce the client)."""
        home, race = summary.get("home"), summary.get("race")
        if not (self.follow_home and isinstance(home, str) and isinstance(race, str)
                and self.token and home != self.connected_url):
            return
        tried = self._homes_tried.setdefault(race, set())
        if home in tried or (self._moving is not None and not self._moving.done()):
            return
        tried.add(home)
        self._moving = asyncio.create_task(self._go_home(home))

    async def _settle(self) -> None:
        """Return once a move home started by the last reply is done (or given up)."""
        if self._moving is not None and self._moving is not asyncio.current_task():
            await asyncio.wait([self._moving])

    async def _go_home(self, url: str) -> None:
        """Move to ``url``: a new connection says ``hello`` with the token; from then on
        requests go there and the old connection only delivers the replies of requests
        already sent on it (its events are dropped: the ``sync`` of every race that follows
        returns each version since); once those replies are in, it is closed. If ``url``
        cannot be reached, or refuses the session, the client stays where it is."""
        try:
            ws = await self._open(url)
        except Exception:  # unreachable, refused, not a websocket: stay
            return
        pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._retired.add(ws)  # replies only until it is ours: no events, no "closed" marker
        reader = asyncio.create_task(self._read(ws, pending))
        old_ws, old_reader, old_pending = self.ws, self._reader, self._pending
        self.ws, self._reader, self._pending = ws, reader, pending
        try:
            await self.request("hello", **self._hello())
        except BaseException as exc:  # e.g. bad_token there, or it closed: stay
            self.ws, self._reader, self._pending = old_ws, old_reader, old_pending
            await self._drop(ws, reader)
            if not isinstance(exc, Exception):  # cancelled: the client is closing
                raise
            return
        self.connected_url = url
        self._retired.discard(ws)
        if old_ws is not None:
            self._retired.add(old_ws)
        try:
            if old_pending:  # e.g. a move in flight: its ack updates the board first
                await asyncio.wait(list(old_pending.values()), timeout=self.timeout)
            for race in list(self.versions):
                with contextlib.suppress(Exception):  # e.g. a race one only watches
                    await self.sync(race)
        finally:  # closed even when the client closes meanwhile (cancelling this task)
            if old_ws is not None:
                await self._drop(old_ws, old_reader)

    async def _drop(self, ws: ClientConnection, reader: asyncio.Task[None] | None) -> None:
        """Close a connection this client no longer uses, silently (it is retired)."""
        self._retired.add(ws)
        with contextlib.suppress(Exception):
            await ws.close()
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        self._retired.discard(ws)
