"""Live tournament standings for the connections of this process that follow a tournament:
at most one frame per connection per second — ``standings`` for an arena or an event,
``bracket`` for a knockout — and only when the tournament's version moved, so the frames grow
with the number of followers, never with followers × moves.

Once a second, per followed tournament, one read of its standings' version; when it moved,
one read of the tournament (``snapshot``: the whole ranking, or the bracket), from which each
following connection's frame is cut without I/O (``frame``: the top, and that entrant's
neighbourhood). One read per tournament, not per follower: a thousand followers read one by
one kept the frames seconds behind (docs/tournaments.md, "Measured").
Nothing here is state that matters: a process that dies loses only who followed what, and
a client that reconnects follows again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

log = logging.getLogger("solrace.standings")

PERIOD = 1.0  # seconds between looks: the most frequent a follower gets a frame
SLICE = 50  # frames built between two yields to the event loop (a frame costs ~0.1 ms)


class Follower(Protocol):
    def send(self, message: dict[str, Any]) -> None: ...


class StandingsFeed:
    """Who follows which tournament here, and the ticker that sends them the standings."""

    def __init__(self, version: Callable[[str], Awaitable[int]],
                 snapshot: Callable[[str], Awaitable[Any]],
                 frame: Callable[[Any, str | None], dict[str, Any]]) -> None:
        self._version = version
        self._snapshot = snapshot
        self._frame = frame
        # tid -> follower -> (the version it has, its player id: whose neighbourhood)
        self._followers: dict[str, dict[Follower, tuple[int, str | None]]] = {}
        self._task: asyncio.Task[None] | None = None

    def follow(self, tid: str, who: Follower, sent_v: int, pid: str | None) -> None:
        self._followers.setdefault(tid, {})[who] = (sent_v, pid)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    def unfollow(self, who: Follower, tid: str | None = None) -> None:
        for t in [tid] if tid is not None else list(self._followers):
            group = self._followers.get(t)
            if group is not None:
                group.pop(who, None)
                if not group:
                    del self._followers[t]

    def follows(self, who: Follower) -> bool:
        return any(who in group for group in self._followers.values())

    async def _run(self) -> None:
        while self._followers:
            await asyncio.sleep(PERIOD)
            for tid in list(self._followers):
                try:
                    await self._tick(tid)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the store may be down: try again next second
                    log.info("standings of %s not sent: %s", tid, exc)

    async def _tick(self, tid: str) -> None:
        group = self._followers.get(tid)
        if not group:
            return
        v = await self._version(tid)
        behind = [(who, pid) for who, (sent, pid) in group.items() if sent < v]
        if not behind:
            return
        snap = await self._snapshot(tid)
        for i, (who, pid) in enumerate(behind):
            if i and not i % SLICE:  # let moves through between slices of frames
                await asyncio.sleep(0)
            if tid in self._followers and who in self._followers[tid]:
                out = self._frame(snap, pid)
                self._followers[tid][who] = (out["v"], pid)
                who.send(out)

    async def close(self) -> None:
        self._followers.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
