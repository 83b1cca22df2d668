"""The server process: configuration, the store connection, the websocket listener.

``python -m solrace.server`` (or ``solrace-server``) reads :class:`Config`, starts an embedded
Redis when no URL is given, and serves websockets plus ``/healthz`` and ``/metrics`` on one
port. SIGTERM/SIGINT stop it cleanly; SIGKILL loses nothing acknowledged, because every
acknowledged move is already in Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import logging
import secrets
import signal
import socket
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.accounts.service import AccountService
from solrace.server.fairplay.service import FairPlayService
from solrace.server.fanout.hub import Hub, HubBase
from solrace.server.fanout.hub_sharded import ShardedHub
from solrace.server.fanout.spectate import Masks
from solrace.server.fanout.standings import StandingsFeed
from solrace.server.game import knockout_view
from solrace.server.game.analysis import AnalysisService
from solrace.server.game.arena import ArenaService
from solrace.server.game.bots import BotService
from solrace.server.game.daily import DailyService
from solrace.server.game.hints import HintService
from solrace.server.game.knockout import KnockoutService
from solrace.server.game.pool import PoolService
from solrace.server.game.races import RaceService
from solrace.server.game.results import Results
from solrace.server.game.trophies import TrophyService
from solrace.server.game.verdicts import VerdictService
from solrace.server.moderation.actions import Moderation
from solrace.server.ops import metrics, static, upkeep
from solrace.server.ops.config import Config, listener_url
from solrace.server.ops.redisproc import RedisProcess, RedisProcessError
from solrace.server.session.connection import Connection
from solrace.server.store import Keys, Store
from solrace.server.store.connect import is_cluster_url, open_client, open_cluster
from solrace.server.transport import WsConnection, WsServer, serve
from solrace.shared import accel
from solrace.shared import protocol as P
from websockets.http11 import Request, Response

log = logging.getLogger("solrace.server")
#: Seconds a stop waits for connection handlers to return after closing their connections
#: (websockets' own close handshake is bounded by its ``close_timeout``; this bounds our side).
STOP_DRAIN = 10.0


@dataclass(slots=True)
class Context:
    """What every connection of this process shares."""

    config: Config
    store: Store
    hub: HubBase
    races: RaceService
    send_queue: int
    quick_time_limit: int
    daily: DailyService
    hints: HintService
    bots: BotService
    accounts: AccountService
    pool: PoolService
    verdicts: VerdictService
    fairplay: FairPlayService
    moderation: Moderation
    arenas: ArenaService
    analyses: AnalysisService
    standings: StandingsFeed
    knockouts: KnockoutService
    spectators: dict[str, set[str]] = field(default_factory=dict)  # race -> local members
    masks: Masks = field(default_factory=Masks)  # spectator forms of locally watched races
    trophies: TrophyService | None = None  # podiums and best arena scores (profiles)


def _await_chain(coro: object) -> str:
    """Where a suspended coroutine waits, outermost first, one line per ``await`` in the chain
    (a task's own stack shows only its outermost frame)."""
    lines = []
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            code = frame.f_code
            lines.append(f"  {code.co_filename}:{frame.f_lineno} in {code.co_qualname}\n")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return "".join(lines)


class Server:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.redis_proc: RedisProcess | None = None
        self.redis: Redis | RedisCluster | None = None
        self.pubsub_redis: Redis | None = None
        self.ctx: Context | None = None
        self.ws: WsServer | None = None
        self._refresher: asyncio.Task[None] | None = None
        self._preparer: asyncio.Task[None] | None = None
        self._pooler: asyncio.Task[None] | None = None
        self._scheduler: asyncio.Task[None] | None = None
        self._finalizer: asyncio.Task[None] | None = None
        self.assets = static.load_assets()  # the browser client, served on "/"

    @staticmethod
    async def _migrate_names(store: Store) -> None:
        """Accounts stored under the legacy name fold move to their fold's key, once per
        Redis (any process may do it; the move is idempotent): server/store/renames.py."""
        if await store.redis.get(Keys.NAMES_MIGRATED):
            return
        for old, new in await store.accounts.migrate_names():
            log.warning("name fold: account %s now collides with an older name; renamed %s",
                        old, new)
        await store.redis.set(Keys.NAMES_MIGRATED, "1")

    @property
    def port(self) -> int:
        assert self.ws is not None
        return int(self.ws.sockets[0].getsockname()[1])

    async def start(self) -> None:
        cfg = self.config
        url = cfg.redis_url
        if url is None:
            self.redis_proc = RedisProcess(data_dir=cfg.data_dir / "redis", appendonly=True)
            await asyncio.to_thread(self.redis_proc.start)
            url = self.redis_proc.url
            log.info("embedded Redis-protocol server started at %s (AOF in %s)",
                     url, cfg.data_dir / "redis")
        # Retries after a lost connection: every script checks state, so a retried one never
        # applies twice (a move is answered as a duplicate, a finish recognises its own retry);
        # docs/protocol.md lists the few replies a retry can get wrong.
        # A blocking pool queues commands when every connection is busy (the default pool
        # raises "Too many connections" under load). A redis+cluster:// URL gives a
        # RedisCluster client instead (docs/scaling.md).
        self.redis = open_client(url, max_connections=64)
        store = Store(self.redis, wait_replicas=cfg.wait_replicas,
                      wait_timeout_ms=int(cfg.wait_timeout * 1000))
        await store.ping()
        await self._migrate_names(store)
        # The hub's pub/sub connection has no retry policy: it must see a lost connection, so
        # that after reconnecting it can catch its subscribers up from the durable streams.
        hub: HubBase
        if is_cluster_url(url):
            hub = ShardedHub(open_cluster(url, max_connections=4), cfg.process_id)
        else:
            self.pubsub_redis = Redis.from_url(url, decode_responses=False,
                                               health_check_interval=10)
            hub = Hub(self.pubsub_redis, cfg.process_id)
        await hub.start()
        # unique per server instance even if two share a --process-id (or one interpreter):
        # a move skips PUBLISH when the mover's own id is the race's only follower
        store.process = f"{cfg.process_id}/{secrets.token_hex(4)}"
        store.local = hub.deliver  # this process's moves reach its own connections directly
        hub.follow = store.follow  # and other processes' moves are published to this one
        races = RaceService(store, countdown_ms=int(cfg.countdown * 1000))
        daily = DailyService(store, races, cfg.secret_key, budget_nodes=cfg.daily_budget,
                             process=cfg.process_id)
        fairplay = FairPlayService(store, hold=cfg.fair_play == "hold",
                                   analysis_nodes=cfg.fair_play_budget)
        daily.use_fairplay(fairplay)
        results = Results(store, races, fairplay)
        moderation = Moderation(store, fairplay, results)
        hints = HintService(store, races, budget_nodes=cfg.hint_budget)
        bots = BotService(store, races, process=cfg.process_id, delay_scale=cfg.bot_delay,
                          lease_seconds=cfg.bot_lease)
        accounts = AccountService(store, int(cfg.session_ttl))
        pool = PoolService(store, size=cfg.pool_size, budget_nodes=cfg.pool_budget,
                           wait=cfg.pool_wait, process=cfg.process_id)
        verdicts = VerdictService(store, races, budget_nodes=cfg.verdict_budget)
        arenas = ArenaService(store, races, fairplay)
        fairplay.on_decided.append(arenas.decided)
        moderation.on_ban.append(arenas.ban)
        knockouts = KnockoutService(store, races, int(cfg.knockout_show * 1000), fairplay)
        fairplay.on_decided.append(knockouts.decided)
        moderation.on_ban.append(knockouts.ban)
        trophies = TrophyService(store)
        moderation.on_ban.append(trophies.on_ban)  # after the arenas' standings are redone
        standings = StandingsFeed(store.tournaments.version, *knockout_view.feed(store))
        self.ctx = Context(cfg, store, hub, races, cfg.send_queue, cfg.quick_time_limit, daily,
                           hints, bots, accounts, pool, verdicts, fairplay,
                           moderation, arenas,
                           AnalysisService(store, races, per_hour=cfg.analyses_per_hour),
                           standings, knockouts, trophies=trophies)
        if cfg.daily_prepare >= 0:
            # certify upcoming dailies ahead of time, hourly, so nobody waits for the solver
            self._preparer = asyncio.create_task(upkeep.every(
                "daily preparation", lambda: daily.prepare(cfg.daily_prepare), 3600, first=10))
        if cfg.pool_prepare and cfg.pool_size > 0:
            # keep the winnable pools topped up, after the dailies' first round (they share the
            # machine's cores; a race that takes a seed refills its pool at once besides)
            self._pooler = asyncio.create_task(upkeep.every(
                "winnable pool preparation", pool.prepare, 60, first=15))
        # finished public tournaments made final: their podiums awarded as trophies
        self._finalizer = asyncio.create_task(upkeep.every(
            "making tournaments final", trophies.sweep, 60, first=5))
        # the operators' recurring tournaments (configured, or stored with the admin
        # command), created ahead of their start
        self._scheduler = asyncio.create_task(upkeep.every(
            "scheduling tournaments", lambda: arenas.schedule_all(cfg.arenas), 30))
        self.ws = await serve(
            self._handle,
            cfg.host,
            cfg.port,
            max_size=cfg.max_frame,
            ping_interval=cfg.ping_interval,
            ping_timeout=cfg.ping_interval,
            close_timeout=2,
            process_request=self._http,
            select_subprotocol=P.select_subprotocol,
        )
        # Set before the first await: no connection is served before the races know it.
        races.home = self.advertised
        await self._heartbeat()
        self._refresher = asyncio.create_task(self._refresh_spectators())
        log.info("solrace server %s listening on ws://%s:%d, advertising %s", cfg.process_id,
                 cfg.host, self.port, self.advertised or "no home URL")
        log.info("compiled modules: %s", accel.summary())

    @property
    def advertised(self) -> str:
        """The URL racers are told to find this process at when it is their race's home
        (docs/protocol.md section 8.1): ``--advertise-url``, else the listener's own; ""
        when there is none (``off``, or a wildcard listen address)."""
        if self.config.advertise_url is not None:
            return self.config.advertise_url
        return listener_url(self.config.host, self.port)

    async def _handle(self, ws: WsConnection) -> None:
        assert self.ctx is not None
        await Connection(ws, self.ctx).run()

    async def _http(self, conn: WsConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        method = getattr(request, "method", "GET")  # websockets < 14 parsed GET only
        if method not in ("GET", "HEAD"):  # the page, health and metrics are read-only
            resp = conn.respond(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n")
            resp.headers["Allow"] = "GET, HEAD"
            return resp
        if path == "/healthz":
            try:
                assert self.ctx is not None
                await asyncio.wait_for(self.ctx.store.ping(), 2)
            except Exception as exc:
                return conn.respond(HTTPStatus.SERVICE_UNAVAILABLE, f"redis: {exc}\n")
            return conn.respond(HTTPStatus.OK, "ok\n")
        if path == "/metrics":
            resp = conn.respond(HTTPStatus.OK, metrics.render())
            del resp.headers["Content-Type"]  # setting a Headers item adds, not replaces
            resp.headers["Content-Type"] = metrics.CONTENT_TYPE
            return resp
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None  # a websocket handshake, on any path
        asset = self.assets.get(path)
        if asset is None:
            return conn.respond(HTTPStatus.NOT_FOUND, "not found\n")
        body, kind = asset
        resp = conn.respond(HTTPStatus.OK, "")
        resp.body = body if method == "GET" else b""  # HEAD: the headers of a GET, no body
        del resp.headers["Content-Type"]
        del resp.headers["Content-Length"]
        resp.headers["Content-Type"] = kind
        resp.headers["Content-Length"] = str(len(body))
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    def _tick(self) -> float:
        """Seconds between two rounds of the periodic chores (see below)."""
        from solrace.server.fanout.feed import SPECTATOR_TTL_MS

        return min(SPECTATOR_TTL_MS / 3000, self.config.bot_lease / 2)

    async def _heartbeat(self) -> None:
        """This process is alive for three more ticks: quick pairing skips the waiting
        entries of a process whose heartbeat has lapsed (it died with its players)."""
        assert self.ctx is not None
        await self.ctx.store.heartbeat(self.config.process_id, int(3000 * self._tick()))

    async def _refresh_spectators(self) -> None:
        """Every 30 s: keep this process's spectator registrations alive (they expire if it
        dies), and end races whose time is up though no process holds their timer. Every tick
        (half of ``--bot-lease`` when that is shorter): renew this process's heartbeat,
        drive the bots of practice races whose driver has gone (crashed, or stopped), and
        advance the knockouts that need it (a start, a match's start window closing)."""
        from solrace.server.fanout.feed import SPECTATOR_TTL_MS

        period = SPECTATOR_TTL_MS / 3000
        tick = self._tick()
        loop = asyncio.get_running_loop()
        chores_at = loop.time() + period
        while True:
            await asyncio.sleep(tick)
            ctx = self.ctx
            assert ctx is not None
            await upkeep.quietly("heartbeat", self._heartbeat)
            await upkeep.quietly("bot sweep", ctx.bots.sweep)
            await upkeep.quietly("knockout sweep", ctx.knockouts.sweep)
            if loop.time() < chores_at - tick / 2:
                continue
            chores_at = loop.time() + period
            await upkeep.quietly("race sweep", ctx.races.sweep)
            await upkeep.quietly("verdict sweep", ctx.verdicts.sweep)
            if ctx.fairplay.analyses is not None:
                await upkeep.quietly("fair-play analysis sweep", ctx.fairplay.analyses.sweep)
            for rid, members in list(self.ctx.spectators.items()):
                if not members:
                    self.ctx.spectators.pop(rid, None)
                    continue
                try:
                    await self.ctx.store.refresh_spectators(rid, sorted(members), SPECTATOR_TTL_MS)
                except Exception as exc:
                    log.warning("spectator refresh failed: %s", exc)

    async def _drain(self, ws: WsServer) -> None:
        """Wait for the connection handlers to return after ``close()`` — at most
        ``STOP_DRAIN`` seconds: a handler still waiting then (a request whose await never
        completes) is logged with its stack and cancelled, so a stop always ends and says
        what held it, instead of hanging the process (and a test run) for ever."""
        try:
            async with asyncio.timeout(STOP_DRAIN):
                await ws.wait_closed()
            return
        except TimeoutError:
            pass
        except Exception:
            return
        stuck = [t for t in ws.handler_tasks if not t.done()]
        # the handler waits on its connection's worker: those stacks say what held it
        workers = [t for t in asyncio.all_tasks() if not t.done()
                   and getattr(t.get_coro(), "__qualname__", "").startswith("Connection.")]
        buf = io.StringIO()
        for task in workers:
            buf.write(f"{task.get_name()}:\n{_await_chain(task.get_coro())}")
        log.warning("stop: %d connection handler(s) had not returned %g s after the close; "
                    "cancelling them. Stacks of the connections' tasks:\n%s", len(stuck),
                    STOP_DRAIN, buf.getvalue())
        for task in stuck:
            task.cancel()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(STOP_DRAIN):
                await ws.wait_closed()

    async def stop(self) -> None:
        for task in (self._refresher, self._preparer, self._pooler, self._scheduler,
                     self._finalizer):
            if task is not None:
                task.cancel()
        if self.ws is not None:
            self.ws.close()
            await self._drain(self.ws)
        if self.ctx is not None:
            await self.ctx.bots.close()  # before the store closes: it releases its leases
            await self.ctx.daily.close()
            await self.ctx.pool.close()
            await self.ctx.verdicts.close()
            if self.ctx.fairplay.analyses is not None:
                await self.ctx.fairplay.analyses.close()
            await self.ctx.hints.close()
            await self.ctx.analyses.close()
            await self.ctx.standings.close()
            await self.ctx.races.close()
            await self.ctx.hub.close()
        if self.ctx is not None and self.ctx.store.replication is not None:
            await self.ctx.store.replication.close()
        if self.ctx is not None:
            self.ctx.store.batcher.close()
        if self.redis is not None:
            await self.redis.aclose()
        if self.pubsub_redis is not None:
            await self.pubsub_redis.aclose()
        if self.redis_proc is not None:
            await asyncio.to_thread(self.redis_proc.stop)
            log.info("embedded Redis stopped")


async def serve_forever(config: Config) -> None:
    server = Server(config)
    try:
        await server.start()
    except BaseException:
        await server.stop()  # an embedded Redis started before the failure stops with it
        raise
    print(f"solrace: listening on ws://{config.host}:{server.port}", flush=True)
    tune_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    log.info("event loop: %s.%s", type(loop).__module__, type(loop).__qualname__)
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await server.stop()


#: Allocations between young-generation collections (CPython's default: 700). A move allocates
#: a few hundred objects (the parsed request, the engine's move lists, the view delta, the ack)
#: that are freed by reference counting, not by the collector; at the default the collector
#: ran every few moves (docs/performance.md, "The collector").
GC_GEN0 = 50_000


def tune_gc() -> None:
    """Once the server is up: what it built at start-up (modules, tables, the engine's
    caches) is moved out of the collector's sight for good (``gc.freeze``), and young
    collections run less often. Reference cycles are still collected."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0, gen1, gen2)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["admin"]:  # the operator's role command (server/moderation/admin.py)
        from solrace.server.moderation import admin

        return admin.main(args[1:])
    config = Config.from_args(argv)
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    print(config.describe(), flush=True)
    busy = port_in_use(config.host, config.port)
    if busy:  # checked before an embedded Redis starts: nothing to undo
        print(f"solrace: cannot listen on {config.host}:{config.port}: {busy} (another "
              "server running? choose a port with --port)", file=sys.stderr)
        return 1
    if config.redis_url is None:
        print("solrace: no Redis URL given: starting an embedded Redis-protocol server "
              f"with append-only persistence in {config.data_dir / 'redis'}", flush=True)
    try:
        run_on(config.loop, serve_forever(config))
    except (RedisProcessError, OSError) as exc:
        print(f"solrace: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


def run_on(loop: str, main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` to the end on the named event loop: ``uvloop`` (the default where it can
    be imported, :data:`.config.DEFAULT_LOOP`) or ``asyncio``'s own. The server needs nothing
    of either but the :class:`asyncio.AbstractEventLoop` interface: its transports'
    ``set_protocol`` and ``get_extra_info("socket")`` (the batcher's wire, server/store/wire.py),
    ``add_signal_handler`` (the clean stop), ``to_thread`` (the embedded Redis)."""
    if loop == "uvloop":
        import uvloop  # a dependency on Linux; Config refuses "uvloop" where it is missing

        uvloop.run(main)
    else:
        asyncio.run(main)


def port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (None when it can; port 0 always can)."""
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError as exc:
        return str(exc)
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(addr)
            except OSError as exc:
                return exc.strerror or str(exc)
    return None
