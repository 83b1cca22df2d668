"""The wire protocol: message types, validation and the msgpack codec (sans-I/O).

Every frame is one binary websocket message holding one msgpack map. Client requests carry
``t`` (type) and ``id`` (a client-chosen request id, echoed as ``re`` in the reply); server
frames carry ``t`` and, for replies, ``re``; race events carry ``race`` and ``v`` (version).
``docs/protocol.md`` is the contract; this module is its executable form.

Requests are small frozen dataclasses validated on construction (h11's events are the model):
:func:`decode_request` turns bytes into one of them or raises :class:`ProtocolError` with a
wire error code, so the server never touches an unchecked field.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import threading
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgpack

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = frozenset({1})

MAX_FRAME = 64 * 1024  # bytes; the server's websocket max_size as well

# Stable error codes (docs/protocol.md lists each with its meaning).
ERROR_CODES = (
    "bad_message",  # not msgpack, not a map, a field missing or of the wrong type
    "unknown_type",  # the type field names no request
    "too_large",  # frame above the size limit
    "unsupported_version",  # hello with a protocol version this server does not speak
    "not_authenticated",  # a request before hello
    "already_authenticated",  # a second hello on one connection
    "bad_name",  # display name fails the rules
    "name_taken",  # another live session holds that name
    "bad_token",  # unknown or expired session token
    "bad_option",  # unknown variant, option or value; bad seats or time limit
    "race_not_found",  # no such race id or invite code
    "race_full",  # every seat is taken
    "race_started",  # join/leave/ready after the lobby closed
    "not_in_race",  # the race exists but the caller is not a racer in it
    "not_watching",  # unwatch of a race this connection does not watch
    "not_watchable",  # daily and practice games cannot be watched (their deal is secret)
    "already_played",  # the ranked daily attempt of the day is used up (practice is allowed)
    "not_practice",  # hint in a game that is not a practice game (races, ranked dailies)
    "player_not_found",  # profile of a name no player holds
    "not_your_game",  # acting on a game that belongs to someone else
    "not_running",  # a move or resign when the race is not running
    "already_finished",  # the caller's game is over
    "illegal_move",  # the rules forbid the move (detail says why)
    "no_legal_move",  # a move naming only its source (t3, w): nothing may move from there
    "cannot_finish",  # finish while the rest of the game does not play itself (reason says why)
    "bad_notation",  # the move text does not parse
    "stale_seq",  # seq is not the number of moves applied; reply carries the current seq
    "no_rematch",  # race.rematch of a race that is not over, or of a daily or practice game
    "already_queued",  # quick pairing twice
    "pool_empty",  # winnable race: no certified deal ready in time (retry_after: seconds)
    "rate_limited",  # too many messages, or too many wrong passwords (retry_after: seconds)
    "account_required",  # ranked play (rated races, the ranked daily) by a guest: register
    "bad_password",  # a new password fails the length rules (reason says which)
    "bad_credentials",  # login or password check: wrong name or password
    "already_registered",  # register from a session that is already an account's
    "session_not_found",  # session.revoke of an id that is not one of the account's sessions
    "unavailable",  # the server cannot reach its store right now; retry
    "internal",  # a bug: reported, the connection survives
)


class ProtocolError(Exception):
    """A request the server refuses; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, reason: str, **extra: Any) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.extra = extra


# ----------------------------------------------------------------------------- codec


_PACKERS = threading.local()  # one msgpack Packer per thread: a Packer is not thread-safe


def encode(message: dict[str, Any]) -> bytes:
    """``msgpack.packb(message, use_bin_type=True)``, by a Packer kept per thread (building
    one per message cost a fifth of the packing of an ack; the bytes are the same)."""
    try:
        pack = _PACKERS.pack
    except AttributeError:
        pack = _PACKERS.pack = msgpack.Packer(use_bin_type=True).pack
    return pack(message)


#: ``{"t": "batch", "msgs": `` — the head of a batch frame, before the array of messages
_BATCH_HEAD = b"\x82" + msgpack.packb("t") + msgpack.packb("batch") + msgpack.packb("msgs")


def batch_frame(frames: list[bytes]) -> bytes:
    """One frame ``{"t": "batch", "msgs": [m1, m2, ...]}`` from already encoded messages, in
    order, each exactly as it would have been sent alone (a client that asked for batches in
    ``hello`` unpacks them in order). Built by concatenation: no message is encoded twice."""
    n = len(frames)
    head = bytes((0x90 | n,)) if n < 16 else b"\xdc" + n.to_bytes(2, "big")
    return b"".join((_BATCH_HEAD, head, *frames))


