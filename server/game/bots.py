"""Practice races against server bots: who the bots are, and the driver that plays for them.

A ``practice.start`` request makes a race of kind ``practice`` (never rated, ranked or
watchable; see :mod:`solrace.server.game.results` and ``docs/protocol.md`` 5.18) whose seats are the
caller plus 0–7 bots of :mod:`solrace.shared.solver.bots`. Bots read the engine's full position,
face-down cards and stock order included: that is why they only ever sit in practice races.

**Who they are.** A bot is a racer like any other — a player id, a display name, a move log, a
row in the standings — so every rule applies to it unchanged. Its id is ``bot-`` and 12 hex
digits: a real player id is 16 hex digits (``secrets.token_hex(8)`` at hello), so the two can
never collide. Names say the strength: ``strong bot``, then ``strong bot 2`` for a second one of
the same strength. The race meta's ``bots`` field maps each bot id to its strength.

**How they play.** A bot's moves go through :meth:`RaceService.move` / ``resign`` exactly like a
human's (same validation, same durable append, same events), one move at a time after a think
delay (``--bot-delay`` scales :data:`THINK`). The move is chosen from the bot's game as the
server holds it, rebuilt from plain data (variant, options, seed, move texts): weak and medium
bots choose in a thread (a few ms), strong bots — a solver search of up to 5 000 nodes, up to a
second or two of CPU — in a spawn worker process, so that no choice stalls the event loop. A
bot that gives up (``Bot.choose`` returns None) resigns.

**Who drives them.** Redis is the source of truth and any process can drive any race's bots,
but only one at a time: the driver holds the race's lease (``sr:race:{<rid>}:botlease``, SET NX
PX, owner = the process id), renews it every third of ``--bot-lease`` and stops as soon as a
renewal fails (the lease ran out and another process took it, or the race ended and the lease
was deleted). The process that starts a race drives its bots; ``sr:bots`` lists the races whose
bots still play, scored by when their lease runs out, and every process's periodic sweep
(:meth:`BotService.sweep`) takes the lease of those due — so after a crash another process
carries on within about ``--bot-lease``, from the move logs. Two drivers for one race can overlap
only for the moment it takes the old one to notice its lost lease; the move script's sequence
check makes at most one of two concurrent moves land, and the other driver reloads the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from redis.exceptions import RedisError
from solrace.server.game.lifecycle import UNDERWAY, Gate, is_over, move_gate
from solrace.server.game.races import Player, RaceInfo, RaceService
from solrace.server.game.worker import BrokenProcessPool, Worker
from solrace.server.store import RaceRecord, Store
from solrace.shared.engine import Game, Status
from solrace.shared.protocol import ProtocolError
from solrace.shared.solver.bots import Bot, Strength

log = logging.getLogger("solrace.bots")

#: Seconds one move takes a bot of each strength at ``--bot-delay 1`` (±25 % at random): the
#: pace of people — a beginner, a casual player, a practised one (a won Klondike of ~130 moves
#: takes the strong bot about four minutes, not the under two of a bot that plays as fast as
#: it can read). The strong bot's search time counts towards it.
THINK = {Strength.WEAK: 4.0, Strength.MEDIUM: 3.0, Strength.STRONG: 2.0}
JITTER = 0.25
RETRY_PAUSE = 1.0  # seconds before a bot retries after the store failed
MAX_REFUSED = 3  # moves in a row the server refuses (a bot bug) before the bot resigns
GAME_CACHE = 64  # games kept per process (server or worker) for the bots choosing in it
# Refusals that mean the bot's game or the race is over: the bot has nothing left to do.
OVER = frozenset({"not_running", "already_finished", "race_not_found", "not_your_game",
                  "not_in_race"})


def new_bot_pid() -> str:
    """A bot's player id: never a real one (those are 16 hex digits, no prefix)."""
    return f"bot-{secrets.token_hex(6)}"


def bot_names(strengths: Sequence[str]) -> list[str]:
    """``weak bot``, ``medium bot``, ``weak bot 2``…: numbered within a strength from the 2nd."""
    seen: dict[str, int] = {}
    names = []
    for s in strengths:
        seen[s] = seen.get(s, 0) + 1
        names.append(f"{s} bot" + (f" {seen[s]}" if seen[s] > 1 else ""))
    return names


# ----------------------------------------------------------------------------- choosing

# The games bots choose in, per process, by "<race>:<bot>". A cached game is taken out while
# a choice runs (two choices never share one game) and put back after; a strong bot's plan
# continues only in the game object it was made in, so a hit also saves it a new search.
_games: OrderedDict[str, Game] = OrderedDict()
_games_lock = threading.Lock()


def _checkout(key: str, variant: str, options: dict[str, str], seed: int,
              moves: Sequence[str]) -> Game:
    with _games_lock:
        game = _games.pop(key, None)
    if game is not None:
        have = [m.text() for m in game.moves]
        if have == list(moves[: len(have)]):
            game.replay(moves[len(have):])
            return game
    game = Game(variant, options, seed)
    game.replay(moves)
    return game


