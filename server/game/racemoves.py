"""The move path of :class:`~solrace.server.game.races.RaceService`: a player's cached game, a move
validated by the engine, appended by one store script and acknowledged only after it returned;
resign. A mixin, so the hottest code of the server reads as one piece: ``move`` →
``_move_locked`` (``_apply``: validation and the engine; ``Store.append_move``; ``_acked`` or
``_refused``), and its synchronous start for the common case, :meth:`MovePath.move_now`, which
runs the same pieces without a coroutine (docs/performance.md, "The synchronous move start")."""

from __future__ import annotations

from typing import Any

from solrace.server.game.lifecycle import Gate, move_gate
from solrace.server.game.movetypes import Applied, Pending
from solrace.server.game.racemodel import GameEntry, Player, RaceInfo, dealt_home
from solrace.server.ops import metrics
from solrace.server.store import RaceRecord, ScriptResult
from solrace.shared.engine import Game, Status
from solrace.shared.errors import IllegalMove, NotationError
from solrace.shared.notation import Move
from solrace.shared.pointing import legal_texts
from solrace.shared.protocol import ProtocolError, progress_body
from solrace.shared.views import advance, view_of

#: The moves counter's series per variant, looked up once (a move counts without a lookup).
_MOVES: dict[str, Any] = {}


