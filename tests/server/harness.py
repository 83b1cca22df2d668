"""Test harness for the race server with real everything: Redis, websockets, processes.

Imported as ``harness`` (``tests/server`` has no ``__init__.py``, so pytest puts it on
``sys.path``). What it offers, and why:

* :func:`make_config` / :func:`running_server`: an in-process :class:`Server` on a free port
  with a short countdown. In-process servers are cheap (no interpreter start-up), so most
  tests use them.
* :class:`ServerProcess`: ``python -m solrace.server`` as a real child process, for the tests
  that must SIGKILL a server and resume on another one. The port comes from the
  ``solrace: listening on ws://HOST:PORT`` line the server prints.
* :func:`race_info` / :func:`replica`: the seed and settings of a race read from Redis. Real
  clients cannot do this (the seed is secret until the end); tests may, to build an engine
  :class:`Game` that mirrors each racer's game, pick legal moves and check every ack.
* :class:`Racer`: a client, its race and its replica; :meth:`Racer.step` plays one move
  chosen by :func:`choose_move` and checks that the client's board (start view plus the
  acks' deltas) equals the replica's view after every move.
* :class:`AccountClient` / :func:`accounts`: clients that register their guest name as an
  account on first connect — what every test of ranked play uses.
* :class:`RecordingClient`: a :class:`Client` that records every race event frame as it
  arrives, before the library's de-duplication, so tests can see a duplicate or a gap.
* :class:`RawConnection`: a bare websocket speaking msgpack, for malformed input and requests
  before ``hello`` (the library always says hello first).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import redis.asyncio as aredis
from solrace.client.library import Client
from solrace.server.fanout.hub_sharded import ShardedHub
from solrace.server.ops.app import Server
from solrace.server.ops.config import Config
from solrace.server.ops.redisproc import _spawn
from solrace.server.store import Keys
from solrace.server.store.connect import is_cluster_url, open_cluster
from solrace.shared import protocol as P
from solrace.shared.engine import Game
from solrace.shared.notation import Move
from solrace.shared.prng import commitment
from solrace.shared.views import view_of
from websockets.asyncio.client import ClientConnection, connect

SECRET = "test-secret-0123456789abcdef"
COUNTDOWN = 0.2  # seconds: short, but long enough to see the countdown event first
LISTENING = re.compile(r"solrace: listening on ws://(?P<host>[^:\s]+):(?P<port>\d+)")
VARIANT_NAMES = (
    "sixes-and-sevens", "seven-by-five", "double-aces-and-kings", "unlimited", "forty-and-eight",
)  # fmt: skip


# ----------------------------------------------------------------------------- in-process


def make_config(redis_url: str, **overrides: Any) -> Config:
    """A test configuration: loopback, any free port, short countdown, quiet logs."""
    values: dict[str, Any] = {
        "secret": SECRET, "host": "127.0.0.1", "port": 0, "redis_url": redis_url,
        "countdown": COUNTDOWN, "log_level": "WARNING", "daily_prepare": -1,
        # no solver work nobody asked for: pools fill on demand, verdicts only where a test
        # turns them on (each is a worker process and seconds of CPU per race)
        "pool_prepare": 0, "verdict_budget": 0, "fair_play_budget": 2_000,
        # machine-speed test clients: scores kept, nothing held (tests/conftest.py)
        "fair_play": os.environ.get("SOLRACE_FAIR_PLAY", "hold"),
    }  # fmt: skip
    values.update(overrides)
    return Config(**values)


def ws_url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}"


def http_url(server: Server, path: str) -> str:
    return f"http://127.0.0.1:{server.port}{path}"


@contextlib.asynccontextmanager
async def running_server(redis_url: str, **overrides: Any) -> AsyncIterator[Server]:
    """An in-process server for the duration of the block (stopped even when the test fails)."""
    server = Server(make_config(redis_url, **overrides))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def password_for(name: str) -> str:
    """The password test accounts get (long enough for the rules, not the name)."""
    return f"pw-{name}-0123456789"


class AccountClient(Client):
    """A client playing as an account, for tests of ranked play (rated races, the ranked
    daily, leaderboards, ratings: guests get ``account_required``). Its first connect says
    hello as a guest named ``name`` and registers that guest (``password_for(name)``), the way
    a player upgrades; later connects resume the account's token."""

    async def connect(self) -> dict[str, Any]:
        if self.token is not None or self.name is None:
            return await super().connect()
        await super().connect()
        await self.register(password_for(self.name))
        return self.welcome