def _checkin(key: str, game: Game) -> None:
    with _games_lock:
        _games[key] = game
        while len(_games) > GAME_CACHE:
            _games.popitem(last=False)


def choose_move(key: str, bot: Bot, variant: str, options: dict[str, str], seed: int,
                moves: Sequence[str]) -> tuple[str | None, Bot]:
    """The bot's next move (text) in the game after ``moves``, or None when it gives up; and
    the bot, whose memory the choice updated (it comes back from a worker process)."""
    game = _checkout(key, variant, options, seed, moves)
    try:
        move = bot.choose(game)
    finally:
        _checkin(key, game)
    return (move.text() if move is not None else None), bot


# ----------------------------------------------------------------------------- the service


class BotService:
    """Starts practice races and drives the bots of the races this process holds the lease of."""

    def __init__(self, store: Store, races: RaceService, *, process: str,
                 delay_scale: float = 1.0, lease_seconds: float = 10.0) -> None:
        self.store = store
        self.races = races
        self.process = process
        self.delay_scale = delay_scale
        self.lease_ms = max(1, int(lease_seconds * 1000))
        self._drivers: dict[str, asyncio.Task[None]] = {}  # race -> its driver here
        self._plays: dict[str, list[asyncio.Task[None]]] = {}  # race -> one task per bot
        self._worker = Worker()  # strong bots' searches
        self._closing = False
        self._jitter = random.Random()  # think times only; deals never use Python's random
        races.on_finished.append(self._on_finished)

    # ------------------------------------------------------------------ starting

    async def start(self, player: Player, variant: str, options: dict[str, Any],
                    strengths: Sequence[str], time_limit: int, seed: int | None) -> str:
        """A practice race of the caller and ``strengths`` bots, running at once; its id."""
        bots = {new_bot_pid(): str(Strength(s).value) for s in strengths}
        seats = 1 + len(bots)
        extra = {"min_racers": str(seats)}  # no countdown before the last bot has joined
        if bots:
            extra["bots"] = ",".join(f"{pid}={s}" for pid, s in bots.items())
        rid, _ = await self.races.create(player, variant, options, seats, time_limit, False,
                                         seed=seed, kind="practice", extra=extra)
        await self.races.join(player, rid, auto_ready=True, countdown_ms=0)
        for (pid, _), name in zip(bots.items(), bot_names(list(bots.values()))):
            await self.races.join(Player(pid, name), rid, auto_ready=True, countdown_ms=0)
        taken = False
        if bots:
            # Listed before the start: a crash from here on leaves the race to other processes.
            taken = await self.store.take_bot_lease(rid, self.process, self.lease_ms)
            await self.store.add_bot_race(rid, await self.store.server_time_ms() + self.lease_ms)
        await self.races.start(rid)
        if taken:
            self._spawn_driver(rid)
        return rid

    # ------------------------------------------------------------------ sweeping

    async def sweep(self) -> int:
        """Drive the bots of listed races whose lease is free; returns how many were taken."""
        if self._closing:
            return 0
        taken = 0
        for rid in await self.store.bot_races_due(await self.store.server_time_ms()):
            if rid in self._drivers:
                continue
            try:
                rec = await self.store.read_race(rid)
                if rec is None or rec.state not in UNDERWAY:
                    await self.store.drop_bot_race(rid)  # gone, over, or never got going
                    continue
                if await self.store.take_bot_lease(rid, self.process, self.lease_ms):
                    log.info("driving the bots of practice race %s", rid)
                    self._spawn_driver(rid)
                    taken += 1
            except Exception:
                log.exception("picking up the bots of race %s failed", rid)
        return taken

    # ------------------------------------------------------------------ driving

    def _spawn_driver(self, rid: str) -> None:
        if rid in self._drivers or self._closing:
            return
        task = asyncio.create_task(self._drive(rid), name=f"bots {rid}")
        self._drivers[rid] = task

        def done(t: asyncio.Task[None]) -> None:
            if self._drivers.get(rid) is t:
                del self._drivers[rid]

        task.add_done_callback(done)

    async def _drive(self, rid: str) -> None:
        """Play every unfinished bot of the race while renewing the lease; see the module
        docstring for what happens to the lease when this ends."""
        outcome = "error"  # done | lost | error; a shutdown releases the lease
        plays: list[asyncio.Task[None]] = []
        try:
            rec = await self.races.record(rid)
            if move_gate(rec.state) is Gate.START_FIRST:  # its starter died before the start
                await self.races.start(rid)
                rec = await self.races.record(rid)
            info = await self.races.info(rid)
            if move_gate(rec.state) is not Gate.PLAY:
                outcome = "done" if is_over(rec.state) else "error"
                return
            plays = [asyncio.create_task(self._play(rid, info, rec, pid, i))
                     for i, pid in enumerate(info.bots, 1)
                     if not rec.players.get(pid, {}).get("result")]
            self._plays[rid] = plays
            renew_every = self.lease_ms / 3000
            while pending := [t for t in plays if not t.done()]:
                await asyncio.wait(pending, timeout=renew_every)
                if all(t.done() for t in plays):
                    break
                try:
                    held = await self.store.renew_bot_lease(rid, self.process, self.lease_ms)
                except (RedisError, OSError) as exc:
                    log.warning("renewing the bot lease of race %s failed: %s", rid, exc)
                    continue  # the next renewal tells whether the lease survived
                if not held:
                    log.info("lost the bot lease of race %s: another process drives", rid)
                    outcome = "lost"
                    return
            failed = [t for t in plays if not t.cancelled() and t.exception() is not None]
            outcome = "error" if failed else "done"
        except Exception:
            log.exception("driving the bots of race %s failed", rid)
        finally:
            self._plays.pop(rid, None)
            for t in plays:
                t.cancel()
            await asyncio.gather(*plays, return_exceptions=True)
            with contextlib.suppress(Exception):
                if outcome == "done":
                    await self.store.drop_bot_race(rid)
                    await self.store.release_bot_lease(rid, self.process)
                elif outcome == "error" and self._closing:
                    # A clean stop: hand the bots over now rather than when the lease runs out.
                    await self.store.release_bot_lease(rid, self.process)
                # lost: the new driver holds the lease; error: it runs out, then any process
                # (this one included) picks the race up again

    async def _play(self, rid: str, info: RaceInfo, rec: RaceRecord, pid: str, index: int
                    ) -> None:
        """One bot's game, move by move, until it or the race is over."""
        strength = Strength(info.bots[pid])
        player = Player(pid, rec.names.get(pid, f"{strength.value} bot"))
        bot = Bot(strength, seed=(info.seed + index) % 2**64)  # rng of the weak bot's picks
        key = f"{rid}:{pid}"
        refused = 0
        while True:
            try:
                entry = await self.races.entry(rid, pid)
                async with entry.lock:
                    if entry.game.status is not Status.PLAYING:
                        return
                    moves = tuple(m.text() for m in entry.game.moves)
                think = asyncio.ensure_future(asyncio.sleep(self._think(strength)))
                try:
                    text, bot = await self._choose(key, bot, info, moves)
                    await think  # the think time includes the choice's own
                finally:
                    think.cancel()
                if text is None:
                    await self._resign(player, rid)
                    return
                await self.races.move(player, rid, len(moves), text)
                refused = 0
            except ProtocolError as exc:
                if exc.code in OVER:
                    return
                if exc.code == "stale_seq":  # its game moved elsewhere: play on from the log
                    await self.races.entry(rid, pid, reload=True)
                    continue
                refused += 1
                log.error("bot %s of race %s: move refused (%s: %s)", pid, rid, exc.code,
                          exc.reason)
                if refused >= MAX_REFUSED:
                    await self._resign(player, rid)
                    return
                await self.races.entry(rid, pid, reload=True)
            except (RedisError, OSError) as exc:
                log.warning("bot %s of race %s: store unavailable (%s); retrying", pid, rid, exc)
                await asyncio.sleep(RETRY_PAUSE)
            except Exception:
                if self._closing:
                    raise
                # A bug (in the bot or here): retrying would fail the same way in every
                # process that picks the race up, so this bot's game ends now.
                log.exception("bot %s of race %s failed; it resigns", pid, rid)
                await self._resign(player, rid)
                return

    async def _resign(self, player: Player, rid: str) -> None:
        try:
            await self.races.resign(player, rid)
        except ProtocolError as exc:
            if exc.code not in OVER:
                raise

    def _think(self, strength: Strength) -> float:
        base = THINK[strength] * self.delay_scale
        return base * self._jitter.uniform(1 - JITTER, 1 + JITTER) if base > 0 else 0.0

    async def _choose(self, key: str, bot: Bot, info: RaceInfo, moves: tuple[str, ...]
                      ) -> tuple[str | None, Bot]:
        args = (key, bot, info.variant, dict(info.options), info.seed, moves)
        if bot.strength is not Strength.STRONG:
            return await asyncio.to_thread(choose_move, *args)
        try:
            return await self._worker.run(choose_move, *args)
        except BrokenProcessPool:  # the worker died (killed, out of memory): once more on
            log.warning("the bot worker process died; starting another")  # a fresh one
            return await self._worker.run(choose_move, *args)

    async def _on_finished(self, info: RaceInfo, rec: RaceRecord,
                           standings: list[dict[str, Any]]) -> None:
        """The race ended here: its bots stop now rather than at their next move."""
        for task in self._plays.get(info.rid, ()):
            task.cancel()

    # ------------------------------------------------------------------ shutdown

    def driving(self) -> list[str]:
        """Races whose bots this process drives now (tests, diagnostics)."""
        return sorted(self._drivers)

    async def close(self) -> None:
        """Stop driving (the leases are released, so another process takes over at its next
        sweep) and shut the worker process down."""
        self._closing = True
        drivers = list(self._drivers.values())
        for task in drivers:
            task.cancel()
        await asyncio.gather(*drivers, return_exceptions=True)
        self._worker.close()
