"""The requests a client may send, as frozen dataclasses validated on construction
(sans-I/O): a field that passes the type check of :func:`~solrace.shared.protocol.messages.
parse_request` is then checked for its range, pattern or size here, so the server never touches
an unchecked field. The account requests are in :mod:`.accounts`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from solrace.shared.protocol.wire import SUPPORTED_VERSIONS, ProtocolError

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,19}$")
RACE_ID_RE = re.compile(r"^[a-z0-9]{8,32}$")
CODE_RE = re.compile(r"^[A-Z2-9]{6}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLIENT_RE = re.compile(r"^[\x20-\x7e]{1,64}$")

RequestId = int | str

#: Every integer field of a request lies in 0..MAX_INT unless its class says otherwise
#: (``seed``: 0..2**64-1; request ids: any msgpack integer, echoed unchanged). 2**53-1 is
#: the largest integer a JSON or JavaScript client holds exactly; no count comes near it. Checking
#: here means no out-of-range number ever reaches Redis (where it would fail as a command
#: error and look like an outage).
MAX_INT = 2**53 - 1
MAX_POOL_WAIT = 60  # seconds the longest --pool-wait: a winnable race.create answers within it


def check_int(kind: str, name: str, value: int, lo: int = 0, hi: int = MAX_INT,
              code: str = "bad_message") -> None:
    """``value`` within ``lo..hi``, else :class:`ProtocolError` ``code``."""
    if not lo <= value <= hi:
        raise ProtocolError(code, f"{kind}: {name} must be {lo}..{hi}")


def check_date(text: str) -> None:
    """A real calendar date written ``YYYY-MM-DD`` (``2026-13-45`` is refused)."""
    try:
        ok = bool(DATE_RE.fullmatch(text)) and dt.date.fromisoformat(text).isoformat() == text
    except ValueError:
        ok = False
    if not ok:
        raise ProtocolError("bad_message", "date must be a calendar date YYYY-MM-DD")


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """Base of all client requests: ``id`` is echoed in the reply."""

    TYPE: ClassVar[str] = ""
    id: RequestId | None = None

    def __post_init__(self) -> None:
        if self.id is not None and (
            isinstance(self.id, bool)
            or not isinstance(self.id, (int, str))  # a tuple: no union built per call
            or (isinstance(self.id, str) and len(self.id) > 64)
        ):
            raise ProtocolError("bad_message", "id must be an integer or a short string")


def check_client(client: str | None) -> None:
    if client is not None and not CLIENT_RE.fullmatch(client):
        raise ProtocolError("bad_message", "client is 1-64 printable ASCII characters")


#: Race ids that passed :data:`RACE_ID_RE` lately: every request of a race names it again, and
#: a set lookup costs a fraction of the match (bounded: emptied when it reaches the cap).
_RACES_OK: set[str] = set()
_RACES_OK_CAP = 10_000


def _check_race(race: str) -> None:
    if race in _RACES_OK:
        return
    if not RACE_ID_RE.fullmatch(race):
        raise ProtocolError("race_not_found", f"no race {race!r}")
    if len(_RACES_OK) >= _RACES_OK_CAP:
        _RACES_OK.clear()
    _RACES_OK.add(race)


def _check_target(kind: str, code: str | None, race: str | None) -> None:
    """A race named by exactly one of an invite ``code`` or a ``race`` id."""
    if (code is None) == (race is None):
        raise ProtocolError("bad_message", f"{kind} needs exactly one of code, race")
    if code is not None and not CODE_RE.fullmatch(code.upper()):
        raise ProtocolError("race_not_found", f"no race with code {code!r}")
    if race is not None:
        _check_race(race)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Request):
    """First message: protocol version, then a name (new session), a token (resume) or
    neither (an anonymous spectator: may watch and list races, not race)."""

    TYPE: ClassVar[str] = "hello"
    v: int
    name: str | None = None
    token: str | None = None
    # opt-in: the server may gather several messages into one ``batch`` frame (see
    # :func:`batch_frame` and docs/protocol.md, "Batch frames")
    batch: bool = False
    client: str | None = None  # e.g. "solrace-cli 0.1": shown in the account's session list

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_client(self.client)
        if self.v not in SUPPORTED_VERSIONS:
            raise ProtocolError(
                "unsupported_version",
                f"protocol version {self.v} is not supported (server speaks "
                f"{', '.join(map(str, sorted(SUPPORTED_VERSIONS)))})",
                supported=sorted(SUPPORTED_VERSIONS),
            )
        if self.token is not None and self.name is not None:
            raise ProtocolError("bad_message", "hello takes a name or a token, not both")
        if self.token is None and self.name is not None and not NAME_RE.fullmatch(self.name):
            raise ProtocolError(
                "bad_name",
                "names are 2-20 characters: letters, digits, '_', '.', '-', "
                "starting with a letter or digit",
            )
        if self.token is not None and not 16 <= len(self.token) <= 128:
            raise ProtocolError("bad_token", "malformed session token")


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRace(Request):
    TYPE: ClassVar[str] = "race.create"
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    seats: int = 2
    time_limit: int = 600  # seconds
    rated: bool = False
    winnable: bool = False  # deal a seed the solver has won (server/game/pool.py)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if not 2 <= self.seats <= 8:
            raise ProtocolError("bad_option", "seats must be 2..8")
        if not 30 <= self.time_limit <= 7200:
            raise ProtocolError("bad_option", "time_limit must be 30..7200 seconds")
        _check_options(self.options)


def _check_options(options: dict[str, Any]) -> None:
    if len(options) > 16 or not all(
        isinstance(k, str) and isinstance(v, str | int) and not isinstance(v, bool)
        for k, v in options.items()
    ):
        raise ProtocolError("bad_option", "options map option names to string values")


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinRace(Request):
    """Join by invite ``code`` or by ``race`` id."""

    TYPE: ClassVar[str] = "race.join"
    code: str | None = None
    race: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_target(self.TYPE, self.code, self.race)


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceRequest(Request):
    """A request about one race."""

    race: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_race(self.race)


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveRace(RaceRequest):
    TYPE: ClassVar[str] = "race.leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(RaceRequest):
    TYPE: ClassVar[str] = "race.ready"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(RaceRequest):
    """A new race with the settings of a finished one, offered to its racers."""

    TYPE: ClassVar[str] = "race.rematch"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(RaceRequest):
    TYPE: ClassVar[str] = "resign"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sync(RaceRequest):
    """Events after version ``since`` (0: all) plus, for a racer, their own board."""

    TYPE: ClassVar[str] = "sync"
    since: int = 0

    def __post_init__(self) -> None:
        RaceRequest.__post_init__(self)
        check_int(self.TYPE, "since", self.since)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeqRequest(RaceRequest):
    """A request that changes the sender's game: ``seq`` is the number of moves already applied
    to it, as the sender saw it (the one sequence check of the request)."""

    seq: int

    def __post_init__(self) -> None:
        RaceRequest.__post_init__(self)
        check_int(self.TYPE, "seq", self.seq)


@dataclass(frozen=True, slots=True, kw_only=True)
class MakeMove(SeqRequest):
    """``move`` in full notation (``t3f1``) or a source only (``t3``, ``t3:2``, ``w``, ``s``:
    the server picks the move, ``docs/variants.md``); ``auto`` plays every safe card home
    after it, in the same atomic batch."""

    TYPE: ClassVar[str] = "move"
    move: str
    auto: bool = False

    def __post_init__(self) -> None:
        SeqRequest.__post_init__(self)
        if len(self.move.strip()) > 16:
            raise ProtocolError("bad_notation", "move text too long")


@dataclass(frozen=True, slots=True, kw_only=True)
class Autoplay(SeqRequest):
    """Play every provably safe card home: each a logged move, one batch, one ack."""

    TYPE: ClassVar[str] = "autoplay"


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish(SeqRequest):
    """Play the rest of the game to the win when it plays itself (else ``cannot_finish``)."""

    TYPE: ClassVar[str] = "finish"


@dataclass(frozen=True, slots=True, kw_only=True)
class Legal(RaceRequest):
    """The legal moves of the sender's own game, full notation."""

    TYPE: ClassVar[str] = "legal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch(Request):
    """Spectate a race by ``race`` id or invite ``code``: a snapshot of every board, then live
    events. ``since`` > 0 resumes after that version instead of sending a snapshot; ``full``
    sends every event from the first (a replay) instead of a snapshot."""

    TYPE: ClassVar[str] = "watch"
    race: str | None = None
    code: str | None = None
    since: int = 0
    full: bool = False

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_target(self.TYPE, self.code, self.race)
        check_int(self.TYPE, "since", self.since)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unwatch(RaceRequest):
    TYPE: ClassVar[str] = "unwatch"


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveRaces(Request):
    """Running races, newest first; ``before`` is the ``next`` cursor of the previous page."""

    TYPE: ClassVar[str] = "races.live"
    limit: int = 20
    before: int | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, 100)
        if self.before is not None:
            check_int(self.TYPE, "before", self.before)


