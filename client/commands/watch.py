"""Spectate a race: every racer's board side by side, updated move by move.

The picture is built from what the server sends spectators and nothing else: the ``watching``
snapshot (every racer's current view), then each ``progress`` event's view delta applied to that
racer's board, and its ``reveal`` (cards that every racer has now seen). Views never hold a
face-down or stock card, so neither does the screen; while a race runs, a card not every racer
has had face up comes masked (``??``, drawn as a card back) and the ``end`` event brings every
board complete. Rated races also reach spectators with a delay (shown in the header).

The race is named by id or invite code; with neither, the newest live race is picked. The
command watches anonymously, except a running tournament's deal, which only a named player may
watch (docs/protocol.md section 13.4): that one is watched with the player's session. On a
terminal the frame is redrawn in place; otherwise each update prints a new frame (``--once``
prints the snapshot and exits). A dropped connection is resumed with ``watch {since}``, which
replays exactly the missed events. The command ends with the race, printing the standings and
the revealed seed.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from solrace.client.commands import CommandError, use_color
from solrace.client.library import Client, ClientError
from solrace.client.render import board_lines, paint, side_by_side, visible_width
from solrace.client.session import CONNECT_ERRORS, login, spectate
from solrace.client.tui import (
    VERDICT_WAIT,
    Screen,
    add_server_arguments,
    clock,
    options_text,
    resolve_server,
    result_word,
    seed_lines,
    standings_lines,
    verdict_line,
)
from solrace.shared import protocol as P
from solrace.shared.masking import MASKED, apply_reveal
from solrace.shared.protocol import CODE_RE, RACE_ID_RE
from solrace.shared.variants import VARIANTS
from solrace.shared.views import apply_delta

NAME = "watch"
HELP = "spectate a race: all racers' boards side by side, live"

GAP = 4  # columns between boards
RECONNECT_FOR = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", default=None, metavar="RACE|CODE",
                        help="race id or invite code (default: the newest live race)")
    parser.add_argument("--once", action="store_true",
                        help="print the current boards once and exit")
    add_server_arguments(parser, player=False)


def race_target(text: str) -> dict[str, str]:
    """``{"code": …}`` for a six-character invite code, ``{"race": …}`` for a race id."""
    text = text.strip()
    if CODE_RE.match(text.upper()):
        return {"code": text.upper()}
    if RACE_ID_RE.match(text.lower()):
        return {"race": text.lower()}
    raise CommandError(f"not a race id or invite code: {text!r}")


class RaceView:
    """A spectator's picture of one race, folded from the snapshot and the events after it."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.summary: dict[str, Any] = reply["race"]
        self.rid: str = self.summary["race"]
        self.v = 0
        self.delay = float(reply.get("delay", 0))
        self.spectators = int(reply.get("spectators", 0))
        self.names = {r["player"]: r["name"] for r in self.summary["racers"]}
        self.order = [r["player"] for r in self.summary["racers"]]
        self.boards: dict[str, dict[str, Any]] = {}
        self.results: dict[str, str] = {}
        self.elapsed: dict[str, int] = {}
        self.last_move: dict[str, str] = {}
        self.news = ""
        self.end: dict[str, Any] | None = None
        self.ended_before = False  # the race was over when the watch began
        self.closed = False
        self.take(reply)

    @property
    def state(self) -> str:
        return str(self.summary.get("state", "?"))

    def take(self, reply: dict[str, Any]) -> None:
        """A ``watching`` reply: a snapshot (``boards``) or the events after ``since``."""
        self.delay = float(reply.get("delay", self.delay))
        self.spectators = int(reply.get("spectators", self.spectators))
        if "boards" in reply:
            self.summary = reply["race"]
            self.boards = dict(reply["boards"])
            self.v = max(self.v, int(reply.get("v", 0)))
            if reply.get("end"):  # over before the watch: nothing follows (not attached)
                self.ended_before = True
                self.end = reply["end"]
                if self.summary.get("verdict"):  # stored after the end: the final word
                    self.end = {**self.end, "verdict": self.summary["verdict"]}
                self.summary["state"] = "finished"
        for ev in reply.get("events", []):
            self.apply(ev)

    def apply(self, ev: dict[str, Any]) -> bool:
        """Apply one race event; False when it was already seen (a resume overlapping)."""
        v = int(ev.get("v", 0))
        if v <= self.v:
            return False
        self.v = v
        k, pid = ev.get("k"), ev.get("player")
        name = self.names.get(pid, "?") if pid else ""
        if k == "join" and pid:
            self.names[pid] = ev.get("name", "?")
            self.order.append(pid)
            self.news = f"{self.names[pid]} joined"
        elif k == "leave" and pid:
            self.order = [p for p in self.order if p != pid]
            self.news = f"{name} left"
        elif k == "ready":
            self.news = f"{name} is ready"
        elif k == "countdown":
            self.summary.update(state="countdown", starts_at=ev.get("starts_at"))
            self.news = "everyone is ready: countdown"
        elif k == "start":
            self.summary.update(state="running", started_at=ev.get("started_at"),
                                ends_at=ev.get("ends_at"))
            self.boards = {p: {"seq": 0, "view": ev["view"]} for p in self.order}
            self.news = "the race has started"
        elif k == "progress" and pid:
            self._progress(pid, name, ev)
        elif k == "closed":
            self.closed = True
            self.summary["state"] = "closed"
            self.news = "the race was closed: everyone left the lobby"
        elif k == "end":
            self.end = ev
            self.boards.update(ev.get("boards") or {})  # everything shown, nothing masked
            self.summary["state"] = "finished"
            self.news = "the race is over"
        elif k == "verdict" and self.end is not None:
            self.end = {**self.end, "verdict": ev.get("verdict")}
            self.news = verdict_line(ev.get("verdict")) or self.news
        return True

    @property
    def over(self) -> bool:
        """Nothing more to follow: closed, or ended with its verdict (if one is coming)."""
        return self.closed or (self.end is not None and (self.ended_before
                                                         or P.last_event(self.end)))

    def _progress(self, pid: str, name: str, ev: dict[str, Any]) -> None:
        board = self.boards.get(pid)
        if "delta" in ev and board is not None:
            self.boards[pid] = {"seq": ev.get("moves", board["seq"]),
                                "view": apply_delta(board["view"], ev["delta"])}
        apply_reveal(self.boards, ev.get("reveal") or {})
        if ev.get("elapsed") is not None:
            self.elapsed[pid] = int(ev["elapsed"])
        if ev.get("move"):
            self.last_move[pid] = ev["move"]
            self.news = f"{name}: {ev['move']}"
        if ev.get("result"):
            self.results[pid] = ev["result"]
            self.news = f"{name} {ev['result']} at {clock(ev.get('elapsed', 0))}"

    # ------------------------------------------------------------------ drawing

    def header(self, color: bool, now_ms: int) -> str:
        s = self.summary
        variant = s.get("variant", "")
        title = VARIANTS[variant].title if variant in VARIANTS else variant
        parts = [f"{paint('watching', '1', color)} race {self.rid} (code {s.get('code', '?')})",
                 f"{title} {options_text(s.get('options'))}".strip(), self.state]
        if self.state == "running" and s.get("started_at"):
            parts.append(f"{clock(now_ms - int(s['started_at']))} elapsed")
            if s.get("ends_at"):
                parts.append(f"{clock(int(s['ends_at']) - now_ms)} left")
        parts.append(f"{self.spectators} spectator{'s' * (self.spectators != 1)}")
        parts.append(f"delay {self.delay:g} s" if self.delay else "no delay")
        return " · ".join(parts)

    def block(self, pid: str, color: bool) -> list[str]:
        """One racer: name, last move and result, then the board."""
        lines = [paint(self.names.get(pid, "?"), "1", color)]
        facts = []
        if pid in self.last_move:
            facts.append(f"last move {self.last_move[pid]}")
        if pid in self.results:
            facts.append(f"{result_word(self.results[pid], color)} at "
                         f"{clock(self.elapsed.get(pid, 0))}")
        lines.append(" · ".join(facts) or " ")
        board = self.boards.get(pid)
        lines += board_lines(board["view"], color) if board else ["(no board yet)"]
        return lines

    def frame(self, color: bool, width: int, now_ms: int, height: int | None = None
              ) -> list[str]:
        """The picture; with ``height`` (a terminal's rows) it never scrolls the header away:
        boards that do not fit become one line each (see :meth:`fit`)."""
        lines = [self.header(color, now_ms), ""]
        if self.boards:
            pids = [p for p in self.order if p in self.boards]
            pids += [p for p in self.boards if p not in pids]
            blocks = [self.block(p, color) for p in pids]
            body = wrap_blocks(blocks, width)
            if height is not None:
                room = height - len(lines) - (2 if self.news else 0) - 1  # the cursor's row
                if len(body) > room:
                    body = self.fit(pids, blocks, width, room, color)
            lines += body
        else:
            lines.append("racers: " + (", ".join(self.names.get(p, "?") for p in self.order)
                                       or "none yet"))
            if self.state == "running" and self.delay:
                lines.append(f"the boards appear once the {self.delay:g} s spectator delay "
                             "has passed")
        if any(MASKED in cards for b in self.boards.values()
               for _, cards in b["view"]["piles"].values()):
            lines += ["", f"{MASKED} = a card not every racer has seen yet (shown once they have)"]
        if self.news:
            lines += ["", self.news]
        return lines

    def fit(self, pids: list[str], blocks: list[list[str]], width: int, room: int,
            color: bool) -> list[str]:
        """As many whole boards as fit in ``room`` rows (in racer order), the other racers one
        line each — so three Forty and Eight boards at 80×24 keep the header on screen."""
        for shown in range(len(pids) - 1, -1, -1):
            rest = [self.summary_line(p, color) for p in pids[shown:]]
            note = f"({len(rest)} board{'s' * (len(rest) != 1)} not shown: the terminal is too "\
                "small; enlarge it to see every board)"
            body = wrap_blocks(blocks[:shown], width) if shown else []
            body = [*body, *([""] if body else []), *rest, note]
            if len(body) <= room or shown == 0:
                return body
        return []

    def summary_line(self, pid: str, color: bool) -> str:
        """One racer on one line: cards home, moves, last move, result."""
        board = self.boards.get(pid)
        parts = [paint(self.names.get(pid, "?"), "1", color)]
        if board:
            view = board["view"]
            parts += [f"{view['home']}/{view['total']} home", f"{view['moves']} moves"]
        if pid in self.last_move:
            parts.append(f"last move {self.last_move[pid]}")
        if pid in self.results:
            parts.append(result_word(self.results[pid], color))
        return " · ".join(parts)

    def final_lines(self, color: bool) -> list[str]:
        if self.end is None:
            return []
        total = next((b["view"]["total"] for b in self.boards.values()), None)
        verdict = verdict_line(self.end.get("verdict"))
        return ["", *standings_lines(self.end, color=color, total=total),
                *([verdict] if verdict else []),
                *seed_lines(self.end, self.summary.get("commitment"),
                            self.summary.get("variant"), self.summary.get("options"))]