@contextlib.asynccontextmanager
async def accounts(url: str, *names: str) -> AsyncIterator[list[Any]]:
    """:func:`clients` that are accounts (:class:`AccountClient`)."""
    async with clients(url, *names, cls=AccountClient) as out:
        yield out


@contextlib.asynccontextmanager
async def clients(url: str, *names: str, cls: type[Client] = Client) -> AsyncIterator[list[Any]]:
    """Connected clients (said hello) with the given names, closed at the end."""
    out: list[Client] = []
    try:
        for name in names:
            c = cls(url, name=name)
            await c.connect()
            out.append(c)
        yield out
    finally:
        for c in out:
            with contextlib.suppress(Exception):
                await c.close()


# ----------------------------------------------------------------------------- subprocess


class ServerProcess:
    """``python -m solrace.server`` as a child process sharing a given Redis.

    Started with ``--port 0`` and a short countdown; :meth:`start` waits for the
    ``listening`` line on stdout and takes the port from it. stdout is drained by a thread
    (a pipe nobody reads could fill and block the server); stderr goes to a log file that
    :meth:`log` returns for failure messages.
    """

    def __init__(self, redis_url: str, data_dir: Path, *extra: str, name: str = "server") -> None:
        self.redis_url = redis_url
        self.data_dir = Path(data_dir)
        self.extra = extra
        self.name = name
        self.proc: subprocess.Popen[bytes] | None = None
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.stdout_lines: list[str] = []
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()

    @property
    def url(self) -> str:
        assert self.port is not None, "not started"
        return f"ws://{self.host}:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / f"{self.name}.stderr"

    def argv(self) -> list[str]:
        return [
            sys.executable, "-m", "solrace.server",
            "--host", "127.0.0.1", "--port", "0", "--redis-url", self.redis_url,
            "--data-dir", str(self.data_dir), "--secret", SECRET,
            "--countdown", str(COUNTDOWN), "--log-level", "INFO",
            "--process-id", f"{self.name}-{os.getpid()}",
            "--pool-prepare", "0", "--verdict-budget", "0",  # as make_config; extra may override
            "--fair-play", os.environ.get("SOLRACE_FAIR_PLAY", "hold"),  # as make_config
            *self.extra,
        ]  # fmt: skip

    def start(self, timeout: float = 20.0) -> ServerProcess:
        """Spawn and wait for the listening line (blocking: call via ``asyncio.to_thread``)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env = {k: v for k, v in env.items() if not k.startswith("SOLRACE_")}
        with self.log_path.open("ab") as err:
            self.proc = _spawn(self.argv(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=err, env=env, cwd=self.data_dir)
        threading.Thread(target=self._drain, daemon=True, name=f"{self.name}-stdout").start()
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise RuntimeError(f"{self.name} printed no listening line in {timeout}s\n"
                                   + self.log()) from None
            if line is None:
                code = self.proc.wait()
                raise RuntimeError(f"{self.name} exited with {code} before listening\n"
                                   + "\n".join(self.stdout_lines) + "\n" + self.log())
            match = LISTENING.search(line)
            if match:
                self.host, self.port = match["host"], int(match["port"])
                return self

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            self.stdout_lines.append(line)
            self._lines.put(line)
        self._lines.put(None)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash would: no cleanup, no goodbye to clients."""
        self._signal(signal.SIGKILL)

    def terminate(self, timeout: float = 10.0) -> int | None:
        """SIGTERM (a clean stop); SIGKILL when it lingers. Returns the exit code."""
        return self._signal(signal.SIGTERM, timeout)

    def _signal(self, sig: signal.Signals, timeout: float = 10.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def log(self) -> str:
        try:
            return f"--- {self.name} stderr ---\n" + self.log_path.read_text(errors="replace")
        except OSError:
            return f"--- {self.name}: no stderr log ---"


@contextlib.asynccontextmanager
async def two_processes(redis_url: str, tmp_path: Path, *extra: str
                        ) -> AsyncIterator[list[ServerProcess]]:
    """Two server subprocesses ("one", "two") on one Redis, with ``extra`` flags each."""
    procs = [ServerProcess(redis_url, tmp_path / name, *extra, name=name)
             for name in ("one", "two")]
    try:
        await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
        yield procs
    finally:
        for p in procs:
            await asyncio.to_thread(p.terminate)


# ----------------------------------------------------------------------------- peeking


@dataclass(frozen=True)
class RaceSecrets:
    """What Redis knows about a race that clients learn only at the end (or never)."""

    variant: str
    options: dict[str, str]
    seed: int
    commitment: str

    def game(self) -> Game:
        return Game(self.variant, self.options, self.seed)


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


def redis_client(redis_url: str, decode: bool = False) -> Any:
    """A client of the test's Redis: a plain one, or a RedisCluster for redis+cluster://."""
    if is_cluster_url(redis_url):
        return open_cluster(redis_url, decode_responses=decode)
    return aredis.Redis.from_url(redis_url, decode_responses=decode)


async def tournament_meta(redis_url: str, tid: str) -> dict[str, str]:
    """A tournament's stored record (its hash in Redis), as the server wrote it."""
    r = redis_client(redis_url, decode=True)
    try:
        return await r.hgetall(f"sr:t:{{t:{tid}}}")
    finally:
        await r.aclose()


async def channel_subscribers(redis_url: str, channel: str) -> int:
    """Subscribers of a race or player channel: ``PUBSUB NUMSUB`` on one Redis, ``PUBSUB
    SHARDNUMSUB`` on the master owning the channel's slot in a cluster (sharded pub/sub)."""
    r = redis_client(redis_url)
    try:
        if is_cluster_url(redis_url):
            await r.initialize()
            node = r.get_node_from_key(channel)  # the slot's master, where the hub subscribes
            reply = await r.execute_command("PUBSUB SHARDNUMSUB", channel, target_nodes=node)
            return int(reply[0][1])
        return int((await r.pubsub_numsub(channel))[0][1])
    finally:
        await r.aclose()


async def hub_drop_silently(hub: Any, channel: str) -> None:
    """Unsubscribe the hub's pub/sub from ``channel`` behind the hub's back (it still thinks
    it listens), as a dropped subscription would."""
    async with hub._lock:
        if isinstance(hub, ShardedHub):
            shard = hub._where[channel]
            shard.leaving.add(channel)  # so the shard does not re-route it as a moved slot
            await shard.pubsub.sunsubscribe(channel)
        else:
            await hub._pubsub.unsubscribe(channel)


async def hub_resubscribe(hub: Any, channel: str) -> None:
    """Undo :func:`hub_drop_silently`."""
    async with hub._lock:
        if isinstance(hub, ShardedHub):
            await hub._where[channel].pubsub.ssubscribe(channel)
        else:
            await hub._pubsub.subscribe(channel)


async def race_info(redis_url: str, rid: str) -> RaceSecrets:
    """The race's variant, options and secret seed, read straight from Redis (test privilege)."""
    r = redis_client(redis_url)
    try:
        meta = {_text(k): _text(v) for k, v in (await r.hgetall(Keys.race(rid))).items()}
    finally:
        await r.aclose()
    assert meta, f"race {rid} is not in Redis"
    options = dict(kv.split("=", 1) for kv in meta["options"].split(",") if kv)
    info = RaceSecrets(meta["variant"], options, int(meta["seed"]), meta["commitment"])
    assert commitment(info.seed) == info.commitment, "the stored commitment is not sha256(seed)"
    return info


async def replica(redis_url: str, rid: str) -> Game:
    """A fresh engine game of the race's deal (the seed read from Redis)."""
    return (await race_info(redis_url, rid)).game()


async def read_log(redis_url: str, rid: str, pid: str) -> list[str]:
    """A racer's durable move log."""
    r = redis_client(redis_url)
    try:
        return [_text(x) for x in await r.lrange(Keys.log(rid, pid), 0, -1)]
    finally:
        await r.aclose()


async def redis_hset(redis_url: str, key: str, **values: Any) -> None:
    r = redis_client(redis_url)
    try:
        await r.hset(key, mapping=values)
    finally:
        await r.aclose()


def choose_move(game: Game, seen: set[str] | None = None, *,
                keep_playing: bool = False) -> Move | None:
    """A legal move for a test racer: greedy, deterministic, avoiding positions already seen.

    Prefers a card home, then a move that turns up a card or empties a pile, then anything
    that reaches a new position (a draw before a redeal). Never takes a card back off a
    foundation. ``None`` when every move leads somewhere already seen (the racer should resign
    rather than loop). ``keep_playing``: also avoid moves after which the game is over (a
    random deal can be lost within a few moves, e.g. draw 3 when a waste card is played, and a
    test that goes on playing and resigning needs the game to last).
    """
    seen = set() if seen is None else seen
    best: tuple[int, int] | None = None
    choice: Move | None = None
    home, hidden = game.cards_home, sum(game.pos.down)
    for i, move in enumerate(game.legal_moves()):
        if move.src.startswith("f"):
            continue
        game.push(move)
        try:
            text = game.position_text()
            if text in seen or (keep_playing and game.is_over()):
                continue
            if game.cards_home > home:
                score = 0
            elif sum(game.pos.down) < hidden:
                score = 1
            elif move.src == "s":
                score = 3
            elif move.src == "w" and move.dst == "s":
                score = 4
            else:
                score = 2
        finally:
            game.pop()
        if best is None or (score, i) < best:
            best, choice = (score, i), move
    return choice


# ----------------------------------------------------------------------------- clients


class RecordingClient(Client):
    """A client that records every race event frame it receives, duplicates included."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raw_events: list[dict[str, Any]] = []

    def _on_event(self, msg: dict[str, Any]) -> None:
        self.raw_events.append(msg)
        super()._on_event(msg)

    async def _batch(self, race: str, kind: str, seq: int | None, **fields: Any
                     ) -> dict[str, Any]:
        ack = await super()._batch(race, kind, seq, **fields)
        if "v" in ack:
            self.acked_versions.append((race, ack["v"]))
        return ack

    @property
    def acked_versions(self) -> list[tuple[str, int]]:
        return self.__dict__.setdefault("_acked", [])

    def versions_seen(self, race: str) -> list[int]:
        """Event versions received, in arrival order (own moves' progress events are not sent
        to the connection that moved: its acks carry those versions)."""
        return [e["v"] for e in self.raw_events if e.get("race") == race]

    def versions_covered(self, race: str) -> list[int]:
        """Versions received as events or acks, sorted."""
        acked = {v for r, v in self.acked_versions if r == race}
        return sorted(set(self.versions_seen(race)) | acked)


@dataclass
class Racer:
    """One real client playing one race, checked move by move against an engine replica."""

    client: Client
    race: str
    game: Game
    seen: set[str] = field(default_factory=set)
    acks: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seen.add(self.game.position_text())

    @property
    def seq(self) -> int:
        return len(self.game.moves)

    @property
    def over(self) -> bool:
        return bool(self.acks) and self.acks[-1]["status"] in ("won", "lost")

    def board_matches(self) -> None:
        board = self.client.boards[self.race]
        assert board["seq"] == self.seq, (board["seq"], self.seq)
        assert board["view"] == view_of(self.game).wire(), "client board != engine replica"

    async def step(self) -> dict[str, Any] | None:
        """Play one chosen move; the ack must match the replica. None when no move is left."""
        move = choose_move(self.game, self.seen)
        if move is None:
            return None
        ack = await self.client.move(self.race, move.text())
        self.game.push(move)
        self.seen.add(self.game.position_text())
        assert ack["seq"] == self.seq, ack
        assert ack["status"] == self.game.status.value, (ack["status"], self.game.status)
        self.board_matches()
        self.acks.append(ack)
        return ack

    async def play(self, max_moves: int) -> int:
        """Up to ``max_moves`` moves, stopping when the game is over or stuck; moves made."""
        made = 0
        while made < max_moves and not self.over:
            if await self.step() is None:
                break
            made += 1
        return made


async def start_race(
    url: str, redis_url: str, variant: str, names: Iterable[str], *,
    options: dict[str, str] | None = None, time_limit: int = 600, cls: type[Client] = Client,
) -> tuple[list[Client], dict[str, Any]]:
    """Create a race with the first client, the others join by code, all ready; returns the
    clients (connected; the caller closes them) and the race summary, once every client has
    the start event."""
    names = list(names)
    cs: list[Client] = []
    for name in names:
        c = cls(url, name=name)
        await c.connect()
        cs.append(c)
    summary = await cs[0].create_race(variant, options, seats=len(cs), time_limit=time_limit)
    for c in cs[1:]:
        await c.join(code=summary["code"])
    for c in cs:
        await c.ready(summary["race"])
    for c in cs:
        await c.wait_running(summary["race"])
    return cs, summary


async def close_all(cs: Iterable[Client]) -> None:
    for c in cs:
        with contextlib.suppress(Exception):
            await c.close()


# ----------------------------------------------------------------------------- standings


def documented_order_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The standings rule as documented: winners by finish time; then the rest by cards home
    (more first), earlier last progress (none: last), more moves; then seat order."""
    if row["result"] == "won":
        return (0, row["elapsed"], row["seat"])
    progress = row["progress_at"] if row["progress_at"] is not None else float("inf")
    return (1, -row["home"], progress, -row["moves"], row["seat"])


def check_standings(rows: list[dict[str, Any]]) -> None:
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1)), rows
    assert rows == sorted(rows, key=documented_order_key), f"standings out of order: {rows}"


