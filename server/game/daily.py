"""Daily challenges: one certified deal per variant per UTC day, one ranked attempt each.

* Seed: candidate ``i`` of a day is ``HMAC-SHA256(secret, "<date>|<variant>|<options>|<i>")``,
  its first 8 bytes big-endian. The secret keeps the seed unknown until the day is over; its
  sha256 commitment is public all day and the seed is revealed the day after.
* Certification: a candidate becomes the daily only when the solver finds a win within a node
  budget (deterministic), so every daily is winnable; unwinnable or undecided candidates are
  skipped. Certification runs in a worker process (the solver is CPU-bound) under a Redis lock,
  ahead of the day, and its result is stored, so no player waits for it.
* Attempts: a ranked attempt is a one-racer race (durable, resumable, validated like any race)
  claimed once per player, day and variant; later games on the same deal are practice, never
  ranked. The leaderboard entry is written when the attempt's race ends, idempotently.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import hmac
import logging
import time
from typing import Any

from solrace.server.fairplay.service import REVIEW_WINDOW_MS, FairPlayService
from solrace.server.game import dailylevels as levels
from solrace.server.game.lifecycle import is_over
from solrace.server.game.races import Player, RaceInfo, RaceService
from solrace.server.game.worker import Worker
from solrace.server.store import DAILY_TTL, RaceRecord, Store
from solrace.shared import playerstats
from solrace.shared.learning.difficulty import DIFFICULTIES
from solrace.shared.prng import commitment
from solrace.shared.protocol import ProtocolError
from solrace.shared.rules import options_text
from solrace.shared.variants import VARIANTS, resolve

log = logging.getLogger("solrace.daily")

MAX_CANDIDATES = 500
# A daily is played with the variant's default options, except where those are (almost)
# never winnable: Seven by Five without cells and with King-only spaces was proved lost for
# 500 of 500 candidate deals, so its daily uses the 5-cell, any-card version (PySolFC's).
DAILY_OPTIONS: dict[str, dict[str, str]] = {"seven-by-five": {"cells": "5", "empty_fill": "any"}}
# Node budgets per candidate: an undecided candidate costs the whole budget, and a smaller one
# finds a win among the next candidates sooner (forty-and-eight, interim solver: none of 21 at
# 200 000 nodes in six minutes, the 14th at 20 000 in 20 s). With the final solver every
# variant certifies in at most about a minute of one core (``bench/daily.py``, figures in
# docs/leaderboards.md). ``--daily-budget`` overrides them all.
DAILY_BUDGETS = {"sixes-and-sevens": 20_000, "forty-and-eight": 20_000}
DEFAULT_BUDGET = 200_000
FAILURE_MEMO = 3600.0  # seconds a day's failed certification is not retried by this process
SOLVED_MEMO = 5000  # candidates' answers a process keeps (then it starts afresh)
Candidate = tuple[str, int | None, int, tuple[str, int, int | None] | None]
DAILY_TIME_LIMIT = 3600  # seconds for one attempt


def day_of(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def previous_day(day: str) -> str:
    return (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()


def daily_days(today: str) -> list[str]:
    """Every day whose leaderboards may still be stored (DAILY_TTL back from today)."""
    days = [today]
    for _ in range(DAILY_TTL // 86400):
        days.append(previous_day(days[-1]))
    return days


def next_day(day: str) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()


def candidate_seed(secret: bytes, day: str, variant: str, options: str, index: int) -> int:
    """The ``index``-th candidate seed of a day (see the module docstring)."""
    msg = f"{day}|{variant}|{options}|{index}".encode()
    return int.from_bytes(hmac.new(secret, msg, hashlib.sha256).digest()[:8], "big")


def rank_key(row: dict[str, Any]) -> str:
    """A text that sorts in leaderboard order: winners first by time, then fewer moves, then
    earlier finish; then the rest by more cards home, earlier last progress (the attempt's ms
    at which its last card went home; none: last), more moves, shorter time, earlier finish —
    so an attempt resigned without a move never outranks one that played to the same cards
    home. The player id ends it (a total order)."""
    if row["result"] == "won":
        head = f"0{row['time']:012d}{row['moves']:07d}"
    else:
        progress = row.get("progress_at")
        progress = NO_PROGRESS if progress is None else int(progress)
        head = (f"1{9999 - row['home']:04d}{progress:012d}{9_999_999 - row['moves']:07d}"
                f"{row['time']:012d}")
    return f"{head}{row['finished_at']:014d}|{row['player']}"


NO_PROGRESS = 10**12 - 1  # sorts after any ms an attempt can reach


def review_closes(day: str) -> int:
    """When a day's board stops being provisional (ms): :data:`REVIEW_WINDOW_MS` after the
    UTC day ends."""
    end = dt.datetime.combine(dt.date.fromisoformat(next_day(day)), dt.time(), dt.UTC)
    return int(end.timestamp() * 1000) + REVIEW_WINDOW_MS


def certify_one(variant: str, options: dict[str, str], seed: int, nodes: int
                ) -> tuple[str, int | None, int]:
    """Solve one candidate (runs in a worker process): (outcome, par, nodes searched)."""
    from solrace.shared.solver import Budget, solve

    result = solve((variant, options, seed), Budget(nodes=nodes, seconds=None))
    return result.outcome.value, result.par, result.nodes


class DailyService:
    def __init__(self, store: Store, races: RaceService, secret: bytes, *,
                 budget_nodes: int = 0, process: str = "") -> None:
        self.store = store
        self.races = races
        self.secret = secret
        self.budget_nodes = budget_nodes
        self.process = process
        self._worker = Worker()  # certification searches
        self._certifying: dict[tuple[str, str], asyncio.Task[dict[str, str]]] = {}
        self._failed: dict[tuple[str, str], float] = {}  # (day, variant) -> when it failed
        # (day, variant, candidate) -> (outcome, par, nodes, rating): the searches for a day's
        # other difficulties walk the same candidates; each is solved once per process
        self._solved: dict[tuple[str, str, int], Candidate] = {}
        # screens each ranked attempt before it is listed (use_fairplay)
        self.fairplay: FairPlayService | None = None
        races.on_finished.append(self.on_finished)

    async def close(self) -> None:
        for task in self._certifying.values():
            task.cancel()
        self._worker.close()

    async def today(self) -> str:
        return day_of(await self.store.server_time_ms())

    @staticmethod
    def variant_name(name: str) -> tuple[str, dict[str, str]]:
        """The variant's canonical name and the options its daily is played with."""
        try:
            v, opts, _ = resolve(name, None)
            opts = resolve(v.name, {**opts, **DAILY_OPTIONS.get(v.name, {})})[1]
        except Exception as exc:
            raise ProtocolError("bad_option", str(exc)) from None
        return v.name, opts

    # ------------------------------------------------------------------ certification

    async def get(self, variant: str, day: str) -> dict[str, str]:
        """The certified daily of ``variant`` on ``day`` (the day's first won candidate, the
        daily of its own difficulty), certifying and rating it if nobody has."""
        return await self._rated(variant, day, await self._record(variant, variant, day, None, 0))

    async def get_level(self, variant: str, day: str, difficulty: str | None
                        ) -> tuple[str, dict[str, str]]:
        """(board, record) of the ``difficulty`` daily of ``variant`` on ``day`` (None: the
        day's first certified deal, whatever its difficulty): the first candidate won at the
        daily budget whose rating is ``difficulty`` (server/game/dailylevels.py)."""
        plain = await self.get(variant, day)
        name = levels.board(variant, difficulty, plain)
        if name == variant:
            return name, plain
        return name, await self._record(variant, name, day, difficulty,
                                        int(plain["candidate"]) + 1)

    async def _record(self, variant: str, name: str, day: str, want: str | None, start: int
                      ) -> dict[str, str]:
        record = await self.store.daily(day, name)
        if record is not None:
            return record
        key = (day, name)
        failed = self._failed.get(key)
        if failed is not None and time.monotonic() - failed < FAILURE_MEMO:
            raise ProtocolError("unavailable", f"no winnable {name} deal found for {day}")
        task = self._certifying.get(key)
        if task is None or task.done():
            task = asyncio.ensure_future(self._certify(variant, name, day, want, start))
            self._certifying[key] = task
        return await asyncio.shield(task)

    async def _rated(self, variant: str, day: str, record: dict[str, str]) -> dict[str, str]:
        """``record`` with its difficulty: a record certified before dailies were rated is
        rated now (in the worker) and the rating stored with it, once."""
        if record.get("difficulty"):
            return record
        opts = self.variant_name(variant)[1]
        fields = levels.rating_fields(await self._worker.run(
            levels.rate_one, variant, opts, int(record["seed"])))
        await self.store.rate_daily(day, variant, fields)
        return {**record, **fields}

    async def _certify(self, variant: str, name: str, day: str, want: str | None,
                       start: int) -> dict[str, str]:
        variant, opts = self.variant_name(variant)
        if not await self.store.lock_daily(day, name, self.process):
            for _ in range(1200):  # another process certifies: wait for its record
                await asyncio.sleep(0.5)
                locked = await self.store.daily_locked(day, name)  # before the record: the
                record = await self.store.daily(day, name)  # certifier saves, then unlocks
                if record is not None:
                    return record
                if not locked:
                    raise ProtocolError("unavailable", f"no winnable deal found for {name}")
            raise ProtocolError("unavailable", "the daily deal is still being certified")
        try:
            return await self._search(variant, opts, day, name, want, start)
        finally:  # found or not: the next request (any process) must not wait for a lock
            with contextlib.suppress(Exception):  # (it expires anyway)
                await self.store.unlock_daily(day, name, self.process)

    async def _search(self, variant: str, opts: dict[str, str], day: str, name: str,
                      want: str | None, start: int) -> dict[str, str]:
        """Candidates ``start``, ``start + 1``… until one is won (and, when ``want`` is a
        difficulty, rated so), at most :data:`MAX_CANDIDATES` in all."""
        started = time.monotonic()
        for index in range(start, MAX_CANDIDATES):
            seed = candidate_seed(self.secret, day, variant, options_text(opts), index)
            budget = self.budget_nodes or DAILY_BUDGETS.get(variant, DEFAULT_BUDGET)
            outcome, par, nodes, rated = await self._candidate(day, variant, opts, index, seed,
                                                               budget)
            # a long search keeps its lock (it expires only if this process dies)
            await self.store.renew_daily_lock(day, name, self.process)
            if outcome != "won" or rated is None:
                continue
            if want is not None and rated[0] != want:
                continue
            record = {
                "seed": str(seed), "candidate": str(index), "commitment": commitment(seed),
                "par": str(par), "nodes": str(nodes), "options": options_text(opts),
                "certified_at": str(int(time.time() * 1000)),
                "certify_seconds": f"{time.monotonic() - started:.2f}",
                **levels.rating_fields(rated),
            }
            await self.store.save_daily(day, name, record)
            log.info("daily %s %s certified: candidate %d, par %s, %s", day, name, index, par,
                     rated[0])
            stored = await self.store.daily(day, name)
            assert stored is not None
            return stored
        self._failed[(day, name)] = time.monotonic()
        # after FAILURE_MEMO a new search solves afresh (a worker or budget may have changed)
        self._solved = {k: v for k, v in self._solved.items() if k[:2] != (day, variant)}
        raise ProtocolError("unavailable", f"no winnable deal found for {name} on {day}")

    async def _candidate(self, day: str, variant: str, opts: dict[str, str], index: int,
                         seed: int, budget: int) -> Candidate:
        """A candidate solved (and, when won, rated) in the worker — once per process."""
        key = (day, variant, index)
        got = self._solved.get(key)
        if got is None:
            outcome, par, nodes = await self._worker.run(certify_one, variant, opts, seed,
                                                         budget)
            rated = None
            if outcome == "won":
                rated = await self._worker.run(levels.rate_one, variant, opts, seed)
            if len(self._solved) >= SOLVED_MEMO:
                self._solved.clear()
            got = self._solved[key] = (outcome, par, nodes, rated)
        return got

    async def prepare(self, days_ahead: int = 1) -> None:
        """Certify today's and the next days' dailies of every variant (background)."""
        today = await self.today()
        day = today
        for _ in range(days_ahead + 1):
            for name in VARIANTS:
                for level in (None, *DIFFICULTIES):
                    try:
                        await self.get_level(name, day, level)
                    except Exception as exc:
                        log.warning("could not prepare the %s %s daily of %s: %s", name,
                                    level or "first", day, exc)
            day = next_day(day)

    def public(self, variant: str, day: str, record: dict[str, str], today: str
               ) -> dict[str, Any]:
        out: dict[str, Any] = {
            "date": day, "variant": variant, "options": dict(
                kv.split("=", 1) for kv in record["options"].split(",") if kv),
            "commitment": record["commitment"], "par": int(record["par"]),
            "certified": True, "difficulty": record.get("difficulty"),
        }
        if day < today:
            out["seed"] = int(record["seed"])
        return out

    # ------------------------------------------------------------------ attempts

    async def start(self, player: Player, variant: str, practice: bool,
                    difficulty: str | None = None) -> tuple[str, bool]:
        """The race id of the player's ranked attempt (new or resumed) at the daily of
        ``difficulty`` (None: the day's first) — or of a new practice game on the same deal;
        and whether it is ranked."""
        variant, opts = self.variant_name(variant)
        day = await self.today()
        name, record = await self.get_level(variant, day, difficulty)
        seed = int(record["seed"])
        existing = await self.store.attempt_of(day, name, player.pid)
        rec = await self.store.read_race(existing) if existing is not None else None
        done = rec is None or is_over(rec.state)
        if not practice:
            if existing is not None and not done:
                return existing, True
            if existing is not None:
                raise ProtocolError(
                    "already_played", "today's ranked attempt is used; practice is allowed")
        elif existing is None or not done:
            raise ProtocolError(
                "bad_option", "practice on the daily deal opens after your ranked attempt")
        kind = "practice" if practice else "daily"
        extra = {"daily": day, "certified_par": record["par"], "daily_board": name}
        if record.get("difficulty"):
            extra["difficulty"] = record["difficulty"]
        rid, _ = await self.races.create(player, variant, opts, 1, DAILY_TIME_LIMIT, False,
                                         seed=seed, kind=kind, extra=extra)
        if not practice:
            claimed = await self.store.claim_attempt(day, name, player.pid, rid)
            if claimed != rid:  # a concurrent request won: play that one
                return claimed, True
        await self.races.join(player, rid, auto_ready=True, countdown_ms=0)
        await self.races.start(rid)
        return rid, not practice

    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> None:
        if info.kind != "daily" or not standings:
            return
        day = rec.meta.get("daily") or day_of(rec.num("started_at"))
        row = standings[0]
        entry = {
            "player": row["player"], "name": row["name"], "result": row["result"],
            "time": int(row["elapsed"]), "moves": int(row["moves"]), "home": int(row["home"]),
            "finished_at": rec.num("started_at") + int(row["elapsed"]), "race": info.rid,
            "progress_at": row.get("progress_at"),
        }
        review = "clear"
        if self.fairplay is not None:  # screened before it can be listed (docs/fairplay.md)
            try:
                review = await self.fairplay.screen_daily(info, rec, row, day,
                                                          rank_key(entry))
            except Exception:  # a screening fault must not lose a player's result: listed
                log.exception("fair-play screening failed for race %s", info.rid)
        entry["review"] = review
        board = rec.meta.get("daily_board") or info.variant
        if await self.store.record_daily(day, board, row["player"], rank_key(entry),
                                         entry, listed=review == "clear") and review == "clear":
            await self.count_stats(row["player"], info.variant, day, row["result"] == "won",
                                   int(row["elapsed"]), int(row.get("home") or 0),
                                   streak=board == info.variant)
        if self.fairplay is not None:  # a pending result is stored: its analysis may decide
            await self.fairplay.start_analyses(info.rid)

    async def count_stats(self, pid: str, variant: str, day: str, won: bool, elapsed: int,
                          home: int = 0, streak: bool = True) -> None:
        """A listed attempt in the player's own stats (dailies, streak, wins, best time, the
        statistics per options, the day's counts and the month's badge) — at once, or when a
        moderator clears a held one: a profile never shows a held time. ``streak``: the
        attempt is at the variant's own board (the day's first daily), the one the dailies
        counters and the streak count; the other difficulties count everywhere else."""
        if won:  # first: a reader that sees the attempt counted sees its win too
            await self.store.win_stats(pid, variant, True, False, elapsed)
        opts = options_text(self.variant_name(variant)[1])
        await self.store.game_stats(pid, playerstats.config_key(variant, opts), day, won,
                                    elapsed, home, daily=True,
                                    keep_from=playerstats.prune_before(day))
        if streak:
            await self.store.daily_stats(pid, variant, day, previous_day(day), won)

    def use_fairplay(self, fairplay: FairPlayService) -> None:
        """Screen every ranked attempt before it is listed; count a held one's stats when a
        moderator clears it."""
        self.fairplay = fairplay
        fairplay.on_decided.append(self._cleared)

    async def _cleared(self, case: dict[str, Any]) -> None:
        if case["kind"] == "daily" and case["status"] == "clear":
            await self.count_stats(case["player"], case["variant"], case["day"],
                                   case["result"]["result"] == "won",
                                   int(case["result"]["elapsed"]),
                                   int(case["result"].get("home") or 0),
                                   streak=case.get("board", case["variant"]) == case["variant"])

    # ------------------------------------------------------------------ leaderboards

    async def leaderboard(self, variant: str, day: str | None, offset: int, limit: int,
                          around: str | None, caller: str | None = None,
                          difficulty: str | None = None) -> dict[str, Any]:
        variant, _ = self.variant_name(variant)
        day = day or await self.today()
        plain = await self.store.daily(day, variant)  # no certifying for a board
        name = levels.board(variant, difficulty, plain)
        me = None
        if around is not None:
            me = await self.store.leaderboard_rank(day, name, around)
            if me is not None:
                offset = max(0, me - limit // 2)
        # Read after the rank: a result recorded in between must not give "#1 of 0" (entries
        # are only ever added during a day, so the total read later includes the caller's).
        total = await self.store.leaderboard_size(day, name)
        rows = await self.store.leaderboard_range(day, name, offset, offset + limit - 1)
        record = await self.store.daily(day, name)  # par beside the results (no certifying)
        par = int(record["par"]) if record and record.get("par") else None
        review_until = review_closes(day)
        level = record.get("difficulty") if record else difficulty
        out = {"date": day, "variant": variant, "difficulty": level, "total": total,
               "offset": offset, "rows": rows,
               "my_rank": me + 1 if me is not None else None, "par": par,
               "provisional": await self.store.server_time_ms() < review_until,
               "review_until": review_until}
        if caller is not None:  # the caller's own result, listed or not
            mine = await self.store.daily_entry(day, name, caller)
            if mine is not None:
                out["my_review"] = mine.pop("review", "clear")
                if out["my_review"] != "clear":  # not listed: the player still sees it
                    mine.pop("progress_at", None)
                    out["my_row"] = mine
        return out
