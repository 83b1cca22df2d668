"""``solrace practice --winnable``: after each of your moves, whether a win still exists.

The server answers ``winnable`` (docs/protocol.md 5.26) in practice games only, from its solver
in a worker process: ``winnable``, ``lost`` (a proof) or ``undecided``. The check runs beside
the game — typed moves are not held up while the solver thinks — one at a time: moves made
meanwhile are checked together once the answer is in (an answer for an older position is not
shown). A line is printed when the answer changes, not after every move, so a long winnable
stretch is one line and the move that loses it stands out.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from solrace.client.library import ClientError
from solrace.client.session import CONNECT_ERRORS

if TYPE_CHECKING:
    from solrace.client.raceterm.terminal import RaceTerminal


def winnable_text(reply: dict[str, Any]) -> str:
    """One line for a ``winnable`` reply; ``undecided`` says nothing is claimed."""
    outcome = reply.get("outcome")
    if outcome == "winnable":
        return f"still winnable: {reply.get('claim')}"
    if outcome == "lost":
        return f"no longer winnable: {reply.get('claim')} (proved)"
    return (f"still winnable? undecided: the solver found no answer within "
            f"{reply.get('nodes')} positions (nothing is claimed)")


class WinnableWatch:
    """The practice terminal's checks (one in flight; the latest position wins)."""

    def __init__(self, term: RaceTerminal) -> None:
        self.term = term
        self.task: asyncio.Task[None] | None = None
        self.again = False
        self.shown: str | None = None  # the outcome last printed
        self.off = False

    def after_move(self) -> None:
        """A move was acknowledged: check the new position (now, or after the running check)."""
        if self.off:
            return
        if self.task is not None and not self.task.done():
            self.again = True
            return
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        term = self.term
        while True:
            self.again = False
            board, rid = term.board, term.rid
            if board is None or rid is None or term.my_result:
                return
            try:
                reply = await term.client.winnable(rid)
            except ClientError as exc:
                if exc.code in ("not_practice", "already_finished", "not_running"):
                    self.off = exc.code == "not_practice"
                    if self.off:
                        term.message(f"✗ still winnable?: {exc.reason}")
                    return
                term.message(f"✗ still winnable?: {exc.code} — {exc.reason}")
                return
            except CONNECT_ERRORS:
                return  # the next move after the reconnect asks again
            now = term.board
            if now is not None and int(now["seq"]) == reply["seq"] \
                    and reply["outcome"] != self.shown:
                self.shown = reply["outcome"]
                term.message(winnable_text(reply))
            if not self.again:
                return

    async def close(self) -> None:
        """Wait for a check in flight (the game may end with its answer still to print)."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(Exception):  # on the way out: a late answer is moot
                await asyncio.wait_for(self.task, 10)
