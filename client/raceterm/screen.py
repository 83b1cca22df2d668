"""The race terminal's screen: what the frame shows (title, lobby, board, status, rivals,
messages), redrawn whole or one part in place on a terminal, printed as plain lines otherwise."""

from __future__ import annotations

import math

from solrace.client import quickplay
from solrace.client.library import ClientError
from solrace.client.raceterm.model import MESSAGES, Racer
from solrace.client.render import board_lines, paint
from solrace.client.session import who
from solrace.client.tui import (
    clock,
    options_text,
    result_word,
    seed_lines,
    standings_lines,
    verdict_line,
)
from solrace.shared.variants import VARIANTS


class RaceScreen:
    """Drawing (a mixin of :class:`~.terminal.RaceTerminal`: it reads the picture of the
    race and writes to its ``screen``)."""

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
        """The clock's line, patched in place. On a terminal shorter than the frame a patch
        cannot be made and a redraw would wipe what the player is typing from view (the
        terminal's line mode does not draw it again): the clock then waits for the next real
        change of the frame."""
        if self.screen.tty and not self.screen.fits():
            return
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