@dataclass(frozen=True, slots=True, kw_only=True)
class DailyInfo(Request):
    """Today's daily of a variant: commitment, par, the caller's attempt, yesterday's seed."""

    TYPE: ClassVar[str] = "daily"
    variant: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DailyStart(Request):
    """Start (or resume) today's ranked attempt; ``practice`` plays the deal unranked."""

    TYPE: ClassVar[str] = "daily.start"
    variant: str
    practice: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint(RaceRequest):
    """The solver's next move for the caller's game. Practice games only: the solver sees
    face-down cards and the stock order, so a hint anywhere else would leak them."""

    TYPE: ClassVar[str] = "hint"


@dataclass(frozen=True, slots=True, kw_only=True)
class Winnable(RaceRequest):
    """Whether a win still exists from the caller's current position (the practice page's
    "still winnable?" indicator). Practice games only, as ``hint``: the solver sees hidden cards."""

    TYPE: ClassVar[str] = "winnable"


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis(RaceRequest):
    """The move that lost it, for racer ``player`` (a player id; default: the caller) of a
    finished race: computed once after the end, then stored with the race."""

    TYPE: ClassVar[str] = "analysis"
    player: str | None = None

    def __post_init__(self) -> None:
        RaceRequest.__post_init__(self)
        if self.player is not None and not re.fullmatch(r"[0-9a-z-]{1,40}", self.player):
            raise ProtocolError("bad_message", "analysis: player is a player id")


