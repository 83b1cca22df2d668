"""The race terminal's server side: the messages and race events that arrive, applied to the
picture of the race (racers, state, results) and announced — or, for a resume's history,
applied quietly."""

from __future__ import annotations

import time
from typing import Any

from solrace.client.raceterm.model import Racer
from solrace.client.tui import VERDICT_WAIT, clock
from solrace.shared import protocol as P


class RaceEvents:
    """Server messages in (a mixin of :class:`~.terminal.RaceTerminal`, whose state it
    updates: ``racers``, ``state``, ``summary``, ``end``, ``my_result``, …)."""

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

