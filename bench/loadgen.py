"""The load generator of ``bench/server.py``: N player connections in one process.

``bench/server.py`` forks one or more of these (:func:`child_main`) and talks to each over a
``multiprocessing`` pipe: the child sets up its connections and answers ``("ready", info)``;
the parent sends ``("go", t_go, warm_end, end)`` (wall-clock epochs shared by every child, so
several load generators measure the same window); the child plays until ``end`` and answers
``("result", {...})``. In ``idle`` mode it only holds connections open until ``("stop",)``.

Why a raw client and not :class:`solrace.client.Client`: the load generator shares the
machine's cores with the server, so every microsecond it spends is one the server does not
get. A connection here is a bare ``websockets`` socket with msgpack frames and one request in
flight: send, then read frames until the reply carrying our ``re`` (race events in between are
skipped). No reader task, no view deltas, no bookkeeping beyond the latency samples.

Why moves are precomputed: a random legal move costs the engine ~40 µs; computed inside the
measured window it would be load-generator CPU taken from the server. After a race is created
the child reads its secret seed from Redis (a benchmark privilege; real clients cannot), builds
an engine replica per player and draws each move uniformly from the replica's legal moves
(:class:`MoveSource`), enough for the window; if a connection runs out it draws more inline.
The server sees exactly the sequence a client uniformly choosing legal moves would send.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from typing import Any

import msgpack
from solrace.server.store import Keys
from solrace.server.store.connect import open_client
from solrace.shared.engine import Game
from solrace.shared.notation import Move
from solrace.shared.solver import Bot
from solrace.shared.status import Status, compute_status
from websockets.asyncio.client import ClientConnection, connect

VARIANT = "unlimited"
OPTIONS = {"draw": "1"}  # unlimited redeals, one card at a time: random play rarely ends a game
TIME_LIMIT = 7200  # seconds: no race ends on the clock during a benchmark
SETUP_CONCURRENCY = 32  # connections opened / races set up at once (a connection storm would
# measure the accept backlog, not the pipeline)
INLINE_CHUNK = 64  # moves drawn at once when a connection runs out of precomputed ones
FAKE_RACE = "0123456789abcdef"  # echo frames carry a race id of the real length
MOVE_ID_BASE = 1000  # move request ids start here, clear of the few setup requests
STEP_TIMEOUT = 30.0
# Errors after which the server applied nothing, so a client sends the same move again after
# an exponential back-off (10 ms, 20 ms, ... at most 0.5 s); any other error ends that
# connection's run. Both are counted and printed.
RETRY = frozenset({"unavailable", "rate_limited"})
RETRY_DELAY = 0.01
RETRY_MAX = 0.5  # seconds to wait for one reply before declaring the server stuck

_pack = msgpack.Packer(use_bin_type=True).pack


def _unpack(data: bytes | str) -> dict[str, Any]:
    obj = msgpack.unpackb(data, raw=False) if isinstance(data, bytes) else {}
    return obj if isinstance(obj, dict) else {}


def _messages(data: bytes | str) -> list[dict[str, Any]]:
    """The messages of one frame: a ``batch`` frame carries several (docs/protocol.md)."""
    obj = _unpack(data)
    if obj.get("t") == "batch":
        return obj["msgs"]
    return [obj]


#: Ask the server for batch frames (``hello`` field ``batch``); set per load generator from
#: its spec (``bench/server.py --frames``).
BATCH = True


class MoveSource:
    """One player's moves, as notation text: uniformly random legal moves among those that keep
    the game going (``player`` = ``"random"``; :meth:`_lasting`), or a practice bot's
    (``"weak"``, ``"medium"``, ``"strong"``: :class:`solrace.shared.solver.Bot`, playing like a
    person would — towards a win, so its games end, after which that connection stops
    sending).

    Random moves use the engine's index-triple fast path (``_legal``/``_do``): the same move
    generator and the same state change as ``Game.push``, without the notation round trip.
    """

    def __init__(self, variant: str, options: dict[str, str], seed: int, rng_seed: int,
                 player: str = "random") -> None:
        self.game = Game(variant, options, seed)
        self.rng = random.Random(rng_seed)
        self.bot = None if player == "random" else Bot(player, rng_seed)
        self.ids = self.game.layout.ids
        self.moves: list[str] = []

    def extend(self, count: int) -> int:
        """Draw up to ``count`` more moves; fewer when the game has none left (or the bot
        gives up)."""
        game, ids, out = self.game, self.ids, self.moves
        if self.bot is not None:
            for i in range(count):
                move = self.bot.choose(game)
                if move is None:
                    return i
                game.push(move)
                out.append(move.text())
            return count
        for i in range(count):
            triples = game._legal()
            if not triples:
                return i
            s, d, n = self._lasting(triples)
            out.append(Move(ids[s], ids[d], n).text())
        return count

    def _lasting(self, triples: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        """Apply and return a uniformly random legal move among those after which the game is
        still being played. Random play in Unlimited is proved lost by the server's status
        check after some hundreds of moves, and an ended game stops its connection: on a fast
        server a short window (the CI smoke run at N=1) could then measure nothing. A move
        that ends the game is taken only when every legal move would."""
        game, rng = self.game, self.rng
        left = list(triples)
        while True:
            move = left.pop(rng.randrange(len(left)))
            ops = game._do(*move)
            if not left or compute_status(game) is Status.PLAYING:
                return move
            game._revert(ops)


class Peer:
    """One raw websocket connection with one request in flight at a time."""

    __slots__ = ("backlog", "ids", "token", "ws")

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.backlog: list[dict[str, Any]] = []  # unsolicited frames seen during setup
        self.token: str | None = None  # the session's, from the welcome

    @classmethod
    async def open(cls, url: str) -> Peer:
        ws = await connect(url, compression=None, proxy=None, ping_interval=None,
                           max_size=1 << 22, open_timeout=30)
        return cls(ws)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request and return its reply, keeping unrelated frames in :attr:`backlog`."""
        rid = next(self.ids)
        await self.ws.send(_pack({"t": kind, "id": rid, **fields}))
        async with asyncio.timeout(STEP_TIMEOUT):
            while True:
                for msg in _messages(await self.ws.recv()):
                    if msg.get("re") == rid:
                        return msg
                    self.backlog.append(msg)

    async def expect(self, kind: str, **fields: Any) -> dict[str, Any]:
        reply = await self.request(kind, **fields)
        if reply.get("t") == "error":
            raise RuntimeError(f"{kind}: {reply.get('code')}: {reply.get('reason')}")
        return reply

    async def wait_event(self, k: str, timeout: float = 15.0) -> dict[str, Any]:
        for msg in self.backlog:
            if msg.get("t") == "event" and msg.get("k") == k:
                self.backlog.clear()
                return msg
        async with asyncio.timeout(timeout):
            while True:
                for msg in _messages(await self.ws.recv()):
                    if msg.get("t") == "event" and msg.get("k") == k:
                        self.backlog.clear()
                        return msg

    async def drain(self, tally: Tally) -> None:
        """Read and drop every frame (an idle partner must still read its rival's events, or
        the server would eventually drop it as too slow)."""
        with contextlib.suppress(Exception):
            async for data in self.ws:
                tally.frames += 1
                tally.msgs += len(_messages(data))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)


