"""The hot path: appending moves to a racer's log, the race's event stream, and delivering
each move's event to this process's own connections.

Why here, together: a move is one script (:data:`.lua.MOVE` / :data:`.lua.BATCH`) that checks
the sequence, logs the move, appends the event to the race's stream and publishes it only if
another process follows the race (``procs``, kept by :meth:`MovesMixin.follow`); this process's
connections get the event from the script's reply (:meth:`MovesMixin._deliver_after`) instead.
The calls go through the :class:`~.batch.ScriptBatcher` directly, with no object in between:
this is the code every move runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import msgpack
from solrace.server.store import lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import Keys
from solrace.server.store.records import ScriptResult, _s

log = logging.getLogger("solrace.store")

#: Games whose move-script constants are kept encoded (:meth:`MovesMixin._consts`) at most.
CONSTS_CAP = 20_000


class MovesMixin(StoreCore):
    """Moves, the event stream and local delivery."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._move = self._script(lua.MOVE)
        self._batch = self._script(lua.BATCH)
        self._follow = self._script(lua.FOLLOW)
        self._move_consts: dict[tuple[str, str, str], tuple[list[bytes], bytes, bytes, bytes]] = {}

    def _consts(self, rid: str, pid: str) -> tuple[list[bytes], bytes, bytes, bytes]:
        """The move script's keys and constant arguments (the player, the race's channel, this
        process) for one game, encoded once instead of formatted and encoded per move — the
        same bytes on the wire (:func:`.resp.pack` takes bytes as they are). Bounded: emptied
        when it holds :data:`CONSTS_CAP` games."""
        key = (rid, pid, self.process)
        consts = self._move_consts.get(key)
        if consts is None:
            if len(self._move_consts) >= CONSTS_CAP:
                self._move_consts.clear()
            consts = self._move_consts[key] = (
                [Keys.race(rid).encode(), Keys.log(rid, pid).encode(), Keys.events(rid).encode()],
                pid.encode(), Keys.race_channel(rid).encode(), self.process.encode())
        return consts

    async def append_move(
        self, rid: str, pid: str, seq: int, move: str, home: int, progressed: bool, result: str,
        event: bytes, event_map: dict[str, Any] | None = None,
    ) -> ScriptResult:
        """The conditional append: only when the log holds exactly ``seq`` moves. ``event`` is
        the msgpack progress event (a map of at most 14 entries); the script adds ``elapsed``
        and ``at``. ``event_map``: the same event unpacked, the caller's no more (local
        delivery adds ``elapsed``, ``at`` and ``v`` to it instead of unpacking ``event``)."""
        res = ScriptResult.of(await self.submit_move(rid, pid, seq, move, home, progressed,
                                                     result, event, event_map))
        if self.replication is not None:
            await self.durable(rid, res)
        return res

    def submit_move(
        self, rid: str, pid: str, seq: int, move: str, home: int, progressed: bool, result: str,
        event: bytes, event_map: dict[str, Any] | None = None,
    ) -> Any:
        """:meth:`append_move`'s script call, submitted now without a coroutine: the future
        of its raw reply (no replica barrier: the caller checks ``replication`` is None or
        awaits :meth:`durable` itself). Local delivery runs from the reply, as there."""
        self._count()
        keys, player, channel, process = self._consts(rid, pid)
        return self.batcher.call(
            self._move, keys=keys,
            args=[player, seq, move, home, "1" if progressed else "0", result,
                  channel, event, process],
            on_done=self._deliver_after(rid, [event], [event_map]),
        )

    async def durable(self, rid: str, res: ScriptResult) -> None:
        """With ``--wait-replicas N``: return only once N replicas hold the race's writes so
        far (a move just logged, or — for a duplicate — the earlier one); else raise
        :class:`ReplicationLag` (the caller answers ``unavailable``; a retry is idempotent)."""
        if self.replication is not None and res.status in ("ok", "dup"):
            self._count()
            await self.replication.wait(Keys.barrier(rid))

    async def append_batch(
        self, rid: str, pid: str, seq: int, moves: Sequence[tuple[str, int, bool, bytes]],
        result: str,
    ) -> ScriptResult:
        """The conditional append of several moves at once (one sequence check): each item is
        (move, home after it, whether it put a card home, its msgpack progress event — at most
        14 entries; the script adds ``elapsed`` and ``at``). ``result`` ends the game after the
        last move ('' when it goes on). ``dup`` when these moves already follow ``seq``."""
        self._count()
        args: list[Any] = [pid, seq, len(moves), result, Keys.race_channel(rid), self.process]
        for text, home, progressed, event in moves:
            args += [text, home, "1" if progressed else "0", event]
        res = ScriptResult.of(await self.batcher.call(self._batch,
            keys=[Keys.race(rid), Keys.log(rid, pid), Keys.events(rid)],
            args=args, on_done=self._deliver_after(rid, [m[3] for m in moves]),
        ))
        await self.durable(rid, res)
        return res

    def _deliver_after(self, rid: str, events: list[bytes],
                       maps: list[dict[str, Any] | None] | None = None
                       ) -> Callable[[Any], None] | None:
        """The callback that, once the move script has run — whether or not its caller is still
        waiting (a closed connection) — hands its events to this process's own connections
        (``local``), as pub/sub would have: each with ``v``, ``elapsed`` and ``at`` as in the
        stream."""
        local = self.local
        if local is None:
            return None

        def done(raw: Any) -> None:
            if _s(raw[0]) != "ok":
                return
            last, elapsed, now = int(raw[1]), int(raw[2]), int(raw[4])
            first = last - len(events) + 1
            for i, body in enumerate(events):
                known = maps[i] if maps is not None else None  # no copy: nobody else's
                ev = known if known is not None else msgpack.unpackb(body, raw=False)
                ev["elapsed"], ev["at"], ev["v"] = elapsed, now, first + i
                try:
                    local(rid, first + i, ev)
                except Exception:
                    log.exception("local delivery of race %s v%d failed", rid, first + i)

        return done

    async def follow(self, rid: str, on: bool) -> None:
        """This process's hub is (or is no longer) subscribed to the race's channel: list it in
        the race's ``procs`` (see lua.FOLLOW), so that moves of other processes publish."""
        self._count()
        await self.batcher.call(self._follow, keys=[Keys.race(rid)],
                                args=[self.process, "1" if on else "0"])

    async def events_since(self, rid: str, since: int, limit: int = 10_000) -> list[dict[str, Any]]:
        """Race events with version > ``since``, oldest first, each with ``v`` set."""
        self._count()
        raw = await self.redis.xrange(Keys.events(rid), min=f"{since + 1}-0", max="+", count=limit)
        out = []
        for entry_id, fields in raw:
            ev = msgpack.unpackb(fields[b"e"], raw=False)
            ev["v"] = int(_s(entry_id).split("-")[0])
            out.append(ev)
        return out

    async def end_event(self, rid: str) -> dict[str, Any] | None:
        self._count()
        raw = await self.redis.get(Keys.result(rid))
        return msgpack.unpackb(raw, raw=False) if raw else None