# ----------------------------------------------------------------------------- raw frames


class RawConnection:
    """A bare websocket to the server: send any frame, read decoded replies."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = 0
        self.check = True  # every frame read is checked against the declared shapes

    @classmethod
    async def open(cls, url: str, **kwargs: Any) -> RawConnection:
        return cls(await connect(url, compression=None, open_timeout=10, **kwargs))

    async def send(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def send_many(self, frames: list[bytes]) -> None:
        """Pipeline ``frames`` back to back, without waiting for any reply."""
        for frame in frames:
            await self.ws.send(frame)

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(frame, bytes), f"the server sent a text frame: {frame!r}"
        msg = msgpack.unpackb(frame, raw=False)
        if self.check:
            P.check_message(msg)  # every frame as declared (shared/protocol/replies.py)
        return msg

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh id and return its reply (events in between skipped)."""
        self._ids += 1
        rid = self._ids
        await self.send(P.encode({"t": kind, "id": rid, **fields}))
        async with asyncio.timeout(5):
            while True:
                msg = await self.recv()
                if msg.get("re") == rid:
                    return msg

    async def hello(self, name: str) -> dict[str, Any]:
        reply = await self.request("hello", v=P.PROTOCOL_VERSION, name=name)
        assert reply["t"] == "welcome", reply
        return reply

    async def close(self) -> None:
        await self.ws.close()
