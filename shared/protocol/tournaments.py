"""The tournament requests (sans-I/O): list, create, join, play the next deal or match,
standings, a knockout's bracket.
docs/protocol.md section 22 is their contract; docs/tournaments.md the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from solrace.shared.protocol.requests import Request, _check_options, check_int
from solrace.shared.protocol.wire import ProtocolError

TOURNAMENT_REF_RE = re.compile(r"^[A-Za-z0-9]{6,32}$")
TITLE_RE = re.compile(r"^[\x20-\x7e]{1,40}$")
MAX_STARTS_IN = 7 * 24 * 3600  # seconds


def _check_ref(kind: str, ref: str) -> None:
    if not TOURNAMENT_REF_RE.fullmatch(ref):
        raise ProtocolError("bad_message", f"{kind}: tournament is an id or an invite code")


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentList(Request):
    """Public tournaments: upcoming, live and finished."""

    TYPE: ClassVar[str] = "tournaments"
    limit: int = 20

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, 100)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreate(Request):
    """A new private tournament (an invite code): an arena, a scheduled event of ``deals``
    deals (its window is their time; ``minutes`` is then not used), or a knockout of up to
    ``max_entrants`` (its rounds follow each other from ``starts_in``)."""

    TYPE: ClassVar[str] = "tournament.create"
    name: str
    variant: str
    format: str = "arena"
    deals: int = 3
    options: dict[str, str | int] = field(default_factory=dict)
    starts_in: int = 0  # seconds from now
    minutes: int = 30
    deal_seconds: int = 300
    max_entrants: int = 64  # a knockout's

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if not TITLE_RE.fullmatch(self.name):
            raise ProtocolError("bad_message", "tournament.create: name is 1-40 printable "
                                "ASCII characters")
        if len(self.variant) > 40:
            raise ProtocolError("bad_option", "tournament.create: no such variant")
        _check_options(self.options)
        check_int(self.TYPE, "starts_in", self.starts_in, 0, MAX_STARTS_IN, "bad_option")
        check_int(self.TYPE, "minutes", self.minutes, 10, 120, "bad_option")
        check_int(self.TYPE, "deal_seconds", self.deal_seconds, 30, 1800, "bad_option")
        check_int(self.TYPE, "deals", self.deals, 1, 5, "bad_option")
        check_int(self.TYPE, "max_entrants", self.max_entrants, 8, 64, "bad_option")
        if self.format not in ("arena", "event", "knockout"):
            raise ProtocolError("bad_option", "tournament.create: format is arena, event or "
                                "knockout")


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentJoin(Request):
    """Enter a tournament (by id, or a private one's invite code)."""

    TYPE: ClassVar[str] = "tournament.join"
    tournament: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_ref(self.TYPE, self.tournament)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(Request):
    """A tournament's summary (by id or invite code), entering nothing."""

    TYPE: ClassVar[str] = "tournament.info"
    tournament: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_ref(self.TYPE, self.tournament)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentPlay(Request):
    """The entrant's current deal (resumed), or the next one; ``berserk`` halves the next
    deal's time limit for a bonus if won."""

    TYPE: ClassVar[str] = "tournament.play"
    tournament: str
    berserk: bool = False

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_ref(self.TYPE, self.tournament)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentStandings(Request):
    """The standings now; ``follow``: and a ``standings`` frame whenever they change, at
    most once a second, until the connection closes or asks again without it."""

    TYPE: ClassVar[str] = "tournament.standings"
    tournament: str
    follow: bool = False

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_ref(self.TYPE, self.tournament)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentBracket(Request):
    """A knockout's bracket now; ``follow``: and a ``bracket`` frame whenever it changes, at
    most once a second, until the connection closes or asks again without it."""

    TYPE: ClassVar[str] = "tournament.bracket"
    tournament: str
    follow: bool = False

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_ref(self.TYPE, self.tournament)


TOURNAMENT_REQUESTS = (TournamentList, TournamentCreate, TournamentInfo, TournamentJoin,
                       TournamentPlay, TournamentStandings, TournamentBracket)
