"""Every message the server sends that is not a race event, declared once (sans-I/O): the
replies (``re`` echoes the request's id) and the unsolicited messages of docs/protocol.md
sections 7.2–7.6 and 21. Race events are in :mod:`.events`.

The server builds each with :func:`reply` (or :func:`push` for a message without ``re``):
the class validates the fields, so a reply of the wrong shape fails where it is built, never
on a client. Nested objects (a race summary, a view, standings) are plain maps here; their
shapes are docs/protocol.md section 6. The move's ``ack`` is built by
:func:`~solrace.shared.protocol.messages.ack_reply` on the hot path and checked against
:class:`Ack` by the tests (every frame a test receives is checked: :func:`check_message`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from solrace.shared.protocol.shapes import ABSENT, Shape, declare

MESSAGES: dict[str, type[Shape]] = {}


def message(kind: str) -> Any:
    """Declare a message class for ``t`` = ``kind`` (frozen, slotted, keyword-only)."""

    def wrap(cls: type[Shape]) -> type[Shape]:
        cls = dataclass(frozen=True, slots=True, kw_only=True)(cls)
        cls.TYPE = kind
        MESSAGES[kind] = declare(cls)
        return cls

    return wrap


Title = str | None
ReviewStatus = Literal["pending", "held", "clear", "removed"]


# ----------------------------------------------------------------------------- session (3, 20)

@message("welcome")
class Welcome(Shape):
    v: int
    server_time: int
    player: str | None
    name: str | None
    account: bool
    races: list
    token: str = ABSENT
    session: str = ABSENT
    title: Title = ABSENT
    roles: list = ABSENT
    batch: bool = ABSENT


@message("registered")
class Registered(Shape):
    player: str
    name: str
    token: str
    session: str
    account: bool
    races: list
    title: Title = ABSENT
    roles: list = ABSENT


@message("logged_in")
class LoggedIn(Registered):
    """The same fields as ``registered``: a session of an account, issued."""


@message("logged_out")
class LoggedOut(Shape):
    session: str


@message("sessions")
class SessionList(Shape):
    account: str
    sessions: list


@message("revoked")
class Revoked(Shape):
    session: str


@message("password_changed")
class PasswordChanged(Shape):
    revoked: int


@message("deleted")
class Deleted(Shape):
    name: str


@message("account.bot")
class BecameBot(Shape):
    title: str


@message("pong")
class Pong(Shape):
    server_time: int


@message("error")
class Error(Shape):
    code: str
    reason: str
    retry_after: int = ABSENT
    supported: list = ABSENT
    detail: str = ABSENT
    seq: int = ABSENT


# ----------------------------------------------------------------------------- races (5.3–5.15)

@message("race")
class RaceReply(Shape):
    race: dict
    ranked: bool = ABSENT
    from_: str = ABSENT
    tournament: str = ABSENT  # tournament.play: the tournament and the deal's number
    deal: int = ABSENT


@message("races")
class RaceList(Shape):
    races: list


@message("queued")
class Queued(Shape):
    queue: str


@message("unqueued")
class Unqueued(Shape):
    removed: bool


@message("ack")
class Ack(Shape):
    """In the order the move path writes it (:func:`~.messages.ack_reply`), so both give the
    same bytes; a duplicate's ack has ``view`` and ``duplicate`` instead of ``delta``,
    ``elapsed`` and ``status`` (docs/protocol.md section 9.1)."""

    race: str
    seq: int
    delta: dict = ABSENT
    v: int = ABSENT
    elapsed: int = ABSENT
    status: str = ABSENT
    move: str = ABSENT
    moves: list
    legal: list
    duplicate: bool = ABSENT
    view: dict = ABSENT


@message("resigned")
class Resigned(Shape):
    race: str
    v: int
    elapsed: int


@message("synced")
class Synced(Shape):
    race: dict
    events: list
    board: dict | None
    more: bool


@message("legal")
class LegalMoves(Shape):
    race: str
    seq: int
    legal: list


@message("hint")
class HintReply(Shape):
    race: str
    seq: int
    move: str | None
    outcome: Literal["won", "lost", "unknown"]
    par: int | None


@message("winnable")
class WinnableReply(Shape):
    """Still winnable? (shared/learning/winnable.py): only proofs, else ``undecided``."""

    race: str
    seq: int
    outcome: Literal["winnable", "lost", "undecided"]
    claim: str | None
    nodes: int


@message("analysis")
class AnalysisReply(Shape):
    """The move that lost it (shared/learning/lost.py's fields), for one racer's line."""

    race: str
    player: str
    name: str
    moves: int
    result: Literal["found", "winnable_at_end", "lost_from_start", "undecided", "won"]
    ply: int | None = ABSENT
    move: str | None = ABSENT
    continuation: list = ABSENT
    claim: str | None = ABSENT
    between: list = ABSENT
    par: int | None = ABSENT
    over_par: int | None = ABSENT
    detour: dict | None = ABSENT
    probes: int
    nodes: int
    cpu_ms: int


@message("watching")
class Watching(Shape):
    race: dict
    delay: float
    v: int
    spectators: int
    events: list = ABSENT
    boards: dict = ABSENT
    end: dict = ABSENT


@message("unwatched")
class Unwatched(Shape):
    race: str


@message("live")
class LiveList(Shape):
    races: list
    next: int | None


# ----------------------------------------------------------------------------- dailies, profiles

@message("daily")
class Daily(Shape):
    date: str
    variant: str
    options: dict
    commitment: str
    par: int | None
    certified: bool
    difficulty: str | None  # easy / medium / hard, as the deal was certified
    rating: dict = ABSENT  # the rating's figures: effort, and players' results once enough
    seed: int = ABSENT
    attempt: str | None
    attempt_state: str | None
    attempt_review: ReviewStatus | None
    yesterday: dict = ABSENT
    you: dict = ABSENT  # the caller's streak and this month's badge


@message("leaderboard")
class LeaderboardReply(Shape):
    date: str
    variant: str
    difficulty: str | None  # the board's daily's difficulty (None: not certified/rated)
    total: int
    offset: int
    rows: list
    my_rank: int | None
    par: int | None
    provisional: bool
    review_until: int
    my_review: ReviewStatus = ABSENT
    my_row: dict = ABSENT


@message("profile")
class ProfileReply(Shape):
    player: str
    name: str
    title: Title
    ratings: dict
    stats: dict
    today: str
    streaks: dict
    games: list
    days: list
    badges: dict
    trophies: dict | None


# ----------------------------------------------------------------------------- unsolicited (7)

@message("matched")
class Matched(Shape):
    race: dict


@message("presence")
class Presence(Shape):
    race: str
    player: str
    online: bool


@message("spectators")
class Spectators(Shape):
    race: str
    count: int


@message("rematch")
class RematchOffer(Shape):
    race: dict
    from_: str
    by: str


@message("review")
class Review(Shape):
    race: str
    status: ReviewStatus


@message("warning")
class FairPlayWarning(Shape):
    reason: str


@message("renamed")
class Renamed(Shape):
    name: str


@message("titled")
class Titled(Shape):
    title: str


# ----------------------------------------------------------------------------- moderation (21)

@message("reported")
class Reported(Shape):
    player: str


@message("mod.reports")
class ModReportsReply(Shape):
    players: list = ABSENT
    player: str = ABSENT
    name: str = ABSENT
    reports: list = ABSENT


@message("mod.queue")
class ModQueueReply(Shape):
    cases: list


@message("mod.case")
class ModCaseReply(Shape):
    case: dict


@message("mod.cleared")
class ModCleared(Shape):
    case: str
    status: str


@message("mod.banned")
class ModBanned(Shape):
    player: str
    name: str
    sessions: int
    removed: int
    ratings_rebuilt: int


@message("mod.unbanned")
class ModUnbanned(Shape):
    player: str
    name: str
    restored: int
    ratings_rebuilt: int


@message("mod.warned")
class ModWarned(Shape):
    player: str
    name: str
    warnings: int


@message("mod.annulled")
class ModAnnulled(Shape):
    race: str
    removed: int = ABSENT
    ratings_rebuilt: int = ABSENT


@message("mod.renamed")
class ModRenamed(Shape):
    player: str
    name: str
    was: str


@message("mod.audit")
class ModAuditReply(Shape):
    entries: list


# ----------------------------------------------------------------------------- tournaments (22)

@message("tournaments")
class TournamentListing(Shape):
    upcoming: list
    live: list
    finished: list


@message("tournament")
class TournamentReply(Shape):
    tournament: dict


@message("bracket")
class BracketReply(Shape):
    """The reply to ``tournament.bracket`` and the frame its followers get."""

    tournament: str
    v: int
    state: str
    round: int
    rounds: int
    entrants: list
    matches: list
    my_match: dict | None
    podium: dict = ABSENT
    disqualified: list = ABSENT


@message("standings")
class Standings(Shape):
    """The reply to ``tournament.standings`` and the frame its followers get."""

    tournament: str
    v: int
    entrants: int
    my_rank: int | None
    rows: list