@dataclass
class Player:
    """An active racer: its connection, its race and its move supply."""

    peer: Peer
    race: str = ""
    source: MoveSource | None = None
    seq: int = 0


@dataclass
class Tally:
    """What one child measured inside the window (and a little outside it)."""

    count: int = 0  # replies completed inside the window
    lat_us: list[int] = field(default_factory=list)  # requests sent and answered in the window
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0  # games that ended (won/lost) during the run
    endings: Counter[str] = field(default_factory=Counter)  # how they ended
    exhausted: int = 0  # connections that hit moves_per_conn
    inline: int = 0  # moves drawn inside the run because the precomputed ones ran out
    total: int = 0  # replies completed over the whole run (warm-up included)
    frames: int = 0  # frames received over the whole run, replies and race events
    msgs: int = 0  # messages in those frames (a batch frame carries several)

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count, "lat_us": self.lat_us, "errors": dict(self.errors),
            "finished": self.finished, "endings": dict(self.endings),
            "exhausted": self.exhausted, "inline": self.inline, "total": self.total,
            "frames": self.frames, "msgs": self.msgs,
        }  # fmt: skip


# ----------------------------------------------------------------------------- setup


async def _bounded(coros: list[Any], limit: int = SETUP_CONCURRENCY) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with sem:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