def wrap_blocks(blocks: list[list[str]], width: int) -> list[str]:
    """Blocks side by side, as many per row as fit in ``width`` (at least one)."""
    out: list[str] = []
    row: list[list[str]] = []
    used = 0
    for block in blocks:
        w = max(visible_width(line) for line in block)
        if row and used + GAP + w > width:
            out += [*side_by_side(row, GAP), ""]
            row, used = [], 0
        used += (GAP if row else 0) + w
        row.append(block)
    if row:
        out += side_by_side(row, GAP)
    return out


# ------------------------------------------------------------------------------ the command


class NamedOnly(CommandError):
    """The race is watched by a named player only (a running tournament's deal, docs/
    protocol.md section 13.4): the command then watches with the player's session."""


class Watcher:
    """Connection, events and screen for one watched race."""

    def __init__(self, client: Client, url: str, screen: Screen, color: bool) -> None:
        self.client, self.url, self.screen, self.color = client, url, screen, color
        self.view: RaceView | None = None
        self.offset = 0

    def now(self) -> int:
        return int(time.time() * 1000) + self.offset

    def _clock(self) -> None:
        if self.client.welcome.get("server_time"):
            self.offset = int(self.client.welcome["server_time"]) - int(time.time() * 1000)

    def draw(self) -> None:
        assert self.view is not None
        height = self.screen.height() if self.screen.tty else None
        self.screen.frame(self.view.frame(self.color, self.screen.width(), self.now(), height))

    async def open(self, target: dict[str, str]) -> RaceView:
        self._clock()
        try:
            reply = await self.client.request("watch", **target)
        except ClientError as exc:
            if exc.code == "not_watchable" and self.client.player is None \
                    and exc.extra.get("detail") == "needs_name":
                raise NamedOnly(exc.reason) from None
            raise CommandError(f"{exc.code}: {exc.reason}") from None
        self.view = RaceView(reply)
        self.client.versions[self.view.rid] = self.view.v
        return self.view

    async def follow(self) -> None:
        """Events until the race ends (or is closed), redrawing after each."""
        view = self.view
        assert view is not None
        tick = 1.0 if self.screen.tty else 3600.0  # a terminal's clocks tick every second
        verdict_due: float | None = None
        while not view.over:
            if view.end is not None:  # over, its verdict pending: wait a bounded time
                verdict_due = verdict_due or time.monotonic() + VERDICT_WAIT
                if time.monotonic() >= verdict_due:
                    return
            try:
                msg = await self.client.next_event(tick if verdict_due is None else
                                                   min(tick, verdict_due - time.monotonic()))
            except TimeoutError:
                self.draw()
                continue
            except ConnectionError:
                await self.resume()
                continue
            if msg.get("t") == "event" and msg.get("race") == view.rid and view.apply(msg):
                self.draw()
            elif msg.get("t") == "spectators" and msg.get("race") == view.rid:
                view.spectators = int(msg.get("count", view.spectators))
                self.draw()

    async def resume(self) -> None:
        """A new connection, then ``watch {since}``: exactly the missed events."""
        assert self.view is not None
        deadline, delay = time.monotonic() + RECONNECT_FOR, 0.2
        while True:
            try:
                await self.client.close()
                await self.client.connect()
                reply = await self.client.request("watch", race=self.view.rid, since=self.view.v)
                break
            except (ClientError, *CONNECT_ERRORS) as exc:
                if time.monotonic() > deadline:
                    raise CommandError(f"lost the connection to {self.url}: {exc}") from None
                await asyncio.sleep(delay)
                delay = min(2 * delay, 3.0)
        self._clock()
        missed = len(reply.get("events", []))
        self.view.take(reply)
        self.view.news = f"reconnected: caught up {missed} event{'s' * (missed != 1)}"
        self.draw()


