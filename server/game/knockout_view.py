"""A knockout's bracket as its followers and ``tournament.bracket`` see it (docs/protocol.md
section 22.6), and the frame a follower of any tournament gets: separate from
:mod:`.knockout`, which runs the bracket, because showing it is read-only and needs nothing of
the races."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from solrace.server.game import arenastandings
from solrace.server.store import Store
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError
from solrace.shared.tournaments import bracket as B
from solrace.shared.tournaments.machine import Format
from solrace.shared.tournaments.machine import TournamentState as S


def feed(store: Store) -> tuple[Callable[[str], Awaitable[Any]],
                                 Callable[[Any, str | None], dict[str, Any]]]:
    """What a follower of a tournament gets (server/fanout/standings.py): ``snapshot(tid)``,
    one read per tick, and ``frame(snapshot, pid)``, each follower's frame without I/O — a
    ``bracket`` frame for a knockout, the ``standings`` of an arena or an event."""
    async def snapshot(tid: str) -> tuple[str, Any]:
        meta = await store.tournaments.meta(tid)
        if meta is None:
            raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
        if meta.get("format") == Format.KNOCKOUT:
            return "bracket", await _read(store, tid, meta)
        return "standings", await arenastandings.read(store, tid, meta, whole=True)

    def frame(snap: tuple[str, Any], pid: str | None) -> dict[str, Any]:
        kind, data = snap
        if kind == "bracket":
            return P.push("bracket", **_render(data["tid"], data, pid))
        return P.push("standings", **arenastandings.frame(data, pid))

    return snapshot, frame


async def _read(store: Store, tid: str, meta: dict[str, str]) -> dict[str, Any]:
    """One read of a knockout's bracket (or, before its start, its entrants)."""
    raw, _ = await store.tournaments.bracket(tid)
    people = await store.tournaments.entrants(tid) if raw is None else []
    return {"tid": tid, "meta": meta, "raw": raw, "people": people}


async def view(store: Store, tid: str, pid: str | None) -> dict[str, Any]:
    """The bracket now, with ``pid``'s match of the round being played."""
    meta = await store.tournaments.meta(tid)
    if meta is None:
        raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
    if meta.get("format") != Format.KNOCKOUT:
        raise ProtocolError("bad_option", "only a knockout has a bracket")
    return _render(tid, await _read(store, tid, meta), pid)


def _render(tid: str, data: dict[str, Any], pid: str | None) -> dict[str, Any]:
    """``pid``'s view of one read of the bracket (no I/O: the feed renders it per follower)."""
    meta, raw = data["meta"], data["raw"]
    out: dict[str, Any] = {"tournament": tid, "v": int(meta.get("v", 0)),
                           "state": meta.get("ko_state", S.OPEN.value)}
    if raw is None:
        out.update(round=0, rounds=0, matches=[], my_match=None, entrants=[
            {"seed": None, "player": p, "name": n, "rating": None}
            for p, _, n in data["people"]])
        return out
    b = B.Bracket.from_wire(raw)
    out["state"] = b.state.value
    gone = B.disqualified(b)
    out["round"], out["rounds"] = b.round, b.rounds
    out["entrants"] = [{"seed": e.seed, "player": e.player, "name": e.name,
                        "rating": e.rating} | ({"banned": True} if e.player in b.banned
                                               else {}) for e in b.entrants]
    out["matches"] = [
        {"round": m.round, "index": m.index, "high": m.high, "low": m.low,
         "show_by": m.show_by, "winner": m.winner,
         "how": m.how.value if m.how else None, "review": m.review}
        # a match being played names its race: spectators watch it (protocol.md 13.4)
        | ({"race": m.race} if m.race and not m.winner and b.state is S.RUNNING else {})
        for m in b.matches]
    mine = b.match_of(pid) if pid else None
    out["my_match"] = {"round": mine.round, "index": mine.index} if mine else None
    if b.state in (S.FINISHED, S.FINAL):
        out["podium"] = B.podium(b)
    if gone:
        out["disqualified"] = sorted(gone)
    return out