async def _hello(url: str, name: str | None) -> Peer:
    peer = await Peer.open(url)
    fields: dict[str, Any] = {"v": 1}
    if name is not None:
        fields["name"] = name
    if BATCH:
        fields["batch"] = True
    peer.token = (await peer.expect("hello", **fields)).get("token")
    return peer


async def _move_home(peer: Peer, url: str, race: str) -> Peer:
    """What a client following a race's home does (docs/protocol.md section 8.1): a new
    connection to ``url``, ``hello`` with the session's token, ``sync`` of the race (which
    attaches it), then the old connection closes."""
    moved = await Peer.open(url)
    fields: dict[str, Any] = {"v": 1, "token": peer.token}
    if BATCH:
        fields["batch"] = True
    await moved.expect("hello", **fields)
    moved.token = peer.token
    await moved.expect("sync", race=race, since=0)
    await peer.close()
    return moved


async def _idle(url: str, name: str, echo: bool) -> Peer:
    """A connection that said hello (solrace) or had one frame echoed (echo), then idles."""
    if not echo:
        return await _hello(url, name)
    peer = await Peer.open(url)
    await peer.ws.send(_pack({"t": "hello", "id": 1, "v": 1, "name": name}))
    await peer.ws.recv()
    return peer


async def _lobby(url_a: str, url_b: str, name_a: str, name_b: str, follow: bool
                 ) -> tuple[Peer, Peer, str, bool]:
    """Two hello'd connections in one 2-seat race (created by A, joined by code by B); with
    ``follow``, B moves to the race's home when the join's reply names one. The last item
    says whether B moved."""
    a = await _hello(url_a, name_a)
    b = await _hello(url_b, name_b)
    created = await a.expect("race.create", variant=VARIANT, options=OPTIONS, seats=2,
                             time_limit=TIME_LIMIT)
    race = created["race"]
    joined = await b.expect("race.join", code=race["code"])
    home = joined["race"].get("home")
    if follow and home:
        return a, await _move_home(b, home, race["race"]), race["race"], True
    return a, b, race["race"], False


async def _start(a: Peer, b: Peer, race: str) -> None:
    await a.expect("race.ready", race=race)
    await b.expect("race.ready", race=race)
    await a.wait_event("start")
    await b.wait_event("start")