class MovePath:
    """Games and moves of :class:`RaceService` (its state: ``infos``, ``games``, ``store``)."""

    # ------------------------------------------------------------------ games

    async def entry(self, rid: str, pid: str, *, reload: bool = False) -> GameEntry:
        key = (rid, pid)
        e = self.games.get(key)
        if e is not None and not reload:
            return e
        info = await self.info(rid)
        game = Game(info.variant, info.options, info.seed)
        for text in await self.store.read_log(rid, pid):
            game.push(text)
        if e is None:
            e = GameEntry(game, view_of(game).wire())
            self.games[key] = e
        else:
            e.game, e.view = game, view_of(game).wire()
        return e

    async def board(self, rid: str, pid: str) -> dict[str, Any]:
        e = await self.entry(rid, pid, reload=True)
        return {"seq": len(e.game.moves), "view": e.view, "legal": legal_texts(e.game)}

    async def record_for_play(self, rid: str, player: Player) -> RaceRecord:
        """The race as a move, a batch or a request that reads the position meets it — after
        the check that the player races in it, and, when the race is counting down, after an
        attempt at its start (its time may have come; the start script makes it happen
        once). The caller then asks :func:`~solrace.server.game.lifecycle.move_gate`."""
        rec = await self.record(rid)
        if player.pid not in rec.names:
            raise ProtocolError("not_your_game", "this race has no game of yours")
        if move_gate(rec.state) is Gate.START_FIRST:
            await self.start(rid)
            rec = await self.record(rid)
        return rec

    async def started_meanwhile(self, rid: str) -> bool:
        """After the store refused a move with ``not_running``: whether the race was counting
        down and has now been started, so that the move is tried once more."""
        rec = await self.record(rid)
        if move_gate(rec.state) is not Gate.START_FIRST:
            return False
        await self.start(rid)
        return True

    async def move(self, player: Player, rid: str, seq: int,
                   text: str | Move) -> dict[str, Any]:
        """Validate, append durably, then answer with the ack fields."""
        info = self.infos.get(rid)  # cached: no coroutine round for it
        if info is None:
            info = await self.info(rid)
        e = self.games.get((rid, player.pid))
        if e is None:
            # No cached game: check the race before the engine sees the move, so that nobody
            # can probe the deal (legal vs illegal) before the start or after the end.
            rec = await self.record_for_play(rid, player)
            gate = move_gate(rec.state)
            if gate is not Gate.PLAY:
                if gate is Gate.RETRY_ONLY:  # a retry of a move logged before the end
                    e = await self.entry(rid, player.pid)
                    if seq < len(e.game.moves) and e.game.moves[seq] == _parse(text):
                        return _duplicate(e, seq)
                raise ProtocolError("not_running", f"the race is {rec.state}")
            e = await self.entry(rid, player.pid)
        async with e.lock:
            return await self._move_locked(info, e, player, rid, seq, text, retried=False)

    async def _move_locked(
        self, info: RaceInfo, e: GameEntry, player: Player, rid: str, seq: int, text: str | Move,
        retried: bool,
    ) -> dict[str, Any]:
        if seq > len(e.game.moves):  # another process moved this game: refresh from the log
            e = await self.entry(rid, player.pid, reload=True)
        applied = self._apply(e, player, seq, text)
        if type(applied) is dict:
            return applied  # a duplicate
        a = applied
        try:
            res = await self.store.append_move(
                rid, player.pid, seq, a.move, a.home, a.progressed, a.result, a.body, a.event,
            )
        except BaseException:  # store unreachable: the cache must not keep an unlogged move
            e.game.pop()
            raise
        if res.status != "ok":
            return await self._refused(info, e, player, rid, seq, text, retried, res)
        return self._acked(info, e, rid, applied, res)

    def _apply(self, e: GameEntry, player: Player, seq: int,
               text: str | Move) -> Applied | dict[str, Any]:
        """Validation and the engine, no I/O: the move pushed on the cached game, and what
        the store and the ack need (:class:`~.movetypes.Applied`); or the ack of a duplicate
        (a dict). The caller holds the game's lock and has refreshed a game that is behind
        ``seq``."""
        game = e.game
        if seq != len(game.moves):
            if seq < len(game.moves) and game.moves[seq] == (
                    text if type(text) is Move else _parse(text)):
                return _duplicate(e, seq)
            raise ProtocolError("stale_seq", f"your game has {len(game.moves)} moves, not {seq}",
                                seq=len(game.moves))
        before_home = game.cards_home
        try:
            move = game.push(text)
        except IllegalMove as exc:
            raise ProtocolError("illegal_move", exc.reason, detail=exc.detail) from None
        except NotationError as exc:
            raise ProtocolError("bad_notation", exc.reason) from None
        status = game.status
        result = status.value if status in (Status.WON, Status.LOST) else ""
        after, change = advance(game, e.view)
        home, done = game.cards_home, move.text()
        event: dict[str, Any] = {
            "k": "progress", "player": player.pid, "home": home,
            "moves": len(game.moves), "move": done, "delta": change,
        }
        if result:
            event["result"] = result
        body, packed_change = progress_body(event)
        return Applied(status, result, after, change, home, home > before_home, done, event,
                       body, packed_change)

    def _acked(self, info: RaceInfo, e: GameEntry, rid: str, applied: Applied,
               res: ScriptResult) -> dict[str, Any]:
        """The ack fields of a move the store appended (``res.status == "ok"``)."""
        status, change, done = applied.status, applied.delta, applied.move
        version, elapsed, unfinished, _ = map(int, res.values)
        e.view = applied.view
        moves = _MOVES.get(info.variant)
        if moves is None:
            moves = _MOVES[info.variant] = metrics.MOVES.labels(info.variant)
        moves.inc()
        if unfinished == 0:
            self._spawn(self.try_finish(rid))
        game = e.game
        return {"seq": len(game.moves), "delta": change, "v": version, "elapsed": elapsed,
                "status": status.value, "move": done, "moves": [done],
                "legal": legal_texts(game)}

    async def _refused(
        self, info: RaceInfo, e: GameEntry, player: Player, rid: str, seq: int, text: str | Move,
        retried: bool, res: ScriptResult,
    ) -> dict[str, Any]:
        """The store did not append the move (its sequence or the race's state said no): the
        cached game forgets it, and the reply says why (or, after a countdown that ended
        meanwhile, the move is tried once more)."""
        e.game.pop()
        again = await self.after_refusal(rid, player.pid, res, retried)
        if again is None:
            return await self._move_locked(info, e, player, rid, seq, text, True)
        return _duplicate(again, seq)

    async def after_refusal(self, rid: str, pid: str, res: ScriptResult,
                            retried: bool) -> GameEntry | None:
        """What a move or batch the store refused (``res``; the caller has taken it off its
        cached game) comes to — the one rule for every move path: the racer's game reloaded
        from the log when the store found the request there already (``dup``: the caller
        answers with a duplicate ack); None when the race was counting down and has just been
        started, so the request is tried once more (``retried`` says it was); else the
        refusal is raised (``stale_seq``, ``not_running``, ``already_finished``, …)."""
        if res.status in ("stale", "dup"):
            e = await self.entry(rid, pid, reload=True)
            if res.status == "dup":
                return e
            raise ProtocolError("stale_seq", f"your game has {res.values[0]} moves",
                                seq=int(res.values[0]))
        code = res.values[0]
        if code == "time_up":
            self._spawn(self.try_finish(rid))
            raise ProtocolError("not_running", "time is up")
        if code == "not_running" and not retried and await self.started_meanwhile(rid):
            return None
        self._raise(res, rid)
        raise AssertionError("unreachable")  # _raise raises for every status but "ok"

    async def play_move(self, player: Player, rid: str, seq: int,
                        text: str | Move) -> dict[str, Any]:
        """One move in full notation, whatever it meets: the ack's fields. The common case
        starts synchronously (:meth:`move_now`) and only the store's reply is awaited; the
        rest takes :meth:`move`, with its waits. A duplicate's ack carries its version."""
        pending = self.move_now(player, rid, seq, text)
        if pending is None:  # not the common case: the general path, with its waits
            ack = await self.move(player, rid, seq, text)
        elif type(pending) is dict:  # a duplicate
            ack = pending
        else:
            try:
                raw = await pending.reply
            except BaseException:
                self.move_failed(pending)
                raise
            ack = self.move_done(pending, raw)
            if ack is None:
                ack = await self.move_refused(pending, raw)
        if ack.get("duplicate"):
            ack = await with_version(self.store, rid, player.pid, seq, ack)
        return ack

    # ------------------------------------------------------------------ the synchronous start

    def move_now(self, player: Player, rid: str, seq: int,
                 text: str | Move) -> Pending | dict[str, Any] | None:
        """:meth:`move` without a coroutine, for the common case — the race's info and the
        game cached, the game's lock free, the game not behind ``seq``, no replica barrier:
        the lock is taken, the move validated and pushed and its script call submitted, here
        and now. Returns None when the case is not the common one (then await :meth:`move`,
        which does the same with waits), the ack fields of a duplicate (a dict), or the
        :class:`~.movetypes.Pending` move: await its ``reply`` (the store's raw reply; the
        move is not acknowledged before it), then call :meth:`move_done` — or
        :meth:`move_failed` if the await raised. Every check and outcome is :meth:`move`'s;
        only the coroutine chain (``move`` → ``_move_locked`` → ``append_move``, the lock's
        ``async with``) is gone.
        ``text`` may be the move parsed already (a :class:`Move`: ``Game.push`` takes it as
        it is, so a full-notation move is parsed once)."""
        info = self.infos.get(rid)
        e = self.games.get((rid, player.pid))
        store = self.store
        if (info is None or e is None or store.replication is not None
                or seq > len(e.game.moves) or not e.lock.try_acquire()):
            return None
        try:
            applied = self._apply(e, player, seq, text)
            if type(applied) is dict:
                e.lock.release()
                return applied
            a = applied
            try:
                fut = store.submit_move(rid, player.pid, seq, a.move, a.home, a.progressed,
                                        a.result, a.body, a.event)
            except BaseException:
                e.game.pop()
                raise
        except BaseException:
            e.lock.release()
            raise
        return Pending(info, e, player, rid, seq, text, applied, fut)

    def move_done(self, pending: Pending, raw: Any) -> dict[str, Any] | None:
        """The ack fields of a pending move whose script replied ``raw`` (lock released);
        None when the store refused it: then await :meth:`move_refused`."""
        e = pending.entry
        try:
            res = ScriptResult.of(raw)
        except BaseException:  # a reply it cannot read: as if the call had failed
            self.move_failed(pending)
            raise
        if res.status != "ok":
            return None
        e.lock.release()
        return self._acked(pending.info, e, pending.rid, pending.applied, res)

    async def move_refused(self, pending: Pending, raw: Any) -> dict[str, Any]:
        """A pending move the store refused: :meth:`move`'s answer to it (lock released)."""
        p = pending
        try:
            return await self._refused(p.info, p.entry, p.player, p.rid, p.seq, p.text, False,
                                       ScriptResult.of(raw))
        finally:
            p.entry.lock.release()

    def move_failed(self, pending: Pending) -> None:
        """A pending move whose script call raised (the store unreachable): the cached game
        must not keep an unlogged move (lock released)."""
        e = pending.entry
        e.game.pop()
        e.lock.release()

    async def resign(self, player: Player, rid: str) -> dict[str, Any]:
        res = await self.store.resign(rid, player.pid, dealt_home(await self.info(rid)))
        if res.status == "err" and res.values[0] == "time_up":
            self._spawn(self.try_finish(rid))
            raise ProtocolError("not_running", "time is up")
        self._raise(res, rid)
        version, elapsed, unfinished = (int(x) for x in res.values)
        if unfinished == 0:
            self._spawn(self.try_finish(rid))
        return {"v": version, "elapsed": elapsed}


async def with_version(store: Any, rid: str, pid: str, seq: int, ack: dict[str, Any]
                       ) -> dict[str, Any]:
    """A duplicate ack with the version ``v`` of its (last) move's progress event, read from
    the race's stream: the mover was never sent that event (its ack stands for it), so without
    ``v`` a retried move would leave a hole in the connection's version sequence. Rare (a
    retry after a lost ack or ``unavailable``), so the stream scan costs nothing that matters."""
    if not ack.get("duplicate") or "v" in ack:
        return ack
    moves = seq + len(ack.get("moves") or ())
    for ev in await store.events_since(rid, 0):
        if ev.get("k") == "progress" and ev.get("player") == pid and ev.get("moves") == moves:
            ack["v"] = ev["v"]
            break
    return ack


def _duplicate(e: GameEntry, seq: int) -> dict[str, Any]:
    """The ack of a move that was applied already (a retry after a lost ack)."""
    done = e.game.moves[seq].text()
    return {"seq": len(e.game.moves), "duplicate": True, "view": e.view, "move": done,
            "moves": [done], "legal": legal_texts(e.game)}


def _parse(text: str) -> Move | None:
    try:
        return Move.from_text(text)
    except NotationError:
        return None
