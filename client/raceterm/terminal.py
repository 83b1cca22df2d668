"""One race played at the terminal: the loop that takes server messages and typed lines in
order, entering a race (create, join, quick pairing, resume) and reconnecting after a lost
connection. What it does with each message, each typed line and the screen lives in
:mod:`.events`, :mod:`.lines` and :mod:`.screen`."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from solrace.client.commands import CommandError
from solrace.client.library import Client, ClientError
from solrace.client.raceterm.events import RaceEvents
from solrace.client.raceterm.lines import TypedLines
from solrace.client.raceterm.model import (
    DEFAULT_VARIANT,
    HISTORY,
    MESSAGES,
    RECONNECT_FOR,
    Racer,
    default_options_advice,
)
from solrace.client.raceterm.screen import RaceScreen
from solrace.client.raceterm.winnable import WinnableWatch
from solrace.client.session import CONNECT_ERRORS
from solrace.client.tui import Screen, StdinLines, interactive


class RaceTerminal(RaceEvents, TypedLines, RaceScreen):
    """One race played at the terminal: events and typed lines in, a screen out.

    Everything that happens arrives on one queue — server messages (pumped from the client's
    event iterator), typed lines (from :class:`StdinLines`) — and is handled in order, so the
    screen never shows two updates interleaved. Events up to ``quiet_until`` (a resume's
    replay of history) update the picture without announcing each step. Server messages are
    handled by :class:`~.events.RaceEvents`, typed lines by :class:`~.lines.TypedLines`, the
    screen by :class:`~.screen.RaceScreen`; their state is set here, in ``__init__``.
    """

    def __init__(self, client: Client, url: str, *, color: bool, auto_ready: bool,
                 screen: Screen | None = None) -> None:
        self.client = client
        self.url = url
        self.color = color
        self.auto_ready = auto_ready
        self.screen = screen if screen is not None else Screen()
        self.echo = not interactive()  # typed moves are not on the screen: print them
        self.inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.rid: str | None = None
        self.summary: dict[str, Any] = {}
        self.racers: dict[str, Racer] = {}
        self.state = "connecting"
        self.quiet_until = 0  # events up to this version are history: applied, not announced
        self.applied_v = 0  # the last event version applied
        self._history: list[dict[str, Any]] = []
        self.held: deque[str] = deque()
        self.messages: deque[str] = deque(maxlen=MESSAGES)
        self.history: deque[str] = deque(maxlen=HISTORY)
        self.slots: dict[str, int] = {}
        self.offset = 0  # server clock minus local clock, ms
        self.spectators = 0
        self.ready_sent = False
        self.auto_play = False  # every move with "auto" (quickplay.toggle)
        self.rivals_told = False  # said that every rival's game is over
        self.my_result: str | None = None
        self.still: WinnableWatch | None = None  # practice --winnable: the checks after moves
        self.end: dict[str, Any] | None = None
        self.verdict_due: float | None = None  # monotonic deadline of a pending verdict
        self.done = False
        self.eof = False
        self._eof_told = False
        self._pump: asyncio.Task[None] | None = None
        self._clock_from(client.welcome)

    # ------------------------------------------------------------------ plumbing

    @property
    def me(self) -> str | None:
        return self.client.player

    @property
    def board(self) -> dict[str, Any] | None:
        return self.client.boards.get(self.rid) if self.rid else None

    def _clock_from(self, welcome: dict[str, Any]) -> None:
        if welcome.get("server_time"):
            self.offset = int(welcome["server_time"]) - int(time.time() * 1000)

    def server_now(self) -> int:
        return int(time.time() * 1000) + self.offset

    def _ensure_pump(self) -> None:
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._pump_events())

    async def _pump_events(self) -> None:
        async for msg in self.client.events():
            await self.inbox.put(("msg", msg))

    def _connected(self) -> bool:
        from websockets.protocol import State

        ws = self.client.ws
        return ws is not None and ws.state is State.OPEN

    async def run(self, enter: Callable[[], Awaitable[dict[str, Any] | None]]) -> int:
        """Enter a race (``enter`` returns its summary, or None while quick-queued), then
        handle events and input until the race ends or the user quits."""
        self._ensure_pump()
        summary = await enter()
        StdinLines(self.inbox).start()  # typed-ahead lines wait in the pipe or the tty buffer
        if summary is None:
            self.state = "queued"
            self.redraw()
            self.message("waiting for an opponent… (quit cancels)")
        else:
            await self.adopt(summary)
        while not self.done:
            timeout = 1.0 if self.screen.tty and self.state in ("countdown", "running") else None
            if self.verdict_due is not None:
                timeout = max(0.0, self.verdict_due - time.monotonic())
            try:
                kind, item = await asyncio.wait_for(self.inbox.get(), timeout)
            except TimeoutError:
                if self.verdict_due is not None and time.monotonic() >= self.verdict_due:
                    self.done = True  # the standings now; the verdict stays "checking"
                    continue
                self.tick()
                continue
            if kind == "msg":
                await self.on_message(item)
            else:
                await self.on_line(item)
            await self._play_held()
            if kind == "line" and self.screen.tty and not self.done:
                self.redraw()  # the entered line scrolled the prompt: put it back in place
        if self.end is not None:
            self.finish()
        if self._pump is not None:
            self._pump.cancel()
        return 0

    # ------------------------------------------------------------------ entering a race

    async def adopt(self, summary: dict[str, Any]) -> None:
        """Take a race summary (``race``, ``matched`` or ``synced`` reply) as the picture,
        with the history a resume fetched (:meth:`resume`) applied quietly on top."""
        self.summary = summary
        self.rid = summary["race"]
        self.state = summary["state"]
        self.racers = {r["player"]: Racer(r["player"], r["name"], bool(r.get("ready")))
                       for r in summary["racers"]}
        self.ready_sent = self.ready_sent or (self.me in self.racers
                                              and self.racers[self.me].ready)
        self.quiet_until = max(self.quiet_until, int(summary.get("v", 0)))
        if self.state in ("running", "finished") and self.rid not in self.client.boards:
            await self.client.sync(self.rid)  # joined a running race again: fetch the board
        history, self._history = self._history, []
        for ev in history:  # before any typed line is played: the result may be known
            self.on_event(ev)
        self._result_from_board()
        self.redraw()
        advice = default_options_advice(summary)
        if advice and self.state in ("lobby", "countdown"):
            self.message(advice)
        if self.state == "lobby":
            if self.auto_ready:
                await self.get_ready()
            elif not self.ready_sent:
                self.message("press enter when you are ready (quit leaves the race)")

    async def resume(self, summary: dict[str, Any]) -> dict[str, Any]:
        """Pick up a race of this session after a crash: sync it from the first event."""
        rid = summary["race"]
        self.client.versions.setdefault(rid, 0)
        reply = await self.client.sync(rid)
        self._history = [{"race": rid, **ev} for ev in reply["events"]]
        last = max((e["v"] for e in reply["events"]), default=0)
        self.quiet_until = max(self.quiet_until, last)
        self.message(f"resuming race {rid} ({reply['race']['state']})")
        return dict(reply["race"])

    def _result_from_board(self) -> None:
        """A board that says won or lost means the game is over, whatever else we missed."""
        board = self.board
        if board and not self.my_result and board["view"]["status"] in ("won", "lost"):
            self.my_result = board["view"]["status"]

    async def get_ready(self) -> None:
        assert self.rid is not None
        try:
            await self.client.ready(self.rid)
        except ClientError as exc:
            if exc.code != "race_started":
                self.message(self.error_text("ready", exc))
                return
        self.ready_sent = True
        if self.me in self.racers:
            self.racers[self.me].ready = True
        if self.screen.tty:
            self.redraw()
        self.message("you are ready; waiting for the others")

    # ------------------------------------------------------------------ connection loss

    async def reconnect(self) -> None:
        """Resume the session on a new connection and sync the race; retries with backoff."""
        self.message("connection lost: reconnecting…")
        deadline, delay = time.monotonic() + RECONNECT_FOR, 0.2
        while True:
            try:
                welcome = await self.client.reconnect()
                break
            except ClientError as exc:
                if exc.code in ("bad_token", "bad_name", "name_taken"):
                    raise CommandError(f"cannot resume the session: {exc}") from None
                last: BaseException = exc
            except CONNECT_ERRORS as exc:
                last = exc
            if time.monotonic() > deadline:
                raise CommandError(f"lost the connection to {self.url} and could not "
                                   f"reconnect for {RECONNECT_FOR:.0f} s ({last})")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 3.0)
        self._clock_from(welcome)
        self._result_from_board()
        if self.state == "queued":  # the server dropped the queue entry with the connection
            reply = await self.client.quick(self.summary.get("variant", DEFAULT_VARIANT),
                                            self.summary.get("options"))
            if reply["t"] == "race":
                await self.adopt(reply["race"])
        self._ensure_pump()
        self.redraw()
        self.message("reconnected")

