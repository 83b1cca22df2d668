"""The race terminal's keyboard side: typed lines split into commands and moves, and the
requests they make (a move, resign, hint, quit), each retried across a lost connection."""

from __future__ import annotations

import re

from solrace.client import quickplay
from solrace.client.library import ClientError
from solrace.client.raceterm.model import (
    BOARD_WORDS,
    HELP_WORDS,
    HINT_WORDS,
    HISTORY,
    LOG_WORDS,
    QUIT_WORDS,
    READY_WORDS,
    hint_text,
    pile_summary,
)
from solrace.client.session import CONNECT_ERRORS
from solrace.client.tui import clock


class TypedLines:
    """Typed lines in (a mixin of :class:`~.terminal.RaceTerminal`: moves wait in ``held``
    until the race runs, and go out through its client)."""

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
        if status == "playing" and self.still is not None:
            self.still.after_move()  # practice --winnable: checked beside the game
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