async def pick_live_race(client: Client) -> dict[str, str]:
    reply = await client.request("races.live", limit=1)
    if not reply["races"]:
        raise CommandError("no race is running right now ('solrace races' lists live races)")
    return {"race": reply["races"][0]["race"]}


async def watch_main(args: argparse.Namespace) -> int:
    url = resolve_server(args)
    client = await spectate(url)
    color = use_color(args)
    try:
        target = race_target(args.target) if args.target else await pick_live_race(client)
        try:
            return await watch_race(client, url, target, color, once=args.once)
        except NamedOnly:  # a running tournament's deal: watched with your session
            await client.close()
            client = await login(url, None)
            return await watch_race(client, url, target, color, once=args.once)
    finally:
        await client.close()


async def watch_race(client: Client, url: str, target: dict[str, str], color: bool, *,
                     once: bool = False) -> int:
    """Watch one race on ``client`` until it ends (``once``: print the snapshot only)."""
    screen = Screen()
    watcher = Watcher(client, url, screen, color)
    view = await watcher.open(target)
    watcher.draw()
    if not once and not view.over:
        await watcher.follow()
    final = view.final_lines(color)
    if screen.tty:  # below the boards, not over them
        screen.frame(view.frame(color, screen.width(), watcher.now()) + final)
    elif final:
        screen.frame(final)
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(watch_main(args))