def unbatch(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of a received frame: those of a ``batch`` frame, else the frame itself."""
    if message.get("t") == "batch" and isinstance(message.get("msgs"), list):
        return message["msgs"]
    return [message]


def decode(data: bytes | str) -> dict[str, Any]:
    """Bytes to a map, with size limits; :class:`ProtocolError` on anything else."""
    if isinstance(data, str):
        raise ProtocolError("bad_message", "frames must be binary msgpack, not text")
    if len(data) > MAX_FRAME:
        raise ProtocolError("too_large", f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_str_len=4096,
            max_bin_len=4096,
            max_array_len=1024,
            max_map_len=64,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types
        raise ProtocolError("bad_message", f"not a msgpack frame ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise ProtocolError("bad_message", "a frame must be a msgpack map")
    return obj


# ----------------------------------------------------------------------------- requests

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,19}$")
RACE_ID_RE = re.compile(r"^[a-z0-9]{8,32}$")
CODE_RE = re.compile(r"^[A-Z2-9]{6}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

RequestId = int | str

#: Every integer field of a request lies in 0..MAX_INT unless its class says otherwise
#: (``seed``: 0..2**64-1; request ids: any msgpack integer, echoed unchanged). 2**53-1 is
#: the largest integer a JSON or JavaScript client holds exactly; no count comes near it. Checking
#: here means no out-of-range number ever reaches Redis (where it would fail as a command
#: error and look like an outage).
MAX_INT = 2**53 - 1


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


def _check_race(race: str) -> None:
    if not RACE_ID_RE.fullmatch(race):
        raise ProtocolError("race_not_found", f"no race {race!r}")


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
        _check_client(self.client)
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
    winnable: bool = False  # deal a seed the solver has won (server/pool.py)

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


# ----------------------------------------------------------------------------- accounts

MAX_POOL_WAIT = 60  # seconds the longest --pool-wait: a winnable race.create answers within it
MAX_PASSWORD = 512  # characters on the wire; the server's rules are stricter (bad_password)
CLIENT_RE = re.compile(r"^[\x20-\x7e]{1,64}$")
SESSION_ID_RE = re.compile(r"^[0-9a-f]{12}$")


def _check_client(client: str | None) -> None:
    if client is not None and not CLIENT_RE.fullmatch(client):
        raise ProtocolError("bad_message", "client is 1-64 printable ASCII characters")


def _check_password(field_name: str, password: str) -> None:
    if len(password) > MAX_PASSWORD:
        raise ProtocolError("bad_password", f"{field_name} is longer than {MAX_PASSWORD}")


def _check_name(name: str) -> None:
    if not NAME_RE.fullmatch(name):
        raise ProtocolError("bad_name", "not a valid player name")


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(Request):
    """Make an account: of the guest this connection is (``name`` defaults to the guest's
    name; the player id, ratings and history are kept), or of a new player on an anonymous
    connection (``name`` required)."""

    TYPE: ClassVar[str] = "register"
    password: str = field(repr=False)  # never in a log line, not even by accident
    name: str | None = None
    client: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if self.name is not None:
            _check_name(self.name)
        _check_password("password", self.password)
        _check_client(self.client)


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(Request):
    """A new session of an account, on an anonymous connection (or on one already logged in
    to that account)."""

    TYPE: ClassVar[str] = "login"
    name: str
    password: str = field(repr=False)
    client: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_name(self.name)
        _check_password("password", self.password)
        _check_client(self.client)


@dataclass(frozen=True, slots=True, kw_only=True)
class Logout(Request):
    TYPE: ClassVar[str] = "logout"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sessions(Request):
    TYPE: ClassVar[str] = "sessions"


@dataclass(frozen=True, slots=True, kw_only=True)
class RevokeSession(Request):
    TYPE: ClassVar[str] = "session.revoke"
    session: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if not SESSION_ID_RE.fullmatch(self.session):
            raise ProtocolError("session_not_found", f"no session {self.session!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangePassword(Request):
    TYPE: ClassVar[str] = "password.change"
    old: str = field(repr=False)
    new: str = field(repr=False)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_password("old", self.old)
        _check_password("new", self.new)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteAccount(Request):
    TYPE: ClassVar[str] = "account.delete"
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_password("password", self.password)


ACCOUNT_REQUESTS = (Register, Login, Logout, Sessions, RevokeSession, ChangePassword,
                    DeleteAccount)

_REQUESTS: dict[str, type[Request]] = {
    cls.TYPE: cls
    for cls in (
        Hello, CreateRace, JoinRace, LeaveRace, Ready, Resign, Sync, MakeMove, QuickPair,
        QuickCancel, Ping, MyRaces, Watch, Unwatch, LiveRaces, DailyInfo, DailyStart,
        Leaderboard, Profile, Hint, PracticeStart, Autoplay, Finish, Legal, Rematch,
        *ACCOUNT_REQUESTS,
    )
}


def _type_ok(value: Any, annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is dict or annotation is dict:
        return isinstance(value, dict)
    if origin is list or annotation is list:  # items are checked by the request itself
        return isinstance(value, list)
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return False


def _checker(annotation: Any) -> Any:
    """A fast type test for one field annotation (built once per request class)."""
    exact = {int: int, str: str, bool: bool}
    options = typing.get_args(annotation) if typing.get_origin(annotation) in (
        typing.Union, types.UnionType) else (annotation,)
    simple = [exact.get(a) for a in options]
    if all(simple) or (type(None) in options and all(
            exact.get(a) for a in options if a is not type(None))):
        allowed = tuple(exact[a] for a in options if a is not type(None))
        nullable = type(None) in options
        # type() is exact: a bool is never accepted where an int is expected
        return lambda v: type(v) in allowed or (nullable and v is None)
    return lambda v: _type_ok(v, annotation)


_FIELDS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}


def _fields(cls: type[Request]) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type check, required) per field of a request class, cached."""
    spec = _FIELDS.get(cls)
    if spec is None:
        hints = typing.get_type_hints(cls)
        spec = _FIELDS[cls] = tuple(
            (f.name, _checker(hints[f.name]),
             f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls)
        )
    return spec


def parse_request(msg: dict[str, Any]) -> Request:
    """A validated request from a decoded map; :class:`ProtocolError` otherwise."""
    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "missing type field 't'")
    cls = _REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown request type {kind!r}")
    kwargs: dict[str, Any] = {}
    for name, ok, required in _fields(cls):
        if name in msg:
            value = msg[name]
            if not ok(value):
                raise ProtocolError("bad_message", f"{kind}: field {name!r} has the wrong type")
            kwargs[name] = value
        elif required:
            raise ProtocolError("bad_message", f"{kind}: missing field {name!r}")
    if len(msg) != len(kwargs) + 1:
        extra = set(msg) - set(kwargs) - {"t"}
        raise ProtocolError("bad_message", f"{kind}: unknown field {sorted(map(repr, extra))[0]}")
    return cls(**kwargs)


