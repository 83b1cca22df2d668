"""One websocket connection: authentication, limits, dispatch and ordered event delivery.

A connection reads frames, checks them (size, msgpack limits, schema — all in
:mod:`solrace.shared.protocol`), applies the per-connection rate limit and hands each request to
the race service. Replies and events leave through one bounded send queue, so a client that
stops reading cannot make the server buffer without limit: when its queue is full it is
disconnected (it can resume and ``sync``).

Race events reach a connection from the process's hub (pub/sub) and from catch-up reads of the
durable event stream; :meth:`Connection.advance` merges both so that the client sees every
version exactly once, in order.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from solrace.server import metrics
from solrace.server.daily import previous_day
from solrace.server.races import Player, parse_options
from solrace.server.results import rating_view
from solrace.server.spectate import DelayLine, fold_boards
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.app import Context
    from solrace.server.hints import HintJob
    from websockets.asyncio.server import ServerConnection

log = logging.getLogger("solrace.connection")

HELLO_TIMEOUT = 10.0
CATCH_UP_PAGE = 200  # events read from the stream per catch-up step
SYNC_PAGE = 1000  # events per sync reply; ``more`` says another sync is needed
QUICK_GHOSTS = 10  # stale quick-pair entries one request may skip before giving up
SPECTATOR_TTL_MS = 90_000  # a spectator registration lives this long unless refreshed
ANONYMOUS_OK = (P.Hello, P.Ping, P.Watch, P.Unwatch, P.LiveRaces)


def echo_id(value: Any) -> Any:
    """The request id to echo as ``re``: an integer or a string of at most 64 characters."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and len(value) <= 64):
        return value
    return None