async def setup_race(
    spec: dict[str, Any],
) -> tuple[list[Player], list[Peer], list[tuple[Peer, str]]]:
    """Connections paired into running races; returns (active players, idle partners, every
    connection with its race)."""
    active: int = spec["active"]
    urls: list[str] = spec["urls"]
    prefix: str = spec["name_prefix"]
    pairs = (active + 1) // 2
    # Race i is created through process i mod K and joined through the next one, as a load
    # balancer going round the processes would place them: the creators spread evenly and
    # (K > 1) every joiner lands away from the race's home. ``follow_home``: the joiner moves
    # there, as the reference client does; else it stays (delivery across processes).
    k, follow = len(urls), bool(spec.get("follow_home"))
    moved = await _bounded([
        _lobby(urls[i % k], urls[(i + 1) % k], f"{prefix}a{i}", f"{prefix}b{i}", follow)
        for i in range(pairs)
    ])  # fmt: skip
    spec["moved"] = sum(m for *_, m in moved)
    lobbies = [(a, b, race) for a, b, race, _ in moved]
    players: list[Player] = []
    idle: list[Peer] = []
    for i, (a, b, race) in enumerate(lobbies):
        players.append(Player(a, race))
        if 2 * i + 1 < active:
            players.append(Player(b, race))
        else:
            idle.append(b)  # N odd: the last race gets a partner that never moves
    # The secret seeds, read straight from Redis (the benchmark's privilege), in one round trip.
    r = open_client(spec["redis_url"])  # one Redis or a cluster
    try:
        async with r.pipeline(transaction=False) as p:
            for _, _, race in lobbies:
                p.hmget(Keys.race(race), "variant", "options", "seed")
            metas = await p.execute()
    finally:
        await r.aclose()
    seeds = {}
    for (_, _, race), (variant, options, seed) in zip(lobbies, metas):
        opts = dict(kv.split("=", 1) for kv in options.decode().split(",") if kv)
        seeds[race] = (variant.decode(), opts, int(seed))
    rng = random.Random(spec["rng_seed"])
    for pl in players:
        variant, opts, seed = seeds[pl.race]
        pl.source = MoveSource(variant, opts, seed, rng.getrandbits(64),
                               spec.get("player", "random"))
        pl.source.extend(spec["prefill"])
        await asyncio.sleep(0)  # let pings and the like through between long draws
    await _bounded([_start(a, b, race) for a, b, race in lobbies])
    # One move per player before the window: the server's per-game caches (the game rebuilt
    # from its log, the race's fixed facts) fill on a game's first move; at N=1000 those first
    # moves would otherwise fall inside a short window and be measured as steady state.
    await _bounded([_first_move(pl) for pl in players])
    seats = [(p, race) for a, b, race in lobbies for p in (a, b)]
    return players, idle, seats


async def _first_move(pl: Player) -> None:
    assert pl.source is not None
    if not pl.source.moves:
        return
    reply = await pl.peer.expect("move", race=pl.race, seq=0, move=pl.source.moves[0])
    pl.seq = int(reply["seq"])
    pl.peer.backlog.clear()


async def setup_echo(spec: dict[str, Any]) -> list[Peer]:
    return await _bounded([Peer.open(spec["urls"][i % len(spec["urls"])])
                           for i in range(spec["active"])])


# ----------------------------------------------------------------------------- the window


async def play_race(pl: Player, tally: Tally, warm: float, end: float, limit: int) -> None:
    """Send a move, wait for its ack; repeat until ``end`` or ``limit`` moves or game over."""
    ws, race, src = pl.peer.ws, pl.race, pl.source
    assert src is not None
    moves, clock, lat = src.moves, time.perf_counter, tally.lat_us
    send, recv = ws.send, ws.recv
    seq = pl.seq
    failures = 0  # consecutive retryable errors: the back-off doubles with each
    while seq < limit:
        if seq >= len(moves):
            got = src.extend(INLINE_CHUNK)
            tally.inline += got
            if not got:
                break
        rid = MOVE_ID_BASE + seq
        frame = _pack({"t": "move", "id": rid, "race": race, "seq": seq, "move": moves[seq]})
        t0 = clock()
        if t0 >= end:
            break
        await send(frame)
        msg = None
        while msg is None:
            tally.frames += 1
            got = _messages(await recv())
            tally.msgs += len(got)
            for m in got:
                if m.get("re") == rid:
                    msg = m
        t1 = clock()
        if msg.get("t") != "ack":
            code = str(msg.get("code"))
            tally.errors[code] += 1
            if code in RETRY and t1 < end:  # nothing was applied: back off, send it again
                await asyncio.sleep(min(RETRY_MAX, RETRY_DELAY * 2**failures))
                failures += 1
                continue
            break
        failures = 0
        tally.total += 1
        if warm <= t1 <= end:
            tally.count += 1
            if t0 >= warm:
                lat.append(int((t1 - t0) * 1e6))
        seq = int(msg.get("seq", seq + 1))  # a retried move may come back as a duplicate
        status = msg.get("status", "playing")
        if status != "playing":
            tally.finished += 1
            tally.endings[f"{status} after {seq} moves"] += 1
            break
    else:
        tally.exhausted += 1
    pl.seq = seq


