"""Race in the terminal: join by invite code, quick-pair, or create a race, then play it.

The board is drawn from the views the server sends (the start view, then each ack's delta):
the client holds no game state of its own and judges no move, so what it shows is exactly what
the server believes. Moves are typed in the notation of ``docs/variants.md`` (``t3t5``, ``sw``,
``wf1``, ``t1t4:3``), several per line if you like; ``resign``, ``help``, ``board`` and ``quit``
are commands, and in practice games ``hint`` asks the server's solver for a move. Rivals'
progress (cards home, moves, finished) arrives live while you type.

A dropped connection is resumed with the saved session token and the missed events are synced;
a move in flight is re-sent with the same sequence number, which the server treats as a
duplicate if it had already applied it. ``quit`` in the lobby leaves the race (the seat is
freed); once the race runs it only exits: seat and game stay open on the server until the time
limit (rivals see you as disconnected), and ``solrace play`` (same server and name) resumes it
— so does re-running it after a crash, because the token is kept in ``session.json``. With
several open games ``solrace play`` asks which one (``--race ID`` / ``--new`` without a
terminal).

On a terminal the screen is redrawn in place; with stdout or stdin redirected every board and
event is printed as plain lines (moves can be piped in: lines typed before the start are held
and played once the race starts).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from solrace.client import opengames, quickplay
from solrace.client.commands import (
    CommandError,
    option_dict,
    parse_options,
    use_color,
    variant_name,
)
from solrace.client.library import Client, ClientError
from solrace.client.render import board_lines, paint
from solrace.client.session import CONNECT_ERRORS, login, refusal, who
from solrace.client.tui import (
    VERDICT_WAIT,
    Screen,
    StdinLines,
    add_server_arguments,
    clock,
    interactive,
    options_text,
    resolve_name,
    resolve_server,
    result_word,
    seed_lines,
    standings_lines,
    verdict_line,
)
from solrace.shared import protocol as P
from solrace.shared.protocol import CODE_RE
from solrace.shared.variants import VARIANTS

NAME = "play"
HELP = "race in the terminal: join by invite code, quick-pair, or create a race"

DEFAULT_VARIANT = "unlimited"
RECONNECT_FOR = 60.0  # seconds of retrying before giving up on a lost connection
MESSAGES = 5  # message lines shown on the terminal frame ('log' shows more)
HISTORY = 50  # message lines kept for 'log'
LOG_WORDS = frozenset({"log", "messages"})
QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"help", "h", "?"})
BOARD_WORDS = frozenset({"board", "b"})
HINT_WORDS = frozenset({"hint"})
READY_WORDS = frozenset({"", "ready", "r"})
PILE_KINDS = {"f": "foundations", "t": "tableau", "r": "reserve", "c": "cells", "s": "stock",
              "w": "waste"}


# ------------------------------------------------------------------------------ arguments


def invite_code(text: str) -> str:
    code = text.strip().upper()
    if not CODE_RE.match(code):
        raise argparse.ArgumentTypeError(f"not an invite code: {text!r} (six letters/digits)")
    return code


def bounded(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``lo..hi``, refused on the command line whether or
    not it ends up used (a resumed game takes no settings, but a typo is still a typo)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}")
        return value

    return parse


def add_race_settings(parser: argparse.ArgumentParser) -> None:
    """``--option``, ``--seats``, ``--time-limit``, ``--rated``: a new race's settings."""
    parser.add_argument("-o", "--option", dest="options", type=parse_options, action="append",
                        default=[], metavar="K=V",
                        help="variant option, repeatable (see 'solrace variants')")
    parser.add_argument("--seats", type=bounded(2, 8), default=2, metavar="N",
                        help="racers, 2..8 (default 2; new races only)")
    parser.add_argument("--time-limit", type=bounded(30, 7200), default=600, metavar="S",
                        help="time limit in seconds, 30..7200 (default 600; new races only)")
    parser.add_argument("--rated", action="store_true",
                        help="a rated race (spectators watch with a delay; new races only)")
    parser.add_argument("--winnable", action="store_true",
                        help="deal only a deal the server's solver has won (new races and "
                        "quick pairing only)")


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ready", action="store_true",
                        help="mark ready at once instead of asking you to press enter")
    quickplay.add_arguments(parser)
    add_server_arguments(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "variant", nargs="?", type=variant_name, default=None, metavar="VARIANT",
        help=f"variant to create or quick-pair for (default {DEFAULT_VARIANT}): "
        + ", ".join(VARIANTS),
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--invite", type=invite_code, metavar="CODE", help="join a race by code")
    how.add_argument("--quick", action="store_true",
                     help="be paired with the next player waiting for the same variant")
    how.add_argument("--race", metavar="ID", default=None,
                     help="resume this one of your open games (several are open: you choose)")
    how.add_argument("--new", action="store_true",
                     help="start or join a new race even though you have open games")
    add_race_settings(parser)
    add_play_arguments(parser)


# ------------------------------------------------------------------------------ the race


@dataclass(slots=True)
class Racer:
    """What this client knows of one racer: from the lobby summary and progress events."""

    pid: str
    name: str
    ready: bool = False
    home: int | None = None
    moves: int = 0
    result: str | None = None
    elapsed: int = 0
    online: bool = True  # connected to the server (``presence`` frames)


class RaceTerminal:
    """One race played at the terminal: events and typed lines in, a screen out.

    Everything that happens arrives on one queue — server messages (pumped from the client's
    event iterator), typed lines (from :class:`StdinLines`) — and is handled in order, so the
    screen never shows two updates interleaved. Events up to ``quiet_until`` (a resume's
    replay of history) update the picture without announcing each step.
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

    # ------------------------------------------------------------------ server messages

    async def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("t")
        if kind == "closed":
            if not self._connected():
                await self.reconnect()
            self._ensure_pump()
        elif kind == "matched" and self.state == "queued":
            self.message("matched with an opponent")
            await self.adopt(msg["race"])
        elif kind == "event" and msg.get("race") == self.rid:
            self.on_event(msg)
        elif kind == "presence" and msg.get("race") == self.rid:
            self.on_presence(msg)
        elif kind == "spectators" and msg.get("race") == self.rid:
            self.spectators = int(msg.get("count", 0))
            self.refresh("status")

    def on_presence(self, msg: dict[str, Any]) -> None:
        """A rival's connection state: shown on their line, announced when it changes."""
        racer = self.racers.get(str(msg.get("player")))
        online = bool(msg.get("online"))
        if racer is None or racer.pid == self.me or racer.online == online:
            return
        racer.online = online
        if racer.result or self.state in ("finished", "closed"):
            return
        self.message(f"{racer.name} is back" if online else
                     f"{racer.name} disconnected (their game and clock go on)")
        self.refresh("rivals")

    def on_event(self, ev: dict[str, Any]) -> None:
        v, k = int(ev["v"]), ev.get("k")
        if v <= self.applied_v:
            return  # applied already (a resume's history arrives by the queue as well)
        self.applied_v = v
        loud = v > self.quiet_until
        pid = ev.get("player")
        racer = self.racers.get(pid) if pid else None
        who = racer.name if racer else "someone"
        seats = self.summary.get("seats", "?")
        if k == "join" and pid:
            self.racers.setdefault(pid, Racer(pid, ev.get("name", "?")))
            self._lobby_news(loud, f"{ev.get('name', '?')} joined ({len(self.racers)}/{seats})",
                             pid)
        elif k == "leave" and pid:
            self.racers.pop(pid, None)
            self._lobby_news(loud, f"{who} left ({len(self.racers)}/{seats})", pid)
        elif k == "ready" and racer:
            racer.ready = True
            self._lobby_news(loud, f"{who} is ready", pid)
        elif k == "countdown":
            self.state = "countdown"
            self.summary["starts_at"] = ev["starts_at"]
            if loud:
                self.redraw()
                wait = max(0, int(ev["starts_at"]) - self.server_now()) / 1000
                self.message(f"everyone is ready: the race starts in {wait:.1f} s")
            if loud and ev.get("commitment"):
                self.message(f"deal commitment (sha256 of the seed, checked when the seed is "
                             f"revealed at the end): {ev['commitment']}")
        elif k == "start":
            self.state = "running"
            self.summary["started_at"], self.summary["ends_at"] = ev["started_at"], ev["ends_at"]
            for r in self.racers.values():
                r.home = r.home if r.home is not None else ev["view"]["home"]
            if loud:
                self.redraw()
                self.message("go!")
        elif k == "progress" and racer:
            self._progress(racer, ev, loud)
        elif k == "closed":
            self.state, self.done = "closed", True
            self.message("the race was closed: everyone left the lobby")
        elif k == "end":
            self.state, self.end = "finished", ev
            if P.last_event(ev):
                self.done = True
            else:  # the solver's verdict follows the end: wait for it (a bounded time)
                self.verdict_due = time.monotonic() + VERDICT_WAIT
                if loud:
                    self.message("race over: the solver is checking the deal…")
        elif k == "verdict" and self.end is not None:
            self.end = {**self.end, "verdict": ev.get("verdict")}
            self.done = True

    def _lobby_news(self, loud: bool, text: str, pid: str | None = None) -> None:
        """A lobby change: the terminal frame redrawn (the racer list changed); one line of
        log elsewhere. Nothing to say about the user's own doings."""
        if not loud:
            return
        if self.screen.tty:
            self.redraw()
        if pid != self.me:
            self.message(text)

    def _progress(self, racer: Racer, ev: dict[str, Any], loud: bool) -> None:
        racer.home, racer.moves = ev.get("home", racer.home), int(ev.get("moves", racer.moves))
        racer.elapsed = int(ev.get("elapsed", racer.elapsed))
        racer.result = ev.get("result") or racer.result
        if racer.pid == self.me:
            if ev.get("result"):
                self.my_result = ev["result"]
            return
        if not loud:
            return
        if self.screen.tty:
            self.refresh("rivals")
            if ev.get("result"):
                self.message(f"{racer.name} {self._finish_words(racer)}")
        else:
            self.screen.line(self.rival_line(racer).strip())
        if ev.get("result"):
            self._rivals_done()

    def _rivals_done(self) -> None:
        """Once every rival's game is over and ours is not, say how to end the race now
        instead of leaving the player to wait for the time limit."""
        rivals = [r for r in self.racers.values() if r.pid != self.me]
        if self.rivals_told or self.my_result or not rivals or not all(r.result for r in rivals):
            return
        self.rivals_told = True
        who = "every bot" if self.summary.get("kind") == "practice" else "everyone else"
        self.message(f"{who} has finished: play on to finish your game, or type 'resign' to "
                     "end the race now and see the standings")

    def _finish_words(self, racer: Racer) -> str:
        words = {"won": "won", "lost": "is stuck (no legal move)", "resigned": "resigned"}
        return f"{words.get(racer.result or '', racer.result)} at {clock(racer.elapsed)}"

    # ------------------------------------------------------------------ typed lines

    async def on_line(self, line: str | None) -> None:
        if line is None:
            self.eof = True
            return
        tokens = [t for t in re.split(r"[\s,]+", line.strip()) if t]
        if not tokens:
            tokens = [""]
        for token in tokens:
            word = token.lower()
            if word in QUIT_WORDS:
                await self.quit()
                return
            if word in HELP_WORDS:
                self.help()
            elif word in LOG_WORDS:
                self.show_log()
            elif word in BOARD_WORDS or (word == "" and (self.ready_sent or self.state != "lobby")):
                self.redraw()
            elif word in quickplay.AUTO_WORDS:
                quickplay.toggle(self)
            elif word in HINT_WORDS and not self.practice:
                self.message("✗ hint: hints are for practice games only")
            elif self.state == "queued":
                self.message("still waiting for an opponent (quit cancels)")
            elif self.state == "lobby" and not self.ready_sent:
                if word in READY_WORDS:
                    await self.get_ready()
                else:
                    self.message("press enter when you are ready; moves count once it starts")
            else:
                self.held.append(token)

    async def _play_held(self) -> None:
        """Moves and resignations typed so far, once the race is running."""
        while self.held and not self.done and self.state == "running" and self.board:
            token = self.held.popleft()
            if self.my_result:
                self.message(f"your game is over ({self.my_result}); waiting for the others "
                             "(quit leaves)")
                self.held.clear()
            elif token.lower() == "resign":
                if self.echo:
                    self.screen.line("> resign")
                await self.resign()
            elif token.lower() in HINT_WORDS:
                await self.hint()
            else:
                await self.move(token)
        if self.held and self.state in ("finished", "closed"):
            self.held.clear()
        if (self.eof and not self.held and not self._eof_told and self.state == "running"
                and not self.my_result):
            self._eof_told = True
            self.message("end of input: watching until the race ends (Ctrl-C leaves; "
                         "your game stays open)")

    async def move(self, text: str) -> None:
        assert self.rid is not None and self.board is not None
        seq = int(self.board["seq"])
        if self.echo:
            self.screen.line(f"> {text}")
        while True:
            try:
                ack = await quickplay.request(self, text, seq)  # a move, f or finish
                break
            except ClientError as exc:
                if exc.code == "stale_seq":  # moved elsewhere (another terminal): catch up
                    await self.client.sync(self.rid)
                    self._result_from_board()
                    self.redraw()
                    self.message(f"✗ {text}: your board was out of date; it is refreshed now")
                else:
                    self.message(self.error_text(text, exc))
                return
            except CONNECT_ERRORS:
                await self.reconnect()  # then re-send with the same seq: idempotent
        self.redraw()
        quickplay.report(self, text, ack)
        status = ack.get("status") or ack.get("view", {}).get("status")  # duplicate: a view
        if status == "won":
            self.my_result = "won"
            self.message(f"you won: every card is home, in {clock(ack.get('elapsed', 0))}!")
        elif status == "lost":
            self.my_result = "lost"
            self.message("no legal move is left: your game is over")

    async def resign(self) -> None:
        assert self.rid is not None
        resent = False
        while True:
            try:
                await self.client.resign(self.rid)
                break
            except ClientError as exc:
                if resent and exc.code == "already_finished":
                    break  # the first attempt went through before the connection dropped
                self.message(self.error_text("resign", exc))
                return
            except CONNECT_ERRORS:
                await self.reconnect()
                resent = True
        self.my_result = "resigned"
        self.refresh("status")
        playing = [r for r in self.racers.values() if r.pid != self.me and not r.result]
        self.message("you resigned; waiting for the others to finish" if playing
                     else "you resigned; the race is over")

    @property
    def practice(self) -> bool:
        """A practice game: the only kind where the server gives hints."""
        return self.summary.get("kind") == "practice"

    async def hint(self) -> None:
        """Ask the server's solver for the next move of a winning line and show it."""
        assert self.rid is not None
        if self.echo:
            self.screen.line("> hint")
        elif self.screen.tty:
            self.message("hint: the solver is thinking…")
        while True:
            try:
                reply = await self.client.hint(self.rid)
                break
            except ClientError as exc:
                if exc.code == "not_practice":
                    self.message("✗ hint: hints are for practice games only")
                else:
                    self.message(self.error_text("hint", exc))
                return
            except CONNECT_ERRORS:
                if self._connected():  # the request timed out: the solver is busy
                    self.message("✗ hint: the server took too long; try again")
                    return
                await self.reconnect()
        self.message(hint_text(reply, self.board))

    async def quit(self) -> None:
        self.done = True
        try:
            if self.state == "queued":
                await self.client.request("quick.cancel")
                self.message("stopped waiting for an opponent")
            elif self.state == "lobby" and self.rid:
                await self.client.leave(self.rid)
                self.message("you left the race")
            elif self.state in ("countdown", "running") and not self.my_result:
                self.message("you left, but your seat and game stay open until the time limit: "
                             "'solrace play' resumes it")
        except (ClientError, *CONNECT_ERRORS):
            pass

    def quit_words(self) -> str:
        """What ``quit`` does now, in words (``help`` and the lobby say it)."""
        if self.state == "queued":
            return "stop waiting for an opponent"
        if self.state == "lobby":
            return "leave the race: your seat is freed"
        if self.state in ("countdown", "running") and not self.my_result:
            return ("exit only: your seat and your game stay, the clock runs on until the time "
                    "limit, and 'solrace play' resumes it; 'resign' ends your game")
        return "exit"

    def show_log(self) -> None:
        """The earlier messages (the frame shows the last few only)."""
        past = list(self.history)[-HISTORY:]
        if self.screen.tty:
            self.screen.frame([*self.frame(), "earlier messages:", *past], self.prompt())
        else:
            for line in ["earlier messages:", *past]:
                self.screen.line(line)

    def help(self) -> None:
        lines = ["moves: t3t5 (t3 onto t5) · wf1 (waste to f1) · t1t4:3 (three cards) · "
                 "sw (draw) · ws (redeal)"]
        lines.append(quickplay.HELP)
        if self.board:
            lines.append("piles here: " + pile_summary(self.board["view"]))
        hint = "hint (the solver's next move) · " if self.practice else ""
        lines.append(f"commands: {hint}resign · board · log (earlier messages) · help · quit "
                     f"({self.quit_words()})")
        for line in lines:
            self.message(line)

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

    # ------------------------------------------------------------------ drawing

    def message(self, text: str) -> None:
        self.messages.append(text)
        self.history.append(text)
        if self.screen.tty:
            self.refresh("messages")
        else:
            self.screen.line(text)

    def error_text(self, what: str, exc: ClientError) -> str:
        detail = exc.extra.get("detail")
        extra = f" ({detail})" if detail else ""
        return f"✗ {what}: {paint(exc.code, '31', self.color)} — {exc.reason}{extra}"

    def variant_label(self) -> str:
        variant = self.summary.get("variant", "")
        name = VARIANTS[variant].title if variant in VARIANTS else variant
        return f"{name} {options_text(self.summary.get('options'))}".strip()

    def title(self) -> str:
        s = self.summary
        parts = [paint("solrace", "1", self.color), self.variant_label()]
        if self.rid:  # dailies and practice games cannot be joined: their code means nothing
            parts.append(f"race {self.rid}")
            if s.get("kind", "race") == "race":
                parts.append(f"code {s.get('code', '?')}")
        parts.append(f"you: {who(self.client)}")
        return " · ".join(parts)

    def lobby_lines(self) -> list[str]:
        s = self.summary
        if self.state == "queued":
            return [f"waiting for an opponent for {self.variant_label()}…"]
        rated = "rated" if s.get("rated") else "unrated"
        lines = [
            f"invite code {paint(s.get('code', '?'), '1', self.color)} — others join with: "
            f"solrace play --invite {s.get('code', '?')}",
            f"race id {self.rid} · {s.get('seats')} seats · "
            f"{clock(1000 * int(s.get('time_limit', 0)))} time limit · {rated}",
            "racers:",
        ]
        lobby = self.state == "lobby"  # readiness means nothing once the countdown runs
        for r in self.racers.values():
            mark = paint("✓", "32", self.color) if r.ready or not lobby else "·"
            you = " (you)" if r.pid == self.me else "" if r.online else " (disconnected)"
            lines.append(f"  {mark} {r.name}{you}" + ("" if r.ready or not lobby
                                                      else " (not ready)"))
        return lines

    def status_line(self) -> str:
        s = self.summary
        if self.state == "queued":
            return "waiting for an opponent"
        if self.state == "lobby":
            seats = f"lobby: {len(self.racers)}/{s.get('seats', '?')} seats"
            return seats + (" · you are ready; waiting for the others" if self.ready_sent
                            else " · press enter when you are ready")
        if self.state == "countdown":
            left = (int(s.get("starts_at", 0)) - self.server_now()) / 1000
            return f"starting in {max(0, math.ceil(left))}…"
        if self.state == "closed":
            return "race closed"
        board = self.board
        parts = []
        if board:
            view = board["view"]
            moves = view["moves"]
            parts.append(f"you: {moves} move{'s' * (moves != 1)} · "
                         f"{view['home']}/{view['total']} home")
        if self.my_result:
            parts.append(result_word(self.my_result, self.color))
        if s.get("started_at") and self.state == "running":
            now = self.server_now()
            parts.append(f"{clock(now - int(s['started_at']))} elapsed")
            if s.get("ends_at"):
                parts.append(f"{clock(int(s['ends_at']) - now)} left")
        elif self.state == "finished":
            parts.append("race over")
        if self.spectators:
            parts.append(f"{self.spectators} watching")
        return " · ".join(parts)

    def rival_line(self, r: Racer) -> str:
        total = self.board["view"]["total"] if self.board else None
        home = "?" if r.home is None else str(r.home)
        result = result_word(r.result, self.color)
        at = f" at {clock(r.elapsed)}" if r.result else ""
        away = "" if r.online or r.result else "  (disconnected)"
        return (f"  {r.name:<20} {home:>3}/{total or '?'} home  {r.moves:>4} moves  "
                f"{result}{at}{away}")

    def frame(self) -> list[str]:
        lines = [self.title(), ""]
        board = self.board
        if self.state in ("running", "finished") and board:
            lines += board_lines(board["view"], self.color)
        else:
            lines += self.lobby_lines()
        lines.append("")
        self.slots = {"status": len(lines)}
        lines.append(self.status_line())
        if self.state in ("running", "finished"):
            self.slots["rivals"] = len(lines)
            lines += [self.rival_line(r) for r in self.racers.values() if r.pid != self.me]
        lines.append("")
        self.slots["messages"] = len(lines)
        lines += list(self.messages) + [""] * (MESSAGES - len(self.messages))
        return lines

    def prompt(self) -> str:
        if self.state == "lobby" and not self.ready_sent:
            return "press enter when ready> "
        if self.state == "running" and not self.my_result:
            return quickplay.prompt(self, "move> ")
        return "> "

    def redraw(self) -> None:
        if self.screen.tty:
            self.screen.frame(self.frame(), self.prompt())
            return
        board = self.board
        if self.state in ("running", "finished") and board:
            self.screen.frame([*board_lines(board["view"], self.color), self.status_line()])
        elif self.state in ("lobby", "queued"):
            self.screen.frame(self.lobby_lines())

    def refresh(self, slot: str) -> None:
        """Rewrite one part of the terminal frame in place (a full redraw if it cannot)."""
        if not self.screen.tty:
            return
        if slot == "status":
            rows = [self.status_line()]
        elif slot == "rivals":
            rows = [self.rival_line(r) for r in self.racers.values() if r.pid != self.me]
        else:
            rows = list(self.messages) + [""] * (MESSAGES - len(self.messages))
        start = self.slots.get(slot)
        if start is None or not all(self.screen.patch(start + i, t) for i, t in enumerate(rows)):
            self.redraw()

    def tick(self) -> None:
        self.refresh("status")

    def finish(self) -> None:
        assert self.end is not None
        total = self.board["view"]["total"] if self.board else None
        lines = ["", *standings_lines(self.end, color=self.color, me=self.me, total=total)]
        verdict = verdict_line(self.end.get("verdict"))
        if verdict:
            lines.append(verdict)
        lines += seed_lines(self.end, self.summary.get("commitment"),
                            self.summary.get("variant"), self.summary.get("options"))
        if self.screen.tty:
            self.screen.frame(self.frame() + lines)
        else:
            self.screen.frame(lines)


def default_options_advice(summary: dict[str, Any]) -> str | None:
    """The variant's advice (``Variant.advice``) when the race plays its default options."""
    variant = VARIANTS.get(str(summary.get("variant")))
    if variant is None or not variant.advice:
        return None
    if dict(summary.get("options") or {}) != variant.normalize({}):
        return None
    return f"note: {variant.title} {variant.advice}"


def hint_text(reply: dict[str, Any], board: dict[str, Any] | None = None) -> str:
    """One line for a ``hint`` reply: the move to type, or why there is none."""
    when = ""
    if board is not None and int(board["seq"]) != int(reply["seq"]):
        when = f" (for the position after {reply['seq']} moves)"
    if reply.get("move"):
        par = reply.get("par")
        line = f" — a win in {par} moves from here" if par is not None else ""
        return f"hint: {reply['move']}{line}{when}"
    if reply.get("outcome") == "lost":
        return f"no hint: the solver proved this position lost (no line wins){when}"
    return f"no hint: no winning line found within the budget{when}"


def pile_summary(view: dict[str, Any]) -> str:
    """``f1-f8 foundations · t1-t10 tableau · s stock · w waste``, from a view's pile ids."""
    groups: dict[str, list[str]] = {}
    for pid in view["piles"]:
        groups.setdefault(pid[0], []).append(pid)
    parts = []
    for kind, label in PILE_KINDS.items():
        ids = sorted(groups.get(kind, []), key=lambda p: int(p[1:] or 0))
        if ids:
            span = ids[0] if len(ids) == 1 else f"{ids[0]}-{ids[-1]}"
            parts.append(f"{span} {label}")
    return " · ".join(parts)


# ------------------------------------------------------------------------------ the command


async def pick_open_game(welcome: dict[str, Any], args: argparse.Namespace,
                         now_ms: int) -> dict[str, Any] | None:
    """The open game to resume (:func:`solrace.client.opengames.choose`), or None."""
    games = opengames.open_games(welcome, lobbies=not (args.invite or args.quick))
    if args.invite:
        same = [g for g in games if g.get("code") == args.invite]
        if same:
            return same[0]
    asked_new = bool(args.invite or args.quick or args.variant)
    label = ("join the race " + args.invite if args.invite else
             "quick-pair for a new race" if args.quick else "create a new race")

    def ask(prompt: str) -> str:
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise CommandError("no choice made (end of input)")
        return line

    try:
        return await asyncio.to_thread(
            opengames.choose, games, race=args.race, new=args.new, asked_new=asked_new,
            ask=ask if interactive() else None, new_label=label, now_ms=now_ms)
    except opengames.Choice as exc:
        raise CommandError(str(exc)) from None


def settings_ignored(args: argparse.Namespace) -> list[str]:
    """Say so when new-race settings on the command line do not apply to a resumed game."""
    given = [flag for flag, on in (("VARIANT", args.variant), ("--option", args.options),
                                   ("--seats", args.seats != 2),
                                   ("--time-limit", args.time_limit != 600),
                                   ("--rated", args.rated),
                                   ("--winnable", args.winnable)) if on]
    if not given:
        return []
    return [f"note: {', '.join(given)} apply to new races only; resuming an open game "
            "(--new starts a new race instead)"]


async def play_main(args: argparse.Namespace) -> int:
    if args.invite and (args.variant or args.options):
        raise CommandError("--invite joins an existing race: VARIANT and --option do not apply")
    url, name = resolve_server(args), resolve_name(args)
    variant = args.variant or DEFAULT_VARIANT
    options = option_dict(args)
    client = await login(url, name)
    term = RaceTerminal(client, url, color=use_color(args), auto_ready=args.ready)
    term.auto_play = args.auto

    async def enter() -> dict[str, Any] | None:
        found = await pick_open_game(client.welcome, args, term.server_now())
        if found is not None:
            for note in settings_ignored(args):
                term.message(note)
            return await term.resume(found)
        try:
            if args.invite:
                return await client.join(code=args.invite)
            if args.quick:
                term.summary = {"variant": variant, "options": options}
                reply = await client.quick(variant, options, winnable=args.winnable)
                return reply["race"] if reply["t"] == "race" else None
            return await client.create_race(variant, options, seats=args.seats,
                                            time_limit=args.time_limit, rated=args.rated,
                                            winnable=args.winnable)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None

    try:
        return await term.run(enter)
    finally:
        await client.close()


def interrupted() -> int:
    """Ctrl-C: say what became of the race (nothing: it goes on without us)."""
    print("\ninterrupted: a race you were in goes on; 'solrace play' resumes it",
          file=sys.stderr)
    return 130


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(play_main(args))
    except KeyboardInterrupt:
        return interrupted()
