"""Races: create, join, ready, start, finish — the game logic of the server (the move path is
:mod:`solrace.server.game.racemoves`, the race model :mod:`solrace.server.game.racemodel`).

Composes the sans-I/O engine with the store. A player's game lives in Redis as (variant,
options, seed) + move log; the :class:`GameEntry` here is a cache rebuilt by replaying that log,
so any process can serve any player. Every state change goes through one store script, which
checks the race state and the move sequence atomically; a move is acknowledged only after its
script returned.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
from solrace.server.game.lifecycle import LIVE, TIMERS, UNDERWAY, accepts
from solrace.server.game.lifecycle import RaceEvent as E
from solrace.server.game.lifecycle import RaceState as S
from solrace.server.game.racemodel import (
    CODE_ALPHABET,
    GameEntry,
    Player,
    RaceInfo,
    dealt_home,
    new_code,
    new_race_id,
    parse_options,
    playable_seed,
    standings,
)
from solrace.server.game.racemoves import MovePath
from solrace.server.game.verdicts import stored_verdict
from solrace.server.ops import metrics
from solrace.server.store import RaceRecord, ScriptResult, Store
from solrace.shared import protocol as P
from solrace.shared.engine import Game
from solrace.shared.errors import OptionError
from solrace.shared.pointing import legal_texts
from solrace.shared.prng import commitment
from solrace.shared.protocol import ProtocolError
from solrace.shared.rules import options_text
from solrace.shared.variants import resolve
from solrace.shared.views import view_of

log = logging.getLogger("solrace.races")

#: States in which a summary names the race's home: there is nothing left to deliver after.

# Re-exported: callers import the race model from here.
__all__ = ["CODE_ALPHABET", "GameEntry", "Player", "RaceInfo", "RaceService", "dealt_home",
           "new_code", "new_race_id", "parse_options", "standings"]


class RaceService(MovePath):
    def __init__(self, store: Store, *, countdown_ms: int = 3000) -> None:
        self.store = store
        self.countdown_ms = countdown_ms
        # This process's advertised URL (server/ops/app.py): the home of the races it creates,
        # and what a race's home is compared with before a summary names it.
        self.home = ""
        self.infos: dict[str, RaceInfo] = {}
        self.games: dict[tuple[str, str], GameEntry] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        # may add fields to the standings of a race about to end: (info, standings)
        self.annotators: list[Callable[[RaceInfo, list[dict[str, Any]]], Awaitable[None]]] = []
        # fields added to the ``end`` event of a race about to end (the deal's verdict)
        self.end_fields: list[Callable[[RaceInfo, RaceRecord], dict[str, Any]]] = []
        # called once per race, by the process that ended it: (info, record, standings)
        self.on_finished: list[Callable[[RaceInfo, RaceRecord, list[dict[str, Any]]],
                                        Awaitable[None]]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ reading

    async def record(self, rid: str) -> RaceRecord:
        rec = await self.store.read_race(rid)
        if rec is None:
            raise ProtocolError("race_not_found", f"no race {rid}")
        if rid not in self.infos:
            self.infos[rid] = RaceInfo.of(rec)
        return rec

    async def info(self, rid: str) -> RaceInfo:
        info = self.infos.get(rid)
        if info is None:
            await self.record(rid)
            info = self.infos[rid]
        return info

    def summary(self, rec: RaceRecord) -> dict[str, Any]:
        info = self.infos[rec.rid]
        m = rec.meta
        out: dict[str, Any] = {
            "race": rec.rid,
            "code": info.code,
            "variant": info.variant,
            "options": info.options,
            "seats": info.seats,
            "time_limit": info.time_limit,
            "rated": info.rated,
            "kind": info.kind,
            "state": rec.state,
            "host": info.host,
            "commitment": m["commitment"],
            "v": rec.num("version"),
            "racers": [
                {"player": pid, "name": rec.names.get(pid, "?"), "ready": pid in rec.ready}
                | ({"bot": info.bots[pid]} if pid in info.bots else {})
                | ({"title": t} if (t := rec.players.get(pid, {}).get("title")) else {})
                for pid in rec.order
            ],
        }
        for k in ("starts_at", "started_at", "ends_at", "ended_at"):
            if m.get(k):
                out[k] = int(m[k])
        if m.get("winnable"):
            out["winnable"] = True
        if m.get("difficulty"):  # a rated deal's difficulty (a daily, a winnable race)
            out["difficulty"] = m["difficulty"]
        if m.get("tournament"):  # a tournament's deal: which tournament, which deal
            out["tournament"] = m["tournament"]
            out["deal"] = int(m["deal"])
        if m.get("verdict"):  # written only after the end (server/game/verdicts.py)
            out["verdict"] = stored_verdict(m)
        if info.home and info.home != self.home and rec.state in LIVE:
            out["home"] = info.home  # a hint only: docs/protocol.md section 8.1
        return out

    # ------------------------------------------------------------------ lobby

    async def create(
        self, player: Player, variant: str, options: dict[str, Any], seats: int,
        time_limit: int, rated: bool, *, seed: int | None = None, kind: str = "race",
        extra: dict[str, str] | None = None,
    ) -> tuple[str, int]:
        """A new race in the lobby. ``kind`` is ``race`` (2+ racers), or ``daily`` / ``practice``
        (one racer, the deal given by ``seed``). A ``race`` gets this process as its home
        (its advertised URL, when it has one): every racer served here has its events
        delivered without pub/sub. Solo games need none (bots are driven by whichever
        process holds their lease)."""
        try:
            v, opts, _ = resolve(variant, {k: str(x) for k, x in options.items()})
        except OptionError as exc:
            raise ProtocolError("bad_option", exc.reason) from None
        if seed is None:
            seed = playable_seed(v, opts)
        rid = new_race_id()
        meta = {
            "variant": v.name, "options": options_text(opts), "seed": seed, "seats": seats,
            "time_limit": time_limit, "rated": "1" if rated else "0", "host": player.pid,
            "commitment": commitment(seed), "created_at": int(time.time() * 1000),
            "kind": kind, "min_racers": 2 if kind == "race" else 1, **(extra or {}),
        }
        if kind == "race" and self.home:
            meta["home_url"] = self.home
        for _ in range(10):
            code = new_code()
            if await self.store.create_race(rid, code, {**meta, "code": code}):
                break
        else:  # pragma: no cover - 32**6 codes
            raise ProtocolError("internal", "could not allocate an invite code")
        metrics.RACES_CREATED.inc()
        return rid, 0

    async def join(
        self, player: Player, rid: str, *, auto_ready: bool = False, countdown_ms: int | None = None
    ) -> int:
        res = await self.store.join(
            rid, player.pid, player.name, title=player.title, auto_ready=auto_ready,
            countdown_ms=self.countdown_ms if countdown_ms is None else countdown_ms,
        )
        self._raise(res, rid)
        return int(res.values[0])

    async def leave(self, player: Player, rid: str) -> int:
        res = await self.store.leave(rid, player.pid, self.countdown_ms)
        self._raise(res, rid)
        return int(res.values[0])

    async def ready(self, player: Player, rid: str) -> int:
        res = await self.store.ready(rid, player.pid, self.countdown_ms)
        self._raise(res, rid)
        return int(res.values[0])

    async def code_to_race(self, code: str) -> str:
        rid = await self.store.race_by_code(code.upper())
        if rid is None:
            raise ProtocolError("race_not_found", f"no race with code {code.upper()}")
        return rid

    @staticmethod
    def _raise(res: ScriptResult, rid: str) -> None:
        if res.status != "err":
            return
        code = res.values[0]
        reasons = {
            "race_not_found": f"no race {rid}",
            "race_full": "every seat is taken",
            "race_started": "the race has left the lobby",
            "not_in_race": "you are not a racer in this race",
            "not_running": "the race is not running",
            "already_finished": "your game is over",
        }
        raise ProtocolError(code, reasons.get(code, code))

    # ------------------------------------------------------------------ clock

    def arm(self, rec: RaceRecord) -> None:
        """Schedule this process's attempt at the race's next timed transition (start or
        time limit). Any process may do it; the store scripts make it happen once."""
        rid = rec.rid
        old = self._timers.pop(rid, None)
        if old:
            old.cancel()
        now = time.time() * 1000
        timer = TIMERS.get(rec.state)
        if timer is None:
            return
        at, event = timer
        delay, action = rec.num(at) - now, self.start if event is E.START else self.try_finish
        loop = asyncio.get_running_loop()
        self._timers[rid] = loop.call_later(
            max(0.0, delay / 1000) + 0.005, lambda: self._spawn(action(rid))
        )

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self, rid: str) -> None:
        info = await self.info(rid)
        game = Game(info.variant, info.options, info.seed)
        rec = await self.record(rid)
        if not accepts(rec.state, E.START):
            self.arm(rec)
            return
        started = rec.num("starts_at")
        event = P.events.Start(
            started_at=started, ends_at=started + 1000 * info.time_limit,
            view=view_of(game).wire(), legal=legal_texts(game)).body()
        # Registered before the start (other slots than the race's, so not in its script): a
        # crash right after the start cannot leave a race unlisted or without a deadline; the
        # sweeper drops entries of races that never ran.
        await self.store.set_deadline(rid, started + 1000 * info.time_limit)
        if info.kind == "race":
            await self.store.mark_live(rid, started)
        res = await self.store.start(rid, msgpack.packb(event), rec.order, game.cards_home)
        if res.status == "wait":
            loop = asyncio.get_running_loop()
            self._timers[rid] = loop.call_later(
                int(res.values[0]) / 1000 + 0.005, lambda: self._spawn(self.start(rid))
            )
            return
        self.arm(await self.record(rid))

    async def try_finish(self, rid: str) -> bool:
        """End the race if everyone is done or time is up; True when it is finished."""
        for _ in range(5):
            rec = await self.record(rid)
            if rec.state is S.FINISHED:
                return True
            if not accepts(rec.state, E.ALL_DONE):
                return False
            info = self.infos[rid]
            reason = "done" if rec.num("unfinished") <= 0 else "time"
            rows = standings(rec, dealt_home(info))
            for annotate in self.annotators:  # e.g. ratings before/after (rated races)
                await annotate(info, rows)
            extra: dict[str, Any] = {}
            # A daily's seed (its ranked attempts and the practice games on its deal) stays
            # secret until its day is over; other practice games reveal theirs like races.
            if info.kind == "race" or (info.kind == "practice" and "daily" not in rec.meta):
                extra["seed"] = info.seed
            for fields in self.end_fields:
                extra.update(fields(info, rec))
            event = P.events.End.from_fields({
                "reason": reason, "commitment": rec.meta["commitment"], "standings": rows,
                **extra}).body()
            res = await self.store.finish(rid, msgpack.packb(event), rec.num("version"))
            if res.status == "ok":
                await self.store.retire(rid, rec.order, info.code)
                self._forget(rid, rec.order)
                metrics.RACES_FINISHED.inc()
                for hook in self.on_finished:
                    try:
                        await hook(info, rec, event["standings"])
                    except Exception:
                        log.exception("finish hook %s failed for race %s", hook, rid)
                return True
            if res.status == "early":
                self.arm(rec)
                return False
            if res.status == "state":
                return res.values[0] == S.FINISHED
        return False

    async def sweep(self) -> int:
        """End every race whose time is up (any process may; the store makes it once).
        Returns how many were ended or found already over."""
        done = 0
        for rid in await self.store.overdue(await self.store.server_time_ms()):
            try:
                rec = await self.store.read_race(rid)
                if rec is None or rec.state not in UNDERWAY or \
                        await self.try_finish(rid):
                    await self.store.drop_deadline(rid)
                    done += 1
            except Exception:
                log.exception("sweeping race %s failed", rid)
        return done

    def _forget(self, rid: str, players: list[str]) -> None:
        for pid in players:
            self.games.pop((rid, pid), None)
        t = self._timers.pop(rid, None)
        if t:
            t.cancel()

    # ------------------------------------------------------------------ quick pairing

    @staticmethod
    def queue_name(variant: str, options: dict[str, Any]) -> tuple[str, dict[str, str]]:
        try:
            v, opts, _ = resolve(variant, {k: str(x) for k, x in options.items()})
        except OptionError as exc:
            raise ProtocolError("bad_option", exc.reason) from None
        return f"{v.name}|{options_text(opts)}", opts

    async def close(self) -> None:
        for t in self._timers.values():
            t.cancel()
        self._timers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