async def play_echo(peer: Peer, tally: Tally, warm: float, end: float, limit: int) -> None:
    """The same loop against the echo server, with frames built the same way (same size)."""
    ws, clock, lat = peer.ws, time.perf_counter, tally.lat_us
    send, recv = ws.send, ws.recv
    seq = 0
    while seq < limit:
        frame = _pack({"t": "move", "id": MOVE_ID_BASE + seq, "race": FAKE_RACE, "seq": seq,
                       "move": "t3t5"})
        t0 = clock()
        if t0 >= end:
            break
        await send(frame)
        await recv()
        t1 = clock()
        tally.total += 1
        if warm <= t1 <= end:
            tally.count += 1
            if t0 >= warm:
                lat.append(int((t1 - t0) * 1e6))
        seq += 1
    else:
        tally.exhausted += 1


# ----------------------------------------------------------------------------- child process


async def _recv(pipe: Pipe) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, pipe.recv)


def _to_perf(epoch: float) -> float:
    return time.perf_counter() + (epoch - time.time())


async def _main(pipe: Pipe, spec: dict[str, Any]) -> None:
    global BATCH
    BATCH = spec.get("batch", True)
    mode = spec["mode"]
    started = time.perf_counter()
    players: list[Player] = []
    idle: list[Peer] = []
    seats: list[tuple[Peer, str]] = []
    if mode == "race":
        players, idle, seats = await setup_race(spec)
        everyone = [p for p, _ in seats]
    elif mode == "echo":
        everyone = await setup_echo(spec)
    elif mode == "idle":
        urls, prefix = spec["urls"], spec["name_prefix"]
        everyone = await _bounded([_idle(urls[i % len(urls)], f"{prefix}i{i}", spec["echo"])
                                   for i in range(spec["active"])])
    else:
        raise ValueError(f"unknown mode {mode!r}")
    pipe.send(("ready", {"conns": len(everyone), "setup_s": time.perf_counter() - started,
                         "moved": spec.get("moved", 0)}))
    command = await _recv(pipe)
    if mode == "idle":
        await _bounded([p.close() for p in everyone], 200)
        pipe.send(("done", {}))
        return
    _, t_go, warm_epoch, end_epoch = command
    await asyncio.sleep(max(0.0, t_go - time.time()))
    warm, end = _to_perf(warm_epoch), _to_perf(end_epoch)
    tally = Tally()
    limit = spec["moves_per_conn"]
    drains = [asyncio.create_task(p.drain(tally)) for p in idle]
    if mode == "race":
        await asyncio.gather(*(play_race(p, tally, warm, end, limit) for p in players))
    else:
        await asyncio.gather(*(play_echo(p, tally, warm, end, limit) for p in everyone))
    result = tally.as_dict()
    result["conns"] = len(everyone)
    for t in drains:
        t.cancel()
    await asyncio.gather(*drains, return_exceptions=True)
    if seats:  # leave the server clean: every race ends and its games leave the cache
        with contextlib.suppress(Exception):
            await asyncio.wait_for(_bounded([_resign(p, race) for p, race in seats]), 30)
    await _bounded([p.close() for p in everyone], 200)
    pipe.send(("result", result))


async def _resign(peer: Peer, race: str) -> None:
    with contextlib.suppress(Exception):
        await peer.request("resign", race=race)


def child_main(pipe: Pipe, spec: dict[str, Any]) -> None:
    """Entry point of a forked load-generator process."""
    try:
        asyncio.run(_main(pipe, spec))
    except BaseException:
        with contextlib.suppress(Exception):
            pipe.send(("error", traceback.format_exc()))
        raise
