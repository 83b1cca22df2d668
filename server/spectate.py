"""Spectating: boards rebuilt from the race's event stream, and the spectator delay line.

A spectator's picture of a race is derived entirely from the durable event stream: the
``start`` event carries the deal's view and every ``progress`` event the move and the view delta
it produced, so folding the stream gives every racer's board at any version. That makes a
snapshot, a resume after a pub/sub drop and a replay of a finished race one mechanism, and needs
no engine (and no seed) on the spectator's path. Views never contain a hidden card, so neither
do boards built from them.

For rated races spectators run ``delay`` seconds behind (by the Redis clock stamped on each
event as ``at``), so that a racer learns nothing useful by watching a rival.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Iterable
from typing import Any

from solrace.shared.views import apply_delta


def fold_boards(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every racer's board ``{player: {"seq", "view"}}`` after ``events`` (from version 1)."""
    start_view: dict[str, Any] | None = None
    racers: list[str] = []
    boards: dict[str, dict[str, Any]] = {}
    for ev in events:
        kind = ev.get("k")
        if kind == "join":
            racers.append(ev["player"])
        elif kind == "leave":
            racers = [p for p in racers if p != ev["player"]]
        elif kind == "start":
            start_view = ev["view"]
            boards = {p: {"seq": 0, "view": start_view} for p in racers}
        elif kind == "progress" and "delta" in ev and ev["player"] in boards:
            b = boards[ev["player"]]
            boards[ev["player"]] = {"seq": ev["moves"], "view": apply_delta(b["view"], ev["delta"])}
    return boards


class DelayLine:
    """Sends events ``delay_ms`` after their ``at`` (Redis clock), in order.

    ``offset_ms`` = Redis clock minus local clock, measured when the spectator attached.
    """

    def __init__(self, delay_ms: int, offset_ms: int, send: Callable[[dict[str, Any]], None],
                 on_end: Callable[[], None] | None = None):
        self.delay_ms = delay_ms
        self.offset_ms = offset_ms
        self._send = send
        self._on_end = on_end
        self._queue: collections.deque[dict[str, Any]] = collections.deque()
        self._task: asyncio.Task[None] | None = None

    def push(self, event: dict[str, Any]) -> None:
        self._queue.append(event)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._drain())

    def due_in(self, event: dict[str, Any]) -> float:
        """Seconds until ``event`` may be shown (<= 0: now)."""
        local_now = time.time() * 1000
        return (int(event.get("at", 0)) + self.delay_ms - self.offset_ms - local_now) / 1000

    async def _drain(self) -> None:
        while self._queue:
            wait = self.due_in(self._queue[0])
            if wait > 0:
                await asyncio.sleep(wait)
            msg = self._queue.popleft()
            self._send(msg)
            if msg.get("k") == "end" and self._on_end is not None:
                self._on_end()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._queue.clear()
