"""A knockout's bracket as it stands, and how it moves on (docs/tournaments.md, "Knockout").

:mod:`.knockout` holds the rules of one decision (seeding, byes, who advances); this module
holds the state over time — every match played so far, the round being played, who is
banned — as a value the server stores whole (one JSON document per tournament, replaced by
compare-and-set) and every process recomputes the same way. Each function returns a new
:class:`Bracket` and leaves its argument alone; deciding a match twice changes nothing, so
two processes that both see a race end or a start window close advance the bracket once.

A round opens with all its matches; each match's **start window** (``show_by``) closes
``show_ms`` after the round opened. When the last match of a round is decided the next round
opens at once (its winners' matches, :func:`.knockout.next_round`); after the final the
knockout is finished.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from solrace.shared.tournaments import knockout as rules
from solrace.shared.tournaments.machine import (
    Format,
    TournamentEvent,
    TournamentState,
    next_state,
)

E = TournamentEvent


class How(StrEnum):
    """How a match was decided."""

    BYE = "bye"  # no opponent in the bracket
    RACE = "race"  # the race's standings separated the two
    TIE = "tie"  # the race could not separate them: the higher seed advances
    WALKOVER = "walkover"  # one was not ready when the start window closed
    NO_SHOW = "no_show"  # neither was ready: the higher seed advances
    FORFEIT = "forfeit"  # the loser was banned


@dataclass(frozen=True, slots=True)
class Entrant:
    seed: int
    player: str
    name: str
    rating: int


@dataclass(frozen=True, slots=True)
class MatchState:
    """One match: ``high``/``low`` the players (pids) of the higher and lower seed (None: a
    bye); ``race`` its race once created; ``winner`` once decided, with ``how``; ``review``
    the fair-play status of a win in a race (``clear``, ``held``, ``removed``)."""

    round: int
    index: int
    high: str | None
    low: str | None
    show_by: int
    race: str | None = None
    winner: str | None = None
    how: How | None = None
    review: str = "clear"

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.low if self.winner == self.high else self.high

    def has(self, pid: str) -> bool:
        return pid in (self.high, self.low)


@dataclass(frozen=True, slots=True)
class Bracket:
    state: TournamentState
    show_ms: int
    entrants: tuple[Entrant, ...] = ()
    matches: tuple[MatchState, ...] = ()
    round: int = 0  # the round being played (0: not started)
    rounds: int = 0
    banned: frozenset[str] = field(default_factory=frozenset)
    finished_at: int = 0

    def seed_of(self, pid: str) -> int:
        return next(e.seed for e in self.entrants if e.player == pid)

    def current(self) -> list[MatchState]:
        return [m for m in self.matches if m.round == self.round]

    def match_of(self, pid: str) -> MatchState | None:
        """The player's match in the round being played (decided or not), or None."""
        return next((m for m in self.current() if m.has(pid)), None)

    def wire(self) -> dict[str, Any]:
        return {
            "state": self.state.value, "show_ms": self.show_ms, "round": self.round,
            "rounds": self.rounds, "banned": sorted(self.banned),
            "finished_at": self.finished_at,
            "entrants": [[e.seed, e.player, e.name, e.rating] for e in self.entrants],
            "matches": [[m.round, m.index, m.high, m.low, m.show_by, m.race, m.winner,
                         m.how.value if m.how else None, m.review] for m in self.matches],
        }

    @classmethod
    def from_wire(cls, d: dict[str, Any]) -> Bracket:
        return cls(
            TournamentState(d["state"]), int(d["show_ms"]),
            tuple(Entrant(int(s), p, n, int(r)) for s, p, n, r in d["entrants"]),
            tuple(MatchState(int(r), int(i), h, lo, int(sb), race, w,
                             How(how) if how else None, rev)
                  for r, i, h, lo, sb, race, w, how, rev in d["matches"]),
            int(d["round"]), int(d["rounds"]), frozenset(d["banned"]), int(d["finished_at"]))


def start(entrants: Sequence[tuple[str, str, float, float, int]], now: int, show_ms: int,
          banned: frozenset[str] = frozenset()) -> Bracket:
    """The bracket at the start, from ``(player, name, rating, deviation, joined)`` per
    entrant: round 1 open (its byes decided, and the matches of ``banned`` entrants
    forfeit), or cancelled with fewer than :data:`.knockout.MIN_ENTRANTS`."""
    if len(entrants) < rules.MIN_ENTRANTS:
        return Bracket(next_state(Format.KNOCKOUT, TournamentState.OPEN, E.CANCEL), show_ms,
                       finished_at=now)
    names = {p: (n, r) for p, n, r, _, _ in entrants}
    seeds = rules.seed_order([(p, r, d, j) for p, _, r, d, j in entrants])
    people = tuple(Entrant(s.seed, s.player, names[s.player][0], round(names[s.player][1]))
                   for s in seeds)
    out = banned & {p for p, _, _, _, _ in entrants}
    matches = tuple(_open(m, now + show_ms, out) for m in rules.first_round(seeds))
    state = next_state(Format.KNOCKOUT, TournamentState.OPEN, E.START)
    return _roll(Bracket(state, show_ms, people, matches, 1, rules.rounds(len(seeds)), out),
                 now)


def _open(m: rules.Match, show_by: int, banned: frozenset[str]) -> MatchState:
    high = m.high.player if m.high else None
    low = m.low.player if m.low else None
    out = MatchState(m.round, m.index, high, low, show_by)
    if high is None or low is None:
        return replace(out, winner=high or low, how=How.BYE)
    if low in banned or high in banned:  # a banned entrant forfeits (both: the higher seed)
        return replace(out, winner=low if high in banned and low not in banned else high,
                       how=How.FORFEIT)
    return out


