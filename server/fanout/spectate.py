"""Spectating: boards rebuilt from the race's event stream, masking, and the delay line.

A spectator's picture of a race is derived entirely from the durable event stream: the
``start`` event carries the deal's view and every ``progress`` event the move and the view delta
it produced, so folding the stream gives every racer's board at any version. That makes a
snapshot, a resume after a pub/sub drop and a replay of a finished race one mechanism, and needs
no engine (and no seed) on the spectator's path. Views never contain a hidden card, so neither
do boards built from them.

While a race runs, spectators get every event in the masked form of
:class:`~solrace.shared.masking.Masker`: a card is shown only once every racer has had it face
up. The masked form of version ``v`` depends on versions 1..v only, so each process keeps one
:class:`RaceMask` per watched race, folded once in version order, and every spectator
connection of that process takes the forms from it (live, delayed, caught up or resumed).

A tournament's deal (kind ``arena`` or ``knockout``) is masked as if one more racer had not
moved yet — an entrant still to play it: only the cards it deals face up are ever shown, the
``end``'s boards included (``Masker(absent=True)``; who may watch: arena.py's ``may_watch``).

For rated races (and tournament deals) spectators also run ``delay`` seconds behind (by the
Redis clock stamped on each event as ``at``): counts, timing and the tempo of play still pass
through a masked board.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from solrace.shared.masking import Masker, apply_reveal
from solrace.shared.protocol import last_event
from solrace.shared.views import apply_delta

if TYPE_CHECKING:
    from solrace.server.game.races import RaceInfo
    from solrace.server.store import Store

TOURNAMENT_KINDS = frozenset({"arena", "knockout"})  # race kinds that are a tournament's deals
MASK_PAGE = 1000  # events read from the stream per step while folding a mask


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
            apply_reveal(boards, ev.get("reveal", {}))
    return boards


async def final_boards(store: Store, rid: str, events: list[dict[str, Any]] | None = None
                       ) -> dict[str, dict[str, Any]]:
    """Every racer's board after the race's events (``events``: all of them, when already
    read), nothing masked: what the spectator form of an ``end`` event carries."""
    if events is None:
        events, page = [], [{"v": 0}]
        while page:
            page = await store.events_since(rid, events[-1]["v"] if events else 0,
                                            limit=MASK_PAGE)
            events += page
    return fold_boards(events)


class RaceMask:
    r"""One race's events in spectator (masked) form, for every spectator of this process.

    ``forms[v]`` is the masked form of version ``v``, kept from version 1 for as long as a
    spectator of this process holds the mask (``refs``): a delayed or resumed spectator asks
    for old versions. :meth:`form` is synchronous (delivery is); the watch handler first
    :meth:`ensure`\ s the versions up to its attach point, and each delivered version after it
    is either already folded or the next one.
    """

    def __init__(self, info: RaceInfo) -> None:
        # a tournament's deal may still be played by others: masked as if one more racer
        # had not moved (server/game/arena.py, may_watch)
        self.masker = Masker(info.variant, info.options, info.seed,
                             absent=info.kind in TOURNAMENT_KINDS)
        self.forms: dict[int, dict[str, Any]] = {}
        self.refs = 0
        self._lock = asyncio.Lock()

    @property
    def head(self) -> int:
        return len(self.forms)

    def form(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The masked form of ``event``; None when versions before it are not folded yet."""
        v = int(event["v"])
        if v <= self.head:
            return self.forms[v]
        if v != self.head + 1:
            return None
        out = self.masker.push(event)
        self.forms[v] = out
        return out

    async def ensure(self, store: Store, rid: str, upto: int,
                     known: Iterable[dict[str, Any]] = ()) -> None:
        """Fold every version up to ``upto``, or up to the race's last version when ``upto``
        is beyond it (``known``: events already read, in order)."""
        async with self._lock:
            for ev in known:
                if ev["v"] > upto:
                    break
                self.form(ev)
            while self.head < upto:
                page = await store.events_since(rid, self.head, limit=MASK_PAGE)
                for ev in page:
                    if ev["v"] <= upto:
                        self.form(ev)
                if len(page) < MASK_PAGE:
                    return

    def since(self, base: int, upto: int) -> list[dict[str, Any]]:
        """The masked forms of versions ``base + 1 .. upto`` (folded already)."""
        return [self.forms[v] for v in range(base + 1, upto + 1)]


class Masks:
    """This process's :class:`RaceMask` per race that a local spectator watches live."""

    def __init__(self) -> None:
        self._masks: dict[str, RaceMask] = {}

    def acquire(self, info: RaceInfo) -> RaceMask:
        mask = self._masks.get(info.rid)
        if mask is None:
            mask = self._masks[info.rid] = RaceMask(info)
        mask.refs += 1
        return mask

    def release(self, rid: str) -> None:
        mask = self._masks.get(rid)
        if mask is not None:
            mask.refs -= 1
            if mask.refs <= 0:
                del self._masks[rid]

    def get(self, rid: str) -> RaceMask | None:
        return self._masks.get(rid)

    def __len__(self) -> int:
        return len(self._masks)


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
            if last_event(msg) and self._on_end is not None:
                self._on_end()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._queue.clear()