BOT_STRENGTHS = ("weak", "medium", "strong")
MAX_BOTS = 7  # a race seats at most 8
SEED_MAX = 2**64 - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class PracticeStart(Request):
    """A practice race against 0–7 server bots, started at once. Never rated or ranked and
    never watchable: the bots know the hidden cards (``docs/protocol.md`` 5.18)."""

    TYPE: ClassVar[str] = "practice.start"
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    bots: list[str] = field(default_factory=list)
    time_limit: int = 600  # seconds
    seed: int | None = None  # None: a random deal

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_options(self.options)
        if len(self.bots) > MAX_BOTS or not all(b in BOT_STRENGTHS for b in self.bots):
            raise ProtocolError(
                "bad_option", f"bots is a list of at most {MAX_BOTS} of "
                + ", ".join(BOT_STRENGTHS))
        if not 30 <= self.time_limit <= 3600:
            raise ProtocolError("bad_option", "time_limit must be 30..3600 seconds")
        if self.seed is not None and not 0 <= self.seed <= SEED_MAX:
            raise ProtocolError("bad_option", "seed must be an unsigned 64-bit integer")


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(Request):
    """A daily leaderboard page: ``offset``/``limit``, or the page around the caller."""

    TYPE: ClassVar[str] = "leaderboard"
    variant: str
    date: str | None = None
    offset: int = 0
    limit: int = 20
    around_me: bool = False

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, 100)
        check_int(self.TYPE, "offset", self.offset)
        if self.date is not None:
            check_date(self.date)


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile(Request):
    """Ratings and all-time stats of a player (by name; the caller when omitted)."""

    TYPE: ClassVar[str] = "profile"
    name: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if self.name is not None and not NAME_RE.fullmatch(self.name):
            raise ProtocolError("bad_name", "not a valid player name")


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickPair(Request):
    TYPE: ClassVar[str] = "quick"
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    winnable: bool = False  # pair only with players asking the same; a pooled seed

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_options(self.options)


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickCancel(Request):
    TYPE: ClassVar[str] = "quick.cancel"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class MyRaces(Request):
    """The caller's races that are not finished (after a resume)."""

    TYPE: ClassVar[str] = "races.mine"
