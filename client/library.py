"""The thin async client: talks the protocol, keeps what the server sent, computes nothing hidden.

    async with Client("ws://127.0.0.1:8765", name="alice") as c:
        race = await c.create_race("unlimited", {"draw": "3"})
        ...
        ack = await c.move(race_id, "t3t5")
        async for event in c.events():
            ...

The client keeps, per race, the last event version it saw and its own board (the view the
server sent, updated with each ack's delta). After a dropped connection :meth:`reconnect`
resumes the session with its token and asks for every event it missed (``sync``), so nothing is
lost and nothing is applied twice.

Race homes (docs/protocol.md section 8.1): when a race summary names a ``home`` (the server
process whose own connections get that race's events without pub/sub), the client moves there
by itself — a new connection, ``hello`` with the token, then ``sync`` of every race — and only
then closes the old connection, once its requests in flight are answered. ``follow_home=False``
stays put; either way the game is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any

import websockets
from solrace.client.homes import HomeMixin
from solrace.shared import protocol as P
from solrace.shared.views import apply_delta
from websockets.asyncio.client import ClientConnection, connect

#: Seconds a winnable create / quick / rematch may take: the server waits up to its
#: ``--pool-wait`` (at most ``MAX_POOL_WAIT``) for a certified seed before ``pool_empty``.
POOL_PATIENCE = P.MAX_POOL_WAIT + 15.0

#: Shape errors of received frames, when checking is on (``SOLRACE_CHECK_WIRE=1``: the test
#: suite sets it and fails a test that leaves an entry here). A client that checks keeps
#: working on a frame it could not check: the check is for finding the server's bugs.
WIRE_ERRORS: list[str] = []


def _check(msg: dict[str, Any]) -> None:
    try:
        P.check_message(msg)
    except P.ShapeError as exc:
        WIRE_ERRORS.append(f"{exc} in {msg!r:.300}")


class ClientError(Exception):
    """An error reply: ``code`` from ``docs/protocol.md``, ``reason`` for people."""

    def __init__(self, code: str, reason: str, extra: dict[str, Any]) -> None:
        super().__init__(f"{code}: {reason}")
        self.code, self.reason, self.extra = code, reason, extra


class Client(HomeMixin):
    def __init__(self, url: str, *, name: str | None = None, token: str | None = None,
                 timeout: float = 10.0, client: str | None = None,
                 batch: bool = False, follow_home: bool = True) -> None:
        """``batch``: ask the server for batch frames (several messages in one frame, see
        docs/protocol.md); the client reads them either way. ``follow_home``: move to a race's
        home process when a summary names one (see the module docstring)."""
        self._check = os.environ.get("SOLRACE_CHECK_WIRE") == "1"
        self.url = url  # where (re)connecting starts: the load balancer, typically
        self.connected_url = url  # where the current connection goes (a home, once moved)
        self.follow_home = follow_home
        self.batch = batch
        self.name = name
        self.token = token
        self.client = client  # shown in the account's session list (``hello.client``)
        self.account = False  # True once the session is an account's
        self.timeout = timeout
        self.player: str | None = None
        self.ws: ClientConnection | None = None
        self.versions: dict[str, int] = {}  # race -> last event version seen
        self.boards: dict[str, dict[str, Any]] = {}  # race -> {"seq", "view"}
        self.welcome: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._moving: asyncio.Task[None] | None = None  # a move to a race's home under way
        self._homes_tried: dict[str, set[str]] = {}  # race -> home URLs moved to (or tried)
        self._retired: set[ClientConnection] = set()  # left for a home: replies only

    # ------------------------------------------------------------------ connection

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> dict[str, Any]:
        self.ws = await self._open(self.url)
        self.connected_url = self.url
        self._pending = {}
        self._reader = asyncio.create_task(self._read(self.ws, self._pending))
        self.welcome = await self.request("hello", **self._hello())
        self._identity(self.welcome)
        return self.welcome

    async def _open(self, url: str) -> ClientConnection:
        return await connect(url, max_size=P.MAX_FRAME * 16, open_timeout=self.timeout,
                             compression=None)

    def _hello(self) -> dict[str, Any]:
        hello: dict[str, Any] = {"v": P.PROTOCOL_VERSION}
        if self.token:
            hello["token"] = self.token
        elif self.name is not None:
            hello["name"] = self.name
        if self.batch:
            hello["batch"] = True
        if self.client is not None:
            hello["client"] = self.client
        return hello

    def _identity(self, reply: dict[str, Any]) -> None:
        """Who this client is after a welcome, registration or login."""
        self.player = reply.get("player")
        self.token = reply.get("token", self.token)
        if reply.get("name"):
            self.name = reply["name"]
        self.account = bool(reply.get("account"))

    # ------------------------------------------------------------------ accounts

    async def register(self, password: str, name: str | None = None, *, bot: bool = False
                       ) -> dict[str, Any]:
        """Make an account: of this guest (same player id, ``name`` defaults to the guest's)
        or, on an anonymous connection, of a new player named ``name``. The reply's token
        replaces the old one (the guest token stops working). ``bot``: a BOT account
        (docs/bots.md), labelled everywhere and never ranked, for good."""
        fields: dict[str, Any] = {"password": password}
        if name is not None:
            fields["name"] = name
        if bot:
            fields["bot"] = True
        if self.client is not None:
            fields["client"] = self.client
        reply = await self.request("register", **fields)
        self._identity(reply)
        self.welcome = {**self.welcome, **reply}
        return reply

    async def login(self, name: str, password: str) -> dict[str, Any]:
        """Log in to an account on this (anonymous) connection: a new session and token."""
        fields: dict[str, Any] = {"name": name, "password": password}
        if self.client is not None:
            fields["client"] = self.client
        reply = await self.request("login", **fields)
        self._identity(reply)
        self.welcome = {**self.welcome, **reply}
        return reply

    async def logout(self) -> dict[str, Any]:
        """End this session (its token stops working everywhere); the server then closes."""
        reply = await self.request("logout")
        self.token = None
        return reply

    async def sessions(self) -> list[dict[str, Any]]:
        return list((await self.request("sessions"))["sessions"])

    async def revoke(self, session: str) -> dict[str, Any]:
        return await self.request("session.revoke", session=session)

    async def change_password(self, old: str, new: str) -> dict[str, Any]:
        return await self.request("password.change", old=old, new=new)

    async def delete_account(self, password: str) -> dict[str, Any]:
        reply = await self.request("account.delete", password=password)
        self.token = None
        return reply

    async def close(self) -> None:
        if self._moving is not None:
            self._moving.cancel()
            with contextlib.suppress(BaseException):
                await self._moving
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader

    async def reconnect(self) -> dict[str, Any]:
        """Resume the session on a new connection and catch up every known race."""
        await self.close()
        # The old connection's "closed" marker is history now: keep only real messages.
        kept = [self._events.get_nowait() for _ in range(self._events.qsize())]
        for msg in kept:
            if msg.get("t") != "closed":
                self._events.put_nowait(msg)
        self._homes_tried.clear()  # a fresh start: homes are worth another try
        welcome = await self.connect()
        for race in list(self.versions):
            await self.sync(race)
        await self._settle()
        return welcome

    async def _read(self, ws: ClientConnection,
                    pending: dict[Any, asyncio.Future[dict[str, Any]]]) -> None:
        """One connection's frames: replies to the requests sent on it (``pending``), and —
        unless the client has left it for a race's home — events and notices."""
        try:
            async for frame in ws:
                for msg in P.unbatch(P.decode(frame) if isinstance(frame, bytes) else {}):
                    if self._check:
                        _check(msg)
                    re = msg.get("re")
                    fut = pending.pop(re, None) if re is not None else None
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                    elif ws not in self._retired:
                        # what a retired connection still receives, the new one got or gets
                        # (its sync covers every version since the move)
                        await self._on_message(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            pending.clear()
            if ws not in self._retired:
                await self._events.put({"t": "closed"})

    async def _on_message(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "event":
            self._on_event(msg)
        else:
            if msg.get("t") == "matched":
                self.versions.setdefault(msg["race"]["race"], 0)
                self._hinted(msg["race"])
            await self._events.put(msg)

    def _on_event(self, msg: dict[str, Any]) -> None:
        race, v = msg["race"], msg["v"]
        if v <= self.versions.get(race, 0):
            return  # already seen (a resync overlapped the live stream)
        self.versions[race] = v
        if msg.get("k") == "start":
            self.boards[race] = {"seq": 0, "view": msg["view"], "legal": msg.get("legal")}
        self._events.put_nowait(msg)

    async def request(self, kind: str, *, within: float | None = None, **fields: Any
                      ) -> dict[str, Any]:
        """Send a request, await its reply (``within`` seconds, default ``timeout``)."""
        moving = self._moving
        if moving is not None and moving is not asyncio.current_task():
            await asyncio.wait([moving])  # requests wait until a move home is done
        if self.ws is None:
            raise ConnectionError("not connected")
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        await self.ws.send(P.encode({"t": kind, "id": rid, **fields}))
        msg = await asyncio.wait_for(fut, within or self.timeout)
        if msg.get("t") == "error":
            extra = {k: v for k, v in msg.items() if k not in ("t", "re", "code", "reason")}
            raise ClientError(msg["code"], msg["reason"], extra)
        return msg

    async def send_raw(self, data: bytes | str) -> None:
        """Send a frame as is (tests of malformed input)."""
        assert self.ws is not None
        await self.ws.send(data)

    async def events(self, timeout: float | None = None) -> AsyncIterator[dict[str, Any]]:
        """Unsolicited messages (race events, matches) in arrival order."""
        while True:
            msg = await asyncio.wait_for(self._events.get(), timeout)
            yield msg
            if msg.get("t") == "closed":
                return

    async def next_event(self, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        """The next event whose fields equal ``match`` (others are skipped)."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self._events.get()
                if msg.get("t") == "closed" and match.get("t") != "closed":
                    raise ConnectionError("connection closed")
                if all(msg.get(k) == v for k, v in match.items()):
                    return msg

    # ------------------------------------------------------------------ races

    async def _track(self, summary: dict[str, Any]) -> dict[str, Any]:
        """A race this client now races in: follow its events (and its home)."""
        self.versions.setdefault(summary["race"], 0)
        self._hinted(summary)
        await self._settle()
        return summary

    async def create_race(self, variant: str, options: dict[str, str] | None = None, *,
                          seats: int = 2, time_limit: int = 600, rated: bool = False,
                          winnable: bool = False, difficulty: str | None = None
                          ) -> dict[str, Any]:
        """A new race (``winnable``: dealt a seed the server's solver has won; of that
        ``difficulty``, when given)."""
        fields: dict[str, Any] = {"winnable": True, "within": POOL_PATIENCE} if winnable else {}
        if difficulty is not None:
            fields["difficulty"] = difficulty
        r = await self.request("race.create", variant=variant, options=options or {},
                               seats=seats, time_limit=time_limit, rated=rated, **fields)
        return await self._track(r["race"])

    async def join(self, code: str | None = None, race: str | None = None) -> dict[str, Any]:
        fields = {"code": code} if code is not None else {"race": race}
        return await self._track((await self.request("race.join", **fields))["race"])

    async def practice_start(self, variant: str, options: dict[str, str] | None = None,
                             bots: Sequence[str] = (), time_limit: int = 600,
                             seed: int | None = None) -> dict[str, Any]:
        """A practice race against server bots (``weak``, ``medium``, ``strong``), running at
        once; the race's events follow from version 1 (the start sets the board)."""
        r = await self.request("practice.start", variant=variant, options=options or {},
                               bots=list(bots), time_limit=time_limit, seed=seed)
        return await self._track(r["race"])

    # ------------------------------------------------------------------ tournaments

    async def tournaments(self, limit: int = 20) -> dict[str, Any]:
        """Public tournaments: ``upcoming``, ``live`` and ``finished`` lists."""
        return await self.request("tournaments", limit=limit)

    async def tournament_create(self, name: str, variant: str,
                                options: dict[str, str] | None = None, *, starts_in: int = 0,
                                minutes: int = 30, deal_seconds: int = 300,
                                format: str = "arena", deals: int = 3,
                                max_entrants: int = 64) -> dict[str, Any]:
        """A new private arena (or ``format="event"`` of ``deals`` deals, or a
        ``"knockout"`` of up to ``max_entrants``); its summary carries the invite ``code``."""
        r = await self.request("tournament.create", name=name, variant=variant,
                               options=options or {}, starts_in=starts_in, minutes=minutes,
                               deal_seconds=deal_seconds, format=format, deals=deals,
                               max_entrants=max_entrants)
        return r["tournament"]

    async def tournament_join(self, tournament: str) -> dict[str, Any]:
        """Enter a tournament (its id or invite code)."""
        return (await self.request("tournament.join", tournament=tournament))["tournament"]

    async def tournament_play(self, tournament: str, berserk: bool = False) -> dict[str, Any]:
        """The race of your current deal, or of your next one (the reply: ``race``, ``deal``);
        its events follow from version 1."""
        r = await self.request("tournament.play", tournament=tournament, berserk=berserk)
        await self._track(r["race"])
        return r

    async def tournament_standings(self, tournament: str, follow: bool = False
                                   ) -> dict[str, Any]:
        """The standings now; ``follow``: then a ``standings`` frame (in :meth:`events`)
        whenever they change, at most once a second."""
        return await self.request("tournament.standings", tournament=tournament, follow=follow)

    async def tournament_bracket(self, tournament: str, follow: bool = False
                                 ) -> dict[str, Any]:
        """A knockout's bracket now; ``follow``: then a ``bracket`` frame (in :meth:`events`)
        whenever it changes, at most once a second."""
        return await self.request("tournament.bracket", tournament=tournament, follow=follow)

    async def rematch(self, race: str) -> dict[str, Any]:
        """A new race with the settings of finished race ``race`` (the same new race for every
        racer who asks); the other racers get an unsolicited ``rematch`` frame naming it."""
        # a winnable race's rematch may wait for a certified seed like a winnable create
        return await self._track((await self.request("race.rematch", race=race,
                                                     within=POOL_PATIENCE))["race"])

    async def leave(self, race: str) -> dict[str, Any]:
        return (await self.request("race.leave", race=race))["race"]

    async def ready(self, race: str) -> dict[str, Any]:
        return (await self.request("race.ready", race=race))["race"]

    async def quick(self, variant: str, options: dict[str, str] | None = None, *,
                    winnable: bool = False, difficulty: str | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"winnable": True, "within": POOL_PATIENCE} if winnable else {}
        if difficulty is not None:
            fields["difficulty"] = difficulty
        r = await self.request("quick", variant=variant, options=options or {}, **fields)
        if r["t"] == "race":
            await self._track(r["race"])
        return r

    async def move(self, race: str, move: str, seq: int | None = None, *,
                   auto: bool = False) -> dict[str, Any]:
        """Send a move — full notation (``t3f1``) or a source only (``t3``, ``w``, ``s``: the
        server picks the move and the ack's ``move`` says which); ``auto`` plays every safe
        card home after it. On success the local board advances by the ack's delta."""
        fields: dict[str, Any] = {"auto": True} if auto else {}
        return await self._batch(race, "move", seq, move=move, **fields)

    async def autoplay(self, race: str, seq: int | None = None) -> dict[str, Any]:
        """Play every provably safe card home (the ack's ``moves``, possibly none)."""
        return await self._batch(race, "autoplay", seq)

    async def finish(self, race: str, seq: int | None = None) -> dict[str, Any]:
        """Play the rest of the game to the win; ``cannot_finish`` when it needs choices."""
        return await self._batch(race, "finish", seq)

    async def legal(self, race: str) -> list[str]:
        """The legal moves of your game (full notation), asked afresh."""
        r = await self.request("legal", race=race)
        board = self.boards.get(race)
        if board is not None and board.get("seq") == r["seq"]:
            board["legal"] = r["legal"]
        return list(r["legal"])

    async def _batch(self, race: str, kind: str, seq: int | None, **fields: Any
                     ) -> dict[str, Any]:
        board = self.boards.get(race)
        if seq is None:
            seq = board["seq"] if board else 0
        ack = await self.request(kind, race=race, seq=seq, **fields)
        if ack.get("duplicate") or board is None:
            self.boards[race] = {"seq": ack["seq"], "view": ack["view"] if "view" in ack
                                 else (board or {}).get("view")}
        else:
            board["view"] = apply_delta(board["view"], ack["delta"])
            board["seq"] = ack["seq"]
        if "legal" in ack:
            self.boards[race]["legal"] = ack["legal"]
        return ack

    async def resign(self, race: str) -> dict[str, Any]:
        return await self.request("resign", race=race)

    async def hint(self, race: str) -> dict[str, Any]:
        """The solver's next move for your game (practice games only; ``not_practice``
        elsewhere): the reply's ``move`` is ``None`` when no win was found within budget."""
        return await self.request("hint", race=race)

    async def winnable(self, race: str) -> dict[str, Any]:
        """Whether a win still exists from your position (practice games only;
        ``not_practice`` elsewhere): ``outcome`` is ``winnable``, ``lost`` (proved) or
        ``undecided``, with the ``claim`` it makes (docs/protocol.md 5.26)."""
        return await self.request("winnable", race=race, within=max(self.timeout, 30.0))

    async def sync(self, race: str) -> dict[str, Any]:
        """Events missed since the last version seen (in pages), and the own board afresh."""
        while True:
            r = await self.request("sync", race=race, since=self.versions.get(race, 0))
            for ev in r["events"]:
                self._on_event({"t": "event", "race": race, **ev})
            if r.get("board"):
                self.boards[race] = r["board"]
            if not r.get("more"):
                self._hinted(r["race"])  # e.g. after a reconnect through the balancer
                return r

    async def wait_running(self, race: str, timeout: float = 15.0) -> dict[str, Any]:
        """Wait for the race's start event (or return it at once when the board exists)."""
        if race in self.boards:
            return self.boards[race]
        await self.next_event(timeout, t="event", race=race, k="start")
        return self.boards[race]
