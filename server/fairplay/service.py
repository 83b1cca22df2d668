"""Screening ranked results, and what a moderator's decision does to them.

Why after the game and silently: a result is screened once its race has ended, from what the
move path stored anyway (each move's server time in the race's event stream, the move log),
so the move path costs the same and a bot is never refused for being fast — it cannot learn the
thresholds from the game. A result whose score reaches the threshold is *held*: it is stored
but not listed, its player is told "under review", and only a moderator's ``clear`` lists it —
at the rank its time earns, as if it had never been held.

Which results: every ranked daily attempt (the one ranked game a daily leaderboard lists) and
every racer of a rated race; a held racer holds the race's rating changes (server/game/results.py).

Which results also get the solver's view of their line (server/fairplay/analyses.py, in the
worker pool, after the game): a won ranked daily attempt that would enter its board's top
:data:`ANALYSED_TOP` or beats the human bound (:data:`HUMAN_MS_PER_MOVE`), and the winner of a
rated race. Such a result is ``pending`` — stored, not listed, its race's rating changes
waiting — until its analysis is in and the full score decides ``clear`` or ``held``.

``hold`` off (``--fair-play record``) keeps every case and timing score but lists every result
and runs no analysis: for test suites whose clients play at machine speed on purpose, never
for a public server.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from solrace.server.fairplay.analyses import Analyses
from solrace.server.game.races import RaceInfo
from solrace.server.store import RaceRecord, Store
from solrace.shared.fairplay import GameRecord, History, evidence, pair_record, score
from solrace.shared.fairplay.analysis import NODES
from solrace.shared.protocol import ProtocolError

log = logging.getLogger("solrace.fairplay")

#: Review statuses of a ranked result (docs/protocol.md, "Fair play").
CLEAR, PENDING, HELD, REMOVED = "clear", "pending", "held", "removed"
#: A won daily attempt that would rank this high on its board is analysed by the solver.
ANALYSED_TOP = 50
#: The human bound: a win faster than this per move of the deal's par is analysed wherever it
#: would rank (nobody reads, chooses and places a card in under a second, move after move).
HUMAN_MS_PER_MOVE = 1000
DAY_MS = 86_400_000
#: A daily board is provisional until this long after its UTC day ends: results held on it
#: may still be cleared onto it (and bans taken off it) in that window.
REVIEW_WINDOW_MS = 2 * DAY_MS
#: Held cases read when looking for those of one race or player (the queue is short: a held
#: result waits for a person).
QUEUE_SCAN = 10_000


def case_id(rid: str, pid: str) -> str:
    return f"{rid}:{pid}"


def split_case(case: str) -> tuple[str, str]:
    rid, sep, pid = case.partition(":")
    if not sep or not rid or not pid:
        raise ProtocolError("case_not_found", f"no case {case!r}")
    return rid, pid


def move_times(events: list[dict[str, Any]], pid: str) -> list[int]:
    """Per move of ``pid``: the ms since the start at which the server applied it (from the
    race's progress events; a batch's moves share one instant)."""
    out: list[int] = []
    for ev in events:
        if ev.get("k") != "progress" or ev.get("player") != pid:
            continue
        while len(out) < int(ev.get("moves", 0)):  # a resignation adds no move
            out.append(int(ev.get("elapsed", 0)))
    return out


class FairPlayService:
    """Screens ranked daily results and applies moderators' decisions to them."""

    def __init__(self, store: Store, *, hold: bool = True, analysis_nodes: int = NODES) -> None:
        self.store = store
        self.hold = hold
        # the solver's analysis of ranked lines (0 nodes, or record mode: none)
        self.analyses = Analyses(store, self._analysed, nodes=analysis_nodes) \
            if hold and analysis_nodes > 0 else None
        self._unstarted: dict[str, list[str]] = {}  # race -> analyses submitted, not started
        # called with a case once its held result is cleared or removed (daily.py counts the
        # stats of a cleared daily, results.py applies a rated race's held ratings)
        self.on_decided: list[Callable[[dict[str, Any]], Awaitable[None]]] = []

    # ------------------------------------------------------------------ screening

    async def _history(self, pid: str, account: dict[str, str] | None, kind: str) -> History:
        now = await self.store.server_time_ms()
        created = int(account.get("created_at") or now) if account else now
        recent = await self.store.recent_scores(pid)
        reports = await self.store.open_reports(pid)
        pair = pair_record(await self.store.rated_races(pid), pid) if kind == "race" \
            else (0, 0.0)
        return History(account_age_days=max(0.0, (now - created) / DAY_MS),
                       ranked_games=len(recent), open_reports=len(reports),
                       recent_scores=tuple(recent), pair_games=pair[0], pair_share=pair[1])

    async def screen_daily(self, info: RaceInfo, rec: RaceRecord, row: dict[str, Any],
                           day: str, rank_key: str) -> str:
        """Score one ranked daily attempt; store its case; ``clear``, ``pending`` (its
        analysis decides) or ``held``."""
        analyse = False
        if row["result"] == "won" and self.analyses is not None:
            par = rec.meta.get("certified_par")
            fast = bool(par) and int(row["elapsed"]) < int(par) * HUMAN_MS_PER_MOVE
            analyse = fast or await self.store.listed_before(
                day, rec.meta.get("daily_board") or info.variant, rank_key) < ANALYSED_TOP
        return await self._screen(info, rec, row, "daily", day, analyse)

    async def screen_tournament(self, info: RaceInfo, rec: RaceRecord,
                                row: dict[str, Any]) -> str:
        """Score one won tournament deal; ``clear`` or ``held`` (its points wait for a
        moderator: server/game/arenarules.py counts a held deal as nothing until cleared)."""
        return await self._screen(info, rec, row, info.kind, None, False)

    async def screen_race(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> set[str]:
        """Score every racer of a finished rated race (its winner with the solver's analysis);
        the players whose result is held or pending (the race's rating changes then wait,
        and their statistics until cleared)."""
        ranks = {row["player"]: int(row["rank"]) for row in standings}
        for pid in ranks:  # the win-trading signal reads who met whom
            await self.store.push_rated_race(pid, {"race": info.rid, "ranks": ranks})
        waiting = set()
        for row in standings:
            analyse = self.analyses is not None and row["result"] == "won" \
                and int(row["rank"]) == 1
            status = await self._screen(info, rec, row, "race", None, analyse)
            if status in (HELD, PENDING):
                waiting.add(row["player"])
        return waiting

    async def race_held(self, rid: str) -> bool:
        """Whether a result of the race is still held or pending (its rating changes wait)."""
        held = [cid for cid, _ in await self.store.held_cases(QUEUE_SCAN)]
        held += await self.store.pending_analyses(QUEUE_SCAN)
        return any(split_case(cid)[0] == rid for cid in held)

    async def _screen(self, info: RaceInfo, rec: RaceRecord, row: dict[str, Any], kind: str,
                      day: str | None, analyse: bool = False) -> str:
        pid = row["player"]
        moves = await self.store.read_log(info.rid, pid)
        times = move_times(await self.store.events_since(info.rid, 0), pid)
        n = min(len(moves), len(times))  # equal unless the stream was trimmed
        par = rec.meta.get("certified_par")
        game = GameRecord(variant=info.variant, options=info.options, seed=info.seed,
                          moves=tuple(moves[:n]), times_ms=tuple(times[:n]),
                          result=row["result"], elapsed_ms=int(row["elapsed"]),
                          par=int(par) if par else None, kind=kind)
        ev = evidence(game)
        account = await self.store.accounts.account(row["name"])
        if account is not None and account.get("player") != pid:
            account = None  # the name's owner is someone else (a guest cannot rank)
        history = await self._history(pid, account, kind)
        result = score(ev, history)
        status = HELD if result.held and self.hold else PENDING if analyse else CLEAR
        case = {
            "case": case_id(info.rid, pid), "race": info.rid, "player": pid,
            "name": row["name"], "kind": kind, "day": day, "variant": info.variant,
            "deal": {"variant": info.variant, "options": dict(info.options),
                     "seed": info.seed},
            "board": rec.meta.get("daily_board") or info.variant,  # a daily's leaderboard
            "status": status, "score": result.to_wire(), "evidence": ev,
            "history": {"account_age_days": round(history.account_age_days, 3),
                        "ranked_games": history.ranked_games,
                        "open_reports": history.open_reports,
                        "recent_scores": list(history.recent_scores),
                        "pair_games": history.pair_games, "pair_share": history.pair_share},
            "analysis": "pending" if analyse else None,
            "result": {k: row.get(k) for k in ("result", "elapsed", "moves", "home")},
            "created_at": int(time.time() * 1000),
        }
        await self.store.save_case(info.rid, pid, case)
        if not analyse:  # an analysed game's total is pushed with its analysis
            await self.store.push_score(pid, result.game_total)
        if status == HELD:
            await self._hold(case, result.total)
        if analyse:
            assert self.analyses is not None
            await self.analyses.submit(case["case"])
            self._unstarted.setdefault(info.rid, []).append(case["case"])
        return status

    async def start_analyses(self, rid: str) -> None:
        """Run the race's submitted analyses: called once the result they decide on is stored
        (daily.py after the daily entry, results.py after the race's held ratings). Never
        called (a fault in between): the sweep takes them when their lease ends."""
        for cid in self._unstarted.pop(rid, []):
            assert self.analyses is not None
            await self.analyses.start(cid)

    async def _hold(self, case: dict[str, Any], total: float) -> None:
        await self.store.enqueue_case(case["case"], total)
        await self.store.notify_player(case["player"], {"k": "review", "race": case["race"],
                                                        "status": HELD})
        log.info("%s result held for review: race %s player %s score %.2f",
                 case["kind"], case["race"], case["player"], total)

    async def _analysed(self, cid: str, analysis: dict[str, Any] | None) -> None:
        """The worker pool's analysis of a case is in (None: it kept failing): score the
        game again with it; a ``pending`` result is now listed or held."""
        rid, pid = split_case(cid)
        waiting = self._unstarted.get(rid)
        if waiting and cid in waiting:  # taken by a sweep before its caller started it
            waiting.remove(cid)
            if not waiting:
                del self._unstarted[rid]
        case = await self.store.read_case(rid, pid)
        if case is None or case.get("analysis") != "pending":
            return  # expired, or another process finished it first
        h = case["history"]
        history = History(h["account_age_days"], h["ranked_games"], h["open_reports"],
                          tuple(h["recent_scores"]), h.get("pair_games", 0),
                          h.get("pair_share", 0.0))
        result = score(case["evidence"], history, analysis)
        case["score"] = result.to_wire()
        case["analysis"] = analysis
        await self.store.push_score(pid, result.game_total)
        previous = status = case["status"]
        if previous == PENDING:
            banned = pid in await self.store.banned_players()  # banned while it waited
            status = REMOVED if banned else HELD if result.held else CLEAR
        case["status"] = status
        await self.store.save_case(rid, pid, case)
        if previous != PENDING:  # held on its timing already, or decided meanwhile
            if previous == HELD:  # the queue's order follows the full score
                await self.store.enqueue_case(cid, result.total)
            return
        if status == HELD:
            await self._hold(case, result.total)
            return
        if case["kind"] == "daily":
            await self.store.review_daily(case["day"], case.get("board", case["variant"]),
                                          pid, status)
        if status == CLEAR:
            await self.store.notify_player(pid, {"k": "review", "race": rid, "status": CLEAR})
        for hook in self.on_decided:  # stats counted, a race's ratings applied
            await hook(case)

    # ------------------------------------------------------------------ moderators

    async def queue(self, limit: int = 50) -> list[dict[str, Any]]:
        """Held cases, highest score first, each as a summary row."""
        out = []
        for cid, total in await self.store.held_cases(limit):
            rid, pid = split_case(cid)
            case = await self.store.read_case(rid, pid)
            if case is None:  # expired with its race: nothing left to review
                await self.store.dequeue_case(cid)
                continue
            out.append({
                "case": cid, "race": rid, "player": pid, "name": case["name"],
                "kind": case["kind"], "variant": case["variant"], "day": case.get("day"),
                "score": total, "status": case["status"], "result": case["result"],
                "fired": [s["name"] for s in case["score"]["signals"] if s["fired"]],
                "reports": len(await self.store.open_reports(pid)),
                "created_at": case["created_at"],
            })
        return out

    async def case(self, cid: str) -> dict[str, Any]:
        rid, pid = split_case(cid)
        case = await self.store.read_case(rid, pid)
        if case is None:
            raise ProtocolError("case_not_found", f"no case {cid!r}")
        return case

    async def case_with_reports(self, cid: str) -> dict[str, Any]:
        """A case as a moderator reads it: with the open reports on its player now."""
        case = await self.case(cid)
        case["reports"] = await self.store.open_reports(case["player"])
        return case

    async def _decide(self, cid: str, status: str, by: str) -> dict[str, Any]:
        case = await self.case(cid)
        if case["kind"] == "daily":
            await self.store.review_daily(case["day"], case.get("board", case["variant"]),
                                          case["player"], status)
        case["status"] = status
        case["decided_by"] = by
        await self.store.save_case(case["race"], case["player"], case)
        await self.store.dequeue_case(cid)
        await self.store.notify_player(case["player"], {"k": "review", "race": case["race"],
                                                        "status": status})
        return case

    async def clear(self, cid: str, by: str = "") -> dict[str, Any]:
        """List the held result at the rank its time earns, as if never held (its stats are
        counted now)."""
        case = await self.case(cid)
        if case["status"] != HELD:
            raise ProtocolError("bad_message", f"case {cid} is not held (it is {case['status']})")
        case = await self._decide(cid, CLEAR, by)
        for hook in self.on_decided:
            await hook(case)
        return case

    async def remove_player(self, pid: str, days: list[str], variants: list[str]) -> int:
        """A ban: every daily result of the player in ``days`` × ``variants`` off its board
        (kept, marked removed, so an unban can list it again), and its held rated-race results
        removed (their races' rating changes then apply without its games). Returns how many
        daily results were taken off."""
        removed = 0
        for day in days:
            for variant in variants:
                if await self.store.review_daily(day, variant, pid, REMOVED):
                    removed += 1
                    attempt = await self.store.attempt_of(day, variant, pid)
                    if attempt:
                        await self.store.dequeue_case(case_id(attempt, pid))
        for cid, _ in await self.store.held_cases(QUEUE_SCAN):  # held rated races
            rid, who = split_case(cid)
            if who == pid:
                case = await self.case(cid)
                case["status"] = REMOVED
                await self.store.save_case(rid, pid, case)
                await self.store.dequeue_case(cid)
                for hook in self.on_decided:  # the race's other results may now apply
                    await hook(case)
        return removed

    async def restore_player(self, pid: str, days: list[str], variants: list[str]) -> int:
        """An unban: the player's removed daily results listed again (held ones stay held).
        Returns how many."""
        restored = 0
        for day in days:
            for variant in variants:
                entry = await self.store.daily_entry(day, variant, pid)
                if entry is not None and entry.get("review") == REMOVED \
                        and await self.store.review_daily(day, variant, pid, CLEAR):
                    restored += 1
        return restored
