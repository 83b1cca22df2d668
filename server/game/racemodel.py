"""What the server knows about a race besides its Redis record: the fixed facts (:class:`RaceInfo`,
cached per process), a player's cached game (:class:`GameEntry`), and the standings rule."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any

from solrace.server.store import RaceRecord
from solrace.shared.engine import Game
from solrace.shared.rules import Variant

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I

#: How many fresh seeds :func:`playable_seed` draws at most. Seven by Five's seed rules, the
#: variant with the most deals over as dealt, leave about 55 % playable, so 64 draws all
#: failing has a chance near 1e-22; the last draw is then used as it is.
PLAYABLE_TRIES = 64


def parse_options(text: str) -> dict[str, str]:
    """Inverse of :func:`~solrace.shared.rules.options_text`."""
    return dict(kv.split("=", 1) for kv in text.split(",") if kv)


def new_race_id() -> str:
    return secrets.token_hex(8)


def playable_seed(variant: Variant | str, options: dict[str, str]) -> int:
    """A fresh unpredictable seed whose deal is not over before the first move.

    Some deals are lost as dealt: the status check proves that no card can ever go home (about
    45 % of Seven by Five deals under its seed rules, 0.2 % of Unlimited draw-3 deals). A race,
    practice game or quick pair on such a deal would open on a finished board, so a random deal
    skips them (a seed the caller names is used as it is). The skip reveals nothing hidden: the
    status of the deal is shown to every racer at the first frame anyway."""
    seed = secrets.randbits(64)
    for _ in range(PLAYABLE_TRIES - 1):
        if not Game(variant, options, seed).is_over():
            break
        seed = secrets.randbits(64)
    return seed


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


@dataclass(slots=True)
class Player:
    pid: str
    name: str
    title: str = ""  # "BOT" for a BOT account: shown beside the name in every frame


@dataclass(slots=True)
class RaceInfo:
    """The parts of a race that never change once it exists (cached per process)."""

    rid: str
    variant: str
    options: dict[str, str]
    seed: int
    seats: int
    time_limit: int
    rated: bool
    code: str
    host: str
    kind: str = "race"
    bots: dict[str, str] = field(default_factory=dict)  # bot player id -> strength (practice)
    home: str = ""  # advertised URL of the process that created it ("": none)

    @classmethod
    def of(cls, rec: RaceRecord) -> RaceInfo:
        m = rec.meta
        return cls(
            rid=rec.rid,
            variant=m["variant"],
            options=parse_options(m["options"]),
            seed=int(m["seed"]),
            seats=int(m["seats"]),
            time_limit=int(m["time_limit"]),
            rated=m["rated"] == "1",
            code=m["code"],
            host=m["host"],
            kind=m.get("kind", "race"),
            bots=parse_options(m.get("bots", "")),
            home=m.get("home_url", ""),
        )


class GameLock(asyncio.Lock):
    """The lock of one cached game, which can also be taken without a coroutine when that
    needs no wait (the move path's synchronous start, :meth:`MovePath.move_now`)."""

    def try_acquire(self) -> bool:
        """Take the lock now if ``acquire()`` would take it without suspending — free, and
        nobody queued for it (a queued waiter is left its turn: False, go through
        ``acquire``); False otherwise. Released with :meth:`release` as usual."""
        if self._locked or self._waiters:  # type: ignore[attr-defined]
            return False
        self._locked = True
        return True


@dataclass(slots=True)
class GameEntry:
    game: Game
    view: dict[str, Any]
    lock: GameLock = field(default_factory=GameLock)


def standings(rec: RaceRecord, dealt_home: int = 0) -> list[dict[str, Any]]:
    """Winners by finish time; then by cards home (more first), earlier last progress (who
    got their cards home first; none: last), more moves; then seat order. A racer who never
    moved therefore never outranks one with as many cards home who played (issue 10):
    ``docs/protocol.md`` section 11 states the same rule for players."""
    ended = rec.num("ends_at") - rec.num("started_at")
    rows = []
    for seat, pid in enumerate(rec.order):
        p = rec.players.get(pid, {})
        result = p.get("result") or "timeout"
        rows.append(
            {
                "player": pid,
                "name": rec.names.get(pid, "?"),
                "result": result,
                "home": int(p.get("home") or dealt_home),  # no move yet: as dealt
                "moves": int(p.get("moves", 0) or 0),
                "elapsed": int(p["finished_at"]) if p.get("finished_at") else ended,
                "progress_at": int(p["progress_at"]) if p.get("progress_at") else None,
                "seat": seat,
            } | ({"title": p["title"]} if p.get("title") else {})
        )

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        if r["result"] == "won":
            return (0, r["elapsed"], r["seat"])
        progress = r["progress_at"] if r["progress_at"] is not None else 1 << 62
        return (1, -r["home"], progress, -r["moves"], r["seat"])

    rows.sort(key=key)
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    return rows


def dealt_home(info: RaceInfo) -> int:
    """Cards the deal itself puts home (Sixes and Sevens deals some): a racer who has not
    moved has exactly these, not zero."""
    return Game(info.variant, info.options, info.seed).cards_home