def decode_request(data: bytes | str) -> Request:
    return parse_request(decode(data))


def request_types() -> dict[str, type[Request]]:
    return dict(_REQUESTS)


# ----------------------------------------------------------------------------- events

#: Fields of race events that only spectators receive: a racer sees rivals' progress, never
#: their boards (the moves and the view deltas they produce; the spectator form's reveals and
#: final boards, see shared/masking.py, are never in the stored events but are listed too).
SPECTATOR_ONLY = frozenset({"move", "delta", "reveal", "boards"})


def last_event(event: dict[str, Any]) -> bool:
    """Whether ``event`` is a race's last: its ``end`` — unless that says the deal's verdict
    is still pending, then the ``verdict`` that follows it."""
    kind = event.get("k")
    if kind == "verdict":
        return True
    verdict = event.get("verdict")
    return kind == "end" and not (isinstance(verdict, dict)
                                  and verdict.get("outcome") == "pending")


def racer_event(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as a racer may receive it."""
    if SPECTATOR_ONLY.isdisjoint(event):
        return event
    out = event.copy()  # then the spectator fields out: the other keys keep their order
    for k in SPECTATOR_ONLY:
        out.pop(k, None)
    return out


# ----------------------------------------------------------------------------- replies


def reply(req_id: RequestId | None, kind: str, **fields: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"t": kind, **fields}
    if req_id is not None:
        msg["re"] = req_id
    return msg


def error(req_id: RequestId | None, code: str, reason: str, **extra: Any) -> dict[str, Any]:
    if code not in ERROR_CODES:
        raise ValueError(f"unknown error code {code!r}")
    return reply(req_id, "error", code=code, reason=reason, **extra)


# ----------------------------------------------------------------------------- encodings

#: Websocket subprotocols a client may offer; none (or the msgpack one) means msgpack over
#: binary frames, ``solrace.json.v1`` means JSON over text frames (:mod:`jsonwire`).
MSGPACK_SUBPROTOCOL = "solrace.msgpack.v1"
JSON_SUBPROTOCOL = "solrace.json.v1"
SUBPROTOCOLS = (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)


@dataclass(frozen=True, slots=True)
class Codec:
    """How one connection turns maps into frames and back, chosen once at the handshake."""

    name: str
    encode: Any  # Callable[[dict], bytes | str]
    decode: Any  # Callable[[bytes | str], dict]


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol (``None``: the default, msgpack)."""
    if subprotocol == JSON_SUBPROTOCOL:
        from solrace.shared.jsonwire import decode_json, encode_json

        return Codec(JSON_SUBPROTOCOL, encode_json, decode_json)
    return Codec(MSGPACK_SUBPROTOCOL, encode, decode)


def select_subprotocol(offered: list[str] | tuple[str, ...]) -> str | None:
    """The subprotocol to accept from those a client offers: ours in our order of preference,
    else none (the client then speaks msgpack, as every client did before negotiation)."""
    for name in SUBPROTOCOLS:
        if name in offered:
            return name
    return None