class TokenBucket:
    """``rate`` messages per second on average, bursts up to ``burst``."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    def __init__(self, ws: ServerConnection, ctx: Context) -> None:
        self.ws = ws
        self.ctx = ctx
        self.player: Player | None = None
        self.races: dict[str, int | None] = {}  # attached race -> last version delivered
        self._attached_at: dict[str, int] = {}  # attached race -> version it was attached after
        self.watching: set[str] = set()  # attached races this connection spectates
        self.delays: dict[str, DelayLine] = {}
        self._own: dict[str, int] = {}  # race -> move count after this connection's last move
        self.greeted = False
        self.member = f"{ctx.config.process_id}:{secrets.token_hex(4)}"
        self._race_locks: dict[str, asyncio.Lock] = {}
        self.quick_queue: str | None = None
        self.bucket = TokenBucket(ctx.config.rate, ctx.config.burst)
        self.outbox: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=ctx.send_queue)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._hinting = False  # a hint of this connection is being computed

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        metrics.CONNECTIONS.inc()
        writer = asyncio.create_task(self._writer(), name="writer")
        try:
            await self._reader()
        finally:
            metrics.CONNECTIONS.dec()
            self._closing = True
            await self._detach_all()
            writer.cancel()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(writer, *self._tasks, return_exceptions=True)

    async def _reader(self) -> None:
        """Read frames until the peer goes. Hello is due within HELLO_TIMEOUT of connecting
        (one deadline, not reset by other frames); a connection with nothing going on (no race,
        no watch, no queue) is closed after ``idle_timeout`` without a frame."""
        ws = self.ws
        hello_deadline = time.monotonic() + HELLO_TIMEOUT
        while True:
            if not self.greeted:
                timeout: float | None = max(0.0, hello_deadline - time.monotonic())
            elif not self.races and self.quick_queue is None:
                timeout = self.ctx.config.idle_timeout
            else:
                timeout = None
            try:
                data = await asyncio.wait_for(ws.recv(), timeout)
            except TimeoutError:
                if not self.greeted:
                    self.send(P.error(None, "not_authenticated", "no hello within 10 s"))
                    await asyncio.sleep(0.05)
                    await ws.close(1008, "no hello")
                else:
                    await ws.close(1001, "idle")
                return
            except Exception:  # closed (normally or not)
                return
            await self.handle(data)

    async def _writer(self) -> None:
        while True:
            frame = await self.outbox.get()
            if frame is None:
                return
            try:
                await self.ws.send(frame)
            except Exception:
                return

    def send(self, message: dict[str, Any]) -> None:
        if self._closing:
            return
        try:
            self.outbox.put_nowait(P.encode(message))
        except asyncio.QueueFull:
            log.info("closing a connection whose send queue is full")
            self._closing = True
            self._spawn(self.ws.close(1013, "too slow: send queue full; resume and sync"))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ dispatch

    async def handle(self, data: bytes | str) -> None:
        req_id: Any = None
        kind = "unknown"
        try:
            allowed = self.bucket.take()  # every frame costs a token, even garbage
            msg = P.decode(data)
            req_id = echo_id(msg.get("id"))
            if not allowed:  # refused after reading the id, so the client can match it
                raise ProtocolError("rate_limited", "too many messages; slow down")
            req = P.parse_request(msg)
            kind = req.TYPE
            metrics.MESSAGES.labels(kind).inc()
            if not self.greeted and not isinstance(req, P.Hello):
                raise ProtocolError("not_authenticated", "say hello first")
            if self.player is None and not isinstance(req, ANONYMOUS_OK):
                raise ProtocolError("not_authenticated", "say hello with a name to race")
            handler = getattr(self, "on_" + kind.replace(".", "_"))
            started = time.perf_counter()
            reply = await handler(req)
            if isinstance(req, P.MakeMove):
                metrics.MOVE_ACK_SECONDS.observe(time.perf_counter() - started)
            if reply is not None:
                self.send(reply)
        except ProtocolError as exc:
            metrics.ERRORS.labels(exc.code).inc()
            self.send(P.error(req_id, exc.code, exc.reason, **exc.extra))
        except (RedisError, OSError) as exc:
            metrics.ERRORS.labels("unavailable").inc()
            log.warning("store unavailable during %s: %s", kind, exc)
            self.send(P.error(req_id, "unavailable", "the store is unreachable; retry"))
        except Exception:
            metrics.ERRORS.labels("internal").inc()
            log.exception("internal error handling %s", kind)
            self.send(P.error(req_id, "internal", "internal error; the game is unchanged"))

    # ------------------------------------------------------------------ session

    async def on_hello(self, req: P.Hello) -> dict[str, Any]:
        if self.greeted:
            raise ProtocolError("already_authenticated", "this connection already said hello")
        store, ttl = self.ctx.store, int(self.ctx.config.session_ttl)
        token: str | None = None
        if req.token is None and req.name is None:
            self.greeted = True
            return P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=None, name=None,
                           races=[], server_time=await store.server_time_ms())
        if req.token is not None:
            found = await store.load_session(req.token, ttl)
            if found is None:
                raise ProtocolError("bad_token", "unknown or expired session; hello with a name")
            self.player = Player(*found)
        else:
            assert req.name is not None
            pid = secrets.token_hex(8)
            if not await store.claim_name(req.name, pid, ttl):
                raise ProtocolError("name_taken", f"the name {req.name} is in use")
            token = secrets.token_urlsafe(24)
            await store.create_session(token, pid, req.name, ttl)
            await store.remember_profile(req.name, pid)
            self.player = Player(pid, req.name)
        self.greeted = True
        await self.ctx.hub.watch_player(self.player.pid, self)
        races = []
        for rid in await store.player_races(self.player.pid):
            rec = await store.read_race(rid)
            if rec is None:
                continue
            await self.ctx.races.record(rid)
            races.append(self.ctx.races.summary(rec))
            self.ctx.races.arm(rec)
        out = P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=self.player.pid,
                      name=self.player.name, races=races,
                      server_time=await store.server_time_ms())
        if token is not None:
            out["token"] = token
        return out

    async def on_ping(self, req: P.Ping) -> dict[str, Any]:
        return P.reply(req.id, "pong", server_time=await self.ctx.store.server_time_ms())

    # ------------------------------------------------------------------ lobby

    @property
    def me(self) -> Player:
        assert self.player is not None
        return self.player

    async def _race_reply(self, req_id: Any, rid: str, kind: str = "race") -> dict[str, Any]:
        rec = await self.ctx.races.record(rid)
        self.ctx.races.arm(rec)
        return P.reply(req_id, kind, race=self.ctx.races.summary(rec))

    async def on_race_create(self, req: P.CreateRace) -> dict[str, Any]:
        races = self.ctx.races
        rid, _ = await races.create(self.me, req.variant, req.options, req.seats,
                                    req.time_limit, req.rated)
        v = await races.join(self.me, rid)
        reply = await self._race_reply(req.id, rid)
        await self.attach(rid, v)
        return reply

    async def on_race_join(self, req: P.JoinRace) -> dict[str, Any]:
        races = self.ctx.races
        rid = req.race if req.race is not None else await races.code_to_race(req.code or "")
        v = await races.join(self.me, rid)
        if v == 0:  # already a racer: no new event
            v = (await races.record(rid)).num("version")
        reply = await self._race_reply(req.id, rid)
        await self.attach(rid, v)
        return reply

    async def on_race_leave(self, req: P.LeaveRace) -> dict[str, Any]:
        await self.ctx.races.leave(self.me, req.race)
        await self.detach(req.race)
        return await self._race_reply(req.id, req.race)

    async def on_race_ready(self, req: P.Ready) -> dict[str, Any]:
        await self.ctx.races.ready(self.me, req.race)
        return await self._race_reply(req.id, req.race)

    async def on_races_mine(self, req: P.MyRaces) -> dict[str, Any]:
        out = []
        for rid in await self.ctx.store.player_races(self.me.pid):
            rec = await self.ctx.store.read_race(rid)
            if rec is not None:
                await self.ctx.races.record(rid)
                out.append(self.ctx.races.summary(rec))
        return P.reply(req.id, "races", races=out)

    # ------------------------------------------------------------------ play

    async def on_move(self, req: P.MakeMove) -> dict[str, Any]:
        # The ack tells this connection everything its own progress event would: that event
        # (same version ``v``) is not sent back to it; see _deliver.
        before = self._own.get(req.race)
        self._own[req.race] = req.seq + 1
        try:
            ack = await self.ctx.races.move(self.me, req.race, req.seq, req.move)
        except BaseException:  # refused: another connection's move n+1 is not ours to skip
            if before is None:
                self._own.pop(req.race, None)
            else:
                self._own[req.race] = before
            raise
        return P.reply(req.id, "ack", race=req.race, **ack)

    async def on_resign(self, req: P.Resign) -> dict[str, Any]:
        out = await self.ctx.races.resign(self.me, req.race)
        return P.reply(req.id, "resigned", race=req.race, **out)

    async def on_sync(self, req: P.Sync) -> None:
        races = self.ctx.races
        rec = await races.record(req.race)
        if self.me.pid not in rec.names:
            raise ProtocolError("not_in_race", "you are not a racer in this race")
        events, more = await self._sync_page(req.race, req.since)
        last = events[-1]["v"] if events else min(req.since, rec.num("version"))
        board = None
        if rec.state in ("running", "finished"):
            board = await races.board(req.race, self.me.pid)
        races.arm(rec)
        events = self._unsent(req.race, events)  # the live stream may have moved meanwhile
        reply = P.reply(req.id, "synced", race=races.summary(rec),
                        events=[P.racer_event(e) for e in events], board=board, more=more)
        self.send(reply)
        if not more:
            await self.attach(req.race, last)  # after the reply: events follow it, in order

    async def _sync_page(self, rid: str, since: int) -> tuple[list[dict[str, Any]], bool]:
        """One ``synced`` page: the events after ``since`` that this connection has not been
        sent yet. On an attached connection the versions between its attach point and the last
        one delivered went out as live frames (or, for its own moves, as acks): a repeated
        ``sync`` skips them, yet still gives the history before the attach point."""
        store = self.ctx.store
        sent, start = self.races.get(rid), self._attached_at.get(rid)
        if sent is None or start is None or since >= sent:
            events = await store.events_since(rid, since, limit=SYNC_PAGE)
            return events, len(events) == SYNC_PAGE
        if since >= start:
            events = await store.events_since(rid, sent, limit=SYNC_PAGE)
            return events, len(events) == SYNC_PAGE
        head = [e for e in await store.events_since(rid, since, limit=SYNC_PAGE)
                if e["v"] <= start]
        if len(head) == SYNC_PAGE:
            return head, True
        tail = await store.events_since(rid, sent, limit=SYNC_PAGE - len(head))
        return head + tail, len(head) + len(tail) == SYNC_PAGE

    def _unsent(self, rid: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        sent, start = self.races.get(rid), self._attached_at.get(rid)
        if sent is None or start is None:
            return events
        return [e for e in events if not start < e["v"] <= sent]

    async def on_hint(self, req: P.Hint) -> None:
        """Checked here, searched in the background: the reply follows when the worker
        process is done, and this connection's moves are served meanwhile."""
        if self._hinting:
            raise ProtocolError("rate_limited", "a hint is already being computed; wait for it")
        job = await self.ctx.hints.prepare(self.me, req.race)
        self._hinting = True
        self._spawn(self._hint(req.id, job))

    async def _hint(self, req_id: Any, job: HintJob) -> None:
        try:
            self.send(P.reply(req_id, "hint", **await self.ctx.hints.compute(job)))
        except Exception:  # the worker died or the pool is shut down: a server fault
            metrics.ERRORS.labels("internal").inc()
            log.exception("hint for race %s failed", job.race)
            self.send(P.error(req_id, "internal", "the hint could not be computed"))
        finally:
            self._hinting = False

    # ------------------------------------------------------------------ quick pairing

    async def on_quick(self, req: P.QuickPair) -> dict[str, Any]:
        races = self.ctx.races
        if self.quick_queue is not None:
            raise ProtocolError("already_queued", "you are already waiting for a quick race")
        queue, opts = races.queue_name(req.variant, req.options)
        for _ in range(QUICK_GHOSTS + 1):
            res = await self.ctx.store.quick_enqueue(queue, self._quick_entry())
            if res.status == "already":
                raise ProtocolError("already_queued", "you are already waiting for a quick race")
            if res.status == "wait":
                self.quick_queue = queue
                return P.reply(req.id, "queued", queue=queue)
            other_pid, _, rest = str(res.values[0]).partition(":")
            other_name, _, process = rest.partition(":")
            if not process or process == self.ctx.config.process_id or \
                    await self.ctx.store.is_alive(process):
                break
            # The entry's process died with its waiting player: the script has popped the
            # ghost; pair with the next one (or wait) instead of racing nobody.
            log.info("quick pairing skipped %s: its process %s is gone", other_pid, process)
        else:
            raise ProtocolError("unavailable", "the quick-pairing queue is full of stale "
                                "entries; try again")
        variant = queue.split("|", 1)[0]
        rid, _ = await races.create(Player(other_pid, other_name), variant, opts, 2,
                                    self.ctx.quick_time_limit, False)
        await races.join(Player(other_pid, other_name), rid, auto_ready=True)
        v = await races.join(self.me, rid, auto_ready=True)
        await self.ctx.store.notify_player(other_pid, {"k": "matched", "race": rid})
        reply = await self._race_reply(req.id, rid)
        await self.attach(rid, v)
        return reply

    def _quick_entry(self) -> str:
        """This player's quick-queue entry: ``pid:name:process`` (names have no ``:``)."""
        return f"{self.me.pid}:{self.me.name}:{self.ctx.config.process_id}"

    async def on_quick_cancel(self, req: P.QuickCancel) -> dict[str, Any]:
        removed = 0
        if self.quick_queue is not None:
            removed = await self.ctx.store.quick_cancel(
                self.quick_queue, self._quick_entry())
            self.quick_queue = None
        return P.reply(req.id, "unqueued", removed=bool(removed))

    # ------------------------------------------------------------------ events

    async def attach(self, rid: str, last: int) -> None:
        """Start delivering race ``rid``'s events after version ``last`` (catching up from the
        durable stream first)."""
        if rid not in self.races:
            self._attached_at[rid] = last
        self.races[rid] = max(last, self.races.get(rid) or 0)  # never resend what was sent
        await self.ctx.hub.watch_race(rid, self)
        await self.advance(rid, None)

    async def detach(self, rid: str) -> None:
        self.races.pop(rid, None)
        self._attached_at.pop(rid, None)
        await self.ctx.hub.unwatch_race(rid, self)
        if rid in self.watching:
            self.watching.discard(rid)
            line = self.delays.pop(rid, None)
            if line is not None:
                line.close()
            self.ctx.spectators.get(rid, set()).discard(self.member)
            await self.ctx.store.spectate(rid, self.member, False, SPECTATOR_TTL_MS)

    async def _detach_all(self) -> None:
        hub = self.ctx.hub
        try:
            for rid in list(self.races):
                await self.detach(rid)
            if self.player is not None:
                await hub.unwatch_player(self.player.pid, self)
                if self.quick_queue is not None:
                    await self.ctx.store.quick_cancel(self.quick_queue, self._quick_entry())
        except Exception as exc:  # the store may be down; nothing is lost by skipping this
            log.info("cleanup after disconnect failed: %s", exc)

    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None:
        last = self.races.get(rid)
        if last is None:
            return
        lock = self._race_locks.get(rid)
        if version == last + 1 and (lock is None or not lock.locked()):
            self._deliver(rid, event)
        elif version > last + 1 or (lock is not None and lock.locked()):
            self._spawn(self.advance(rid, event))

    def on_player_notice(self, pid: str, notice: dict[str, Any]) -> None:
        if notice.get("k") == "matched":
            self._spawn(self._matched(str(notice["race"])))

    async def _matched(self, rid: str) -> None:
        self.quick_queue = None
        rec = await self.ctx.races.record(rid)
        self.ctx.races.arm(rec)
        self.send({"t": "matched", "race": self.ctx.races.summary(rec)})
        await self.attach(rid, 0)

    # ------------------------------------------------------------------ dailies and profiles

    async def on_daily(self, req: P.DailyInfo) -> dict[str, Any]:
        daily = self.ctx.daily
        name, _ = daily.variant_name(req.variant)
        day = await daily.today()
        record = await daily.get(name, day)
        out = daily.public(name, day, record, day)
        attempt = await self.ctx.store.attempt_of(day, name, self.me.pid)
        out["attempt"] = attempt
        yesterday = await self.ctx.store.daily(previous_day(day), name)
        if yesterday is not None:
            out["yesterday"] = daily.public(name, previous_day(day), yesterday, day)
        return P.reply(req.id, "daily", **out)

    async def on_daily_start(self, req: P.DailyStart) -> None:
        rid, ranked = await self.ctx.daily.start(self.me, req.variant, req.practice)
        rec = await self.ctx.races.record(rid)
        self.ctx.races.arm(rec)
        self.send(P.reply(req.id, "race", race=self.ctx.races.summary(rec), ranked=ranked))
        await self.attach(rid, 0)

    async def on_practice_start(self, req: P.PracticeStart) -> None:
        """A practice race against server bots, running at once; attached from version 0
        like ``daily.start``, so its join, countdown and start events follow the reply."""
        rid = await self.ctx.bots.start(self.me, req.variant, req.options, req.bots,
                                        req.time_limit, req.seed)
        rec = await self.ctx.races.record(rid)
        self.ctx.races.arm(rec)
        self.send(P.reply(req.id, "race", race=self.ctx.races.summary(rec)))
        await self.attach(rid, 0)

    async def on_leaderboard(self, req: P.Leaderboard) -> dict[str, Any]:
        around = self.me.pid if req.around_me else None
        board = await self.ctx.daily.leaderboard(req.variant, req.date, req.offset, req.limit,
                                                 around)
        return P.reply(req.id, "leaderboard", **board)

    async def on_profile(self, req: P.Profile) -> dict[str, Any]:
        store = self.ctx.store
        if req.name is None:
            pid, name = self.me.pid, self.me.name
        else:
            found = await store.profile_of(req.name)
            if found is None:
                raise ProtocolError("player_not_found", f"no player called {req.name}")
            pid, name = found, req.name
        ratings = {v: rating_view(t) for v, t in (await store.all_ratings(pid)).items()}
        stats: dict[str, dict[str, Any]] = {}
        for key, value in (await store.stats(pid)).items():
            variant, _, field = key.rpartition(":")
            stats.setdefault(variant, {})[field] = value if field == "last_daily" else int(value)
        return P.reply(req.id, "profile", player=pid, name=name, ratings=ratings, stats=stats)

    # ------------------------------------------------------------------ spectating

    async def on_watch(self, req: P.Watch) -> None:
        ctx = self.ctx
        rid = req.race if req.race is not None else await ctx.races.code_to_race(req.code or "")
        rec = await ctx.races.record(rid)
        info = ctx.races.infos[rid]
        if info.kind != "race":
            raise ProtocolError("not_watchable", "daily and practice games are private")
        live = rec.state not in ("finished", "closed")
        if live and self.player is not None and self.player.pid in rec.names:
            raise ProtocolError("not_watchable", "racers cannot watch their own race")
        if rid in self.races:  # after the checks: a refused watch must not detach a racer
            await self.detach(rid)
        cfg = ctx.config
        delay = cfg.spectator_delay if info.rated else cfg.casual_spectator_delay
        delay_ms = int(delay * 1000) if live else 0
        redis_now = await ctx.store.server_time_ms()
        offset = redis_now - int(time.time() * 1000)
        cutoff = redis_now - delay_ms
        base = req.since if req.since and not req.full else 0
        events = [e for e in await ctx.store.events_since(rid, base) if e.get("at", 0) <= cutoff]
        last = events[-1]["v"] if events else base
        count = 0
        if live:
            count = await ctx.store.spectate(rid, self.member, True, SPECTATOR_TTL_MS)
            ctx.spectators.setdefault(rid, set()).add(self.member)
        out = P.reply(req.id, "watching", race=ctx.races.summary(rec), delay=delay_ms / 1000,
                      v=last, spectators=count)
        if req.full or req.since:
            out["events"] = events
        else:
            out["boards"] = fold_boards(events)
            end = next((e for e in events if e.get("k") == "end"), None)
            if end is not None:
                out["end"] = end
        self.send(out)
        if live:
            self.watching.add(rid)
            if delay_ms:
                self.delays[rid] = DelayLine(delay_ms, offset, self.send,
                                             on_end=lambda: self._spawn(self.detach(rid)))
            await self.attach(rid, last)

    async def on_unwatch(self, req: P.Unwatch) -> dict[str, Any]:
        if req.race not in self.watching:
            raise ProtocolError("not_watching", "this connection does not watch that race")
        await self.detach(req.race)
        return P.reply(req.id, "unwatched", race=req.race)

    async def on_races_live(self, req: P.LiveRaces) -> dict[str, Any]:
        rows = await self.ctx.store.live_races(req.limit, req.before)
        if len(rows) == req.limit:  # ``before`` is exclusive: never split one start time
            last = int(rows[-1][1].get("started_at") or 0)
            have = {row[0] for row in rows}
            rows += [row for row in await self.ctx.store.live_races(100, last + 1)
                     if row[0] not in have and int(row[1].get("started_at") or 0) == last]
        now = await self.ctx.store.server_time_ms()
        races = []
        for rid, meta, racers, watchers in rows:
            started = int(meta.get("started_at") or 0)
            races.append({
                "race": rid, "variant": meta.get("variant"),
                "options": parse_options(meta.get("options", "")),
                "rated": meta.get("rated") == "1", "racers": racers, "spectators": watchers,
                "started_at": started, "elapsed": max(0, now - started),
                "state": meta.get("state"),
            })
        nxt = races[-1]["started_at"] if len(races) >= req.limit else None
        return P.reply(req.id, "live", races=races, next=nxt)

    def _deliver(self, rid: str, event: dict[str, Any]) -> None:
        self.races[rid] = event["v"]
        if rid not in self.watching:
            if (event.get("k") == "progress" and event.get("moves") == self._own.get(rid)
                    and self.player is not None and event.get("player") == self.player.pid
                    and "result" not in event):
                return  # this connection's own move: its ack carried the same facts
            event = P.racer_event(event)
        msg = {"t": "event", "race": rid, **event}
        line = self.delays.get(rid)
        if line is not None:
            line.push(msg)  # the line detaches once it has shown the end
            return
        self.send(msg)
        if event.get("k") == "end":
            self._spawn(self.detach(rid))

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None:
        """Deliver ``event`` in order; on a gap (or with no event) read the missing versions
        from the durable stream."""
        lock = self._race_locks.setdefault(rid, asyncio.Lock())
        async with lock:
            last = self.races.get(rid)
            if last is None:
                return
            if event is not None and event["v"] <= last:
                return
            if event is not None and event["v"] == last + 1:
                self._deliver(rid, event)
                return
            while True:  # page through the stream, waiting for room in the send queue
                page = await self._catch_up_page(rid)
                for ev in page:
                    if rid not in self.races:
                        return
                    while self.outbox.full() and not self._closing:
                        await asyncio.sleep(0.01)
                    self._deliver(rid, ev)
                if len(page) < CATCH_UP_PAGE:
                    return

    async def _catch_up_page(self, rid: str) -> list[dict[str, Any]]:
        """The next page of missed events. Retried: after Redis dropped this process's
        connections, the first command on each pooled one fails, and nobody retries the hub's
        reconnect catch-up — a failure there would leave the gap open until a later event."""
        for pause in (0.05, 0.25, None):
            try:
                return await self.ctx.store.events_since(rid, self.races.get(rid) or 0,
                                                         limit=CATCH_UP_PAGE)
            except (RedisError, OSError):
                if pause is None:
                    raise
                await asyncio.sleep(pause)
        raise AssertionError("unreachable")