def _roll(b: Bracket, now: int) -> Bracket:
    """Open the next round while the current one is complete; finish after the final."""
    while b.state is TournamentState.RUNNING and all(m.decided for m in b.current()):
        winners = [m.winner for m in sorted(b.current(), key=lambda m: m.index)]
        if b.round >= b.rounds:
            state = next_state(Format.KNOCKOUT, b.state, E.ALL_DONE)
            return replace(b, state=state, finished_at=now)
        seeded = [rules.Seeded(b.seed_of(w), w) for w in winners if w is not None]
        nxt = tuple(_open(m, now + b.show_ms, b.banned) for m in rules.next_round(b.round,
                                                                                 seeded))
        next_state(Format.KNOCKOUT, b.state, E.ROUND_DONE)
        b = replace(b, matches=b.matches + nxt, round=b.round + 1)
    return b


def _put(b: Bracket, m: MatchState) -> Bracket:
    return replace(b, matches=tuple(m if (x.round, x.index) == (m.round, m.index) else x
                                    for x in b.matches))


def find(b: Bracket, round_no: int, index: int) -> MatchState:
    return next(m for m in b.matches if (m.round, m.index) == (round_no, index))


def attach_race(b: Bracket, round_no: int, index: int, rid: str) -> Bracket:
    """Record match ``(round_no, index)``'s race, once (a second race is not recorded)."""
    m = find(b, round_no, index)
    if m.race is not None or m.decided:
        return b
    return _put(b, replace(m, race=rid))


def decide(b: Bracket, round_no: int, index: int, winner: str, how: How, now: int,
           review: str = "clear") -> Bracket:
    """Match ``(round_no, index)`` won by ``winner``; the next round opens if that was the
    round's last match. A decided match stays as it was decided."""
    m = find(b, round_no, index)
    if m.decided or b.state is not TournamentState.RUNNING:
        return b
    if not m.has(winner):
        raise ValueError(f"{winner} is not in match {round_no}.{index}")
    next_state(Format.KNOCKOUT, b.state, E.PLAY)
    return _roll(_put(b, replace(m, winner=winner, how=how, review=review)), now)


def race_winner(b: Bracket, m: MatchState, first: str | None, separated: bool
                ) -> tuple[str, How]:
    """Who wins a match whose race ran, and how (:func:`.knockout.winner`)."""
    match = _as_rules(b, m)
    won = rules.winner(match, True, True, first, separated)
    return won.player, How.RACE if separated and first is not None else How.TIE


def no_show_winner(b: Bracket, m: MatchState, ready: Iterable[str]) -> tuple[str, How]:
    """Who wins a match whose start window closed before its race started."""
    here = set(ready)
    if m.high in here and m.low in here:
        raise ValueError("both are ready: their race decides the match")
    match = _as_rules(b, m)
    won = rules.winner(match, m.high in here, m.low in here, None, False)
    both_absent = m.high not in here and m.low not in here
    return won.player, How.NO_SHOW if both_absent else How.WALKOVER


def _as_rules(b: Bracket, m: MatchState) -> rules.Match:
    def seeded(pid: str | None) -> rules.Seeded | None:
        return rules.Seeded(b.seed_of(pid), pid) if pid is not None else None
    return rules.Match(m.round, m.index, seeded(m.high), seeded(m.low))


def ban(b: Bracket, pid: str, now: int) -> Bracket:
    """A banned entrant forfeits every match not yet decided (the one being played now, and
    any later one); decided matches stand. They are left off the podium (:func:`podium`)."""
    if pid in b.banned or not any(e.player == pid for e in b.entrants):
        return b
    b = replace(b, banned=b.banned | {pid})
    m = b.match_of(pid)
    if b.state is TournamentState.RUNNING and m is not None and not m.decided:
        other = m.low if m.high == pid else m.high
        assert other is not None
        winner = other if other not in b.banned else m.high
        assert winner is not None
        b = decide(b, m.round, m.index, winner, How.FORFEIT, now)
    return b


def unban(b: Bracket, pid: str) -> Bracket:
    """Lifting a ban puts the entrant back on the podium; the matches forfeited stay lost."""
    return replace(b, banned=b.banned - {pid}) if pid in b.banned else b


def set_review(b: Bracket, rid: str, status: str) -> Bracket:
    """A moderator decided the held win of race ``rid``: ``clear`` or ``removed``."""
    m = next((x for x in b.matches if x.race == rid), None)
    if m is None or m.review == status:
        return b
    return _put(b, replace(m, review=status))


def disqualified(b: Bracket) -> frozenset[str]:
    """Entrants left off the podium: banned, or a win of theirs removed by a moderator."""
    removed = {m.winner for m in b.matches if m.review == "removed" and m.winner}
    return b.banned | frozenset(removed)


def podium(b: Bracket) -> dict[str, Any]:
    """Once finished: the winner, the finalist and the semi-finalists (the losers of the
    semi-finals, by seed); a disqualified entrant's place is left empty (None)."""
    if b.state not in (TournamentState.FINISHED, TournamentState.FINAL):
        return {}
    out = disqualified(b)
    final = find(b, b.rounds, 0)

    def keep(pid: str | None) -> str | None:
        return pid if pid is not None and pid not in out else None

    semis = sorted((m.loser for m in b.matches if m.round == b.rounds - 1 and m.loser),
                   key=b.seed_of)
    return {"winner": keep(final.winner), "finalist": keep(final.loser),
            "semi_finalists": [keep(p) for p in semis]}


def next_due(b: Bracket, now: int) -> int | None:
    """When the bracket next needs a look even if no race ends: the earliest open start
    window of an undecided match; None once it is over."""
    if b.state is not TournamentState.RUNNING:
        return None
    windows = [m.show_by for m in b.current() if not m.decided]
    return min(windows) if windows else now
