"""Terminal plumbing shared by the commands that talk to a server (play, race, watch, races).

Three problems every such command has, solved once here:

* **Arguments.** ``--server``, ``--name`` and the colour switches mean the same everywhere, with
  the same environment fallbacks (``SOLRACE_SERVER``; ``SOLRACE_NAME`` when the server has no
  current session, see :mod:`solrace.client.session`).
* **Input while output keeps coming.** A player types moves while rivals' progress arrives.
  :class:`StdinLines` reads standard input on a thread with ``os.read`` on the raw descriptor
  and hands complete lines to the event loop, so events render while the user types. A thread
  (not ``loop.connect_read_pipe``) because stdin may be a terminal, a pipe or a regular file,
  and only a thread reads all three; the raw descriptor (not ``sys.stdin``) because a daemon
  thread blocked inside a buffered reader could deadlock the interpreter's shutdown.
* **Updating a screen.** :class:`Screen` draws a frame in place on a terminal (clear and home,
  then single lines patched with save/restore cursor, so what the user is typing is not
  disturbed) and, when stdout is not a terminal, appends plain frames and lines, which is what
  logs, pipes and tests want.

Plus the formatting both ``play`` and ``watch`` print: clocks, the standings table and the
revealed seed checked against the commitment published before the start.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import os
import re
import shutil
import sys
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from solrace.client.render import pad, paint, visible_width
from solrace.shared.prng import commitment
from solrace.shared.protocol import NAME_RE

DEFAULT_SERVER = "ws://127.0.0.1:8765"
SERVER_ENV = "SOLRACE_SERVER"
NAME_ENV = "SOLRACE_NAME"
FALLBACK_NAME = "player"
NAME_RULE = "2-20 characters: letters, digits, '_', '.', '-', starting with a letter or digit"

# ------------------------------------------------------------------------------ arguments


def server_url(text: str) -> str:
    """``host:port`` gets ``ws://`` in front; ``ws://`` and ``wss://`` URLs pass unchanged."""
    text = text.strip()
    if not text:
        raise argparse.ArgumentTypeError("empty server URL")
    if "://" not in text:
        text = "ws://" + text
    if not text.startswith(("ws://", "wss://")):
        raise argparse.ArgumentTypeError(f"not a websocket URL: {text!r} (ws://HOST:PORT)")
    return text


def sanitize_name(raw: str) -> str:
    """A display name obeying the server's rules made from any text (an OS user name):
    accents dropped, other characters turned into ``-``, cut to 20; ``player`` when nothing
    usable is left."""
    ascii_text = unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_text)
    name = re.sub(r"^[^A-Za-z0-9]+", "", name)[:20]
    if len(name) < 2:
        name = (name + "-" + FALLBACK_NAME)[:20] if name else FALLBACK_NAME
    return name if NAME_RE.match(name) else FALLBACK_NAME


def display_name(text: str) -> str:
    if not NAME_RE.match(text):
        raise argparse.ArgumentTypeError(f"bad name {text!r}: names are {NAME_RULE}")
    return text


def add_server_arguments(parser: argparse.ArgumentParser, *, player: bool = True) -> None:
    """``--server``, ``--name`` (when ``player``) and ``--color``/``--no-color``."""
    parser.add_argument(
        "--server", type=server_url, default=None, metavar="URL",
        help=f"server websocket URL (default: ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    if player:
        parser.add_argument(
            "--name", type=display_name, default=None, metavar="NAME",
            help="play as NAME: its saved session (a guest's or an account's), else a new "
            f"guest NAME (default: your current session on the server, else ${NAME_ENV}, else "
            "a guest name asked for or generated; see solrace login); names are "
            f"{NAME_RULE}",
        )
        parser.add_argument(
            "--no-follow-home", action="store_true",
            help="stay on the server process you reached even when a race's home is another "
            "(the game is the same; moving there saves the server work; env "
            "SOLRACE_FOLLOW_HOME=0)",
        )
    colour = parser.add_mutually_exclusive_group()
    colour.add_argument("--color", dest="color", action="store_const", const=True,
                        default=None, help="colour even when stdout is not a terminal")
    colour.add_argument("--no-color", dest="color", action="store_const", const=False,
                        help="no colour")


def resolve_server(args: argparse.Namespace) -> str:
    if getattr(args, "server", None):
        return str(args.server)
    env = os.environ.get(SERVER_ENV)
    try:
        return server_url(env) if env else DEFAULT_SERVER
    except argparse.ArgumentTypeError as exc:
        from solrace.client.commands import CommandError

        raise CommandError(f"${SERVER_ENV}: {exc}") from None


def resolve_name(args: argparse.Namespace) -> str | None:
    """The guest name of ``--name``, or None: the server's current session, else
    ``$SOLRACE_NAME``, else a guest name asked for or generated (``session.login``); never the
    OS user name."""
    return str(args.name) if getattr(args, "name", None) else None


def interactive() -> bool:
    """A person at a terminal: both stdin and stdout are terminals."""
    return _isatty(sys.stdin) and _isatty(sys.stdout)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------------------ input


class StdinLines:
    """Lines of standard input delivered to an asyncio queue by a daemon thread.

    Each complete line arrives as ``("line", text)`` (without the newline); end of input as
    ``("line", None)``. The thread reads the raw descriptor with ``os.read``, so it never holds
    a Python-level lock while blocked and the process can exit with the thread still waiting.
    """

    def __init__(self, queue: asyncio.Queue[tuple[str, Any]], fd: int | None = None) -> None:
        self.queue = queue
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, daemon=True, name="stdin-lines")

    def start(self) -> StdinLines:
        self._thread.start()
        return self

    def _put(self, line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            self.loop.call_soon_threadsafe(self.queue.put_nowait, ("line", line))

    def _run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        buffer = ""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            buffer += decoder.decode(chunk, final=not chunk)
            *lines, buffer = buffer.split("\n")
            for line in lines:
                self._put(line.rstrip("\r"))
            if not chunk:
                if buffer:
                    self._put(buffer)
                self._put(None)
                return


# ------------------------------------------------------------------------------ output

HOME = "\x1b[H"
ERASE_LINE = "\x1b[K"  # from the cursor to the end of the line
ERASE_BELOW = "\x1b[J"  # from the cursor to the end of the screen


class Screen:
    """A frame redrawn in place on a terminal; appended frames and lines elsewhere."""

    def __init__(self, out: TextIO | None = None, *, tty: bool | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.tty = _isatty(self.out) if tty is None else tty
        self.rows = 0  # lines of the frame on screen (tty)
        self.prompt = ""

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def frame(self, lines: Sequence[str], prompt: str = "") -> None:
        """The whole picture: on a terminal it replaces the screen and ends with ``prompt``.

        Drawn over the old frame from the top (each line erased to its end, the rest of the
        screen below the prompt erased), not cleared first: no flicker on every update."""
        if self.tty:
            self.rows, self.prompt = len(lines), prompt
            body = "".join(f"{line}{ERASE_LINE}\n" for line in lines)
            self.write(f"{HOME}{body}{prompt}{ERASE_BELOW}")
        else:
            self.write("\n".join(lines) + "\n")

    def fits(self) -> bool:
        """Does the frame (and its prompt) fit on the terminal without scrolling?"""
        return self.rows + 1 <= shutil.get_terminal_size((80, 24)).lines

    def patch(self, row: int, text: str) -> bool:
        """Rewrite frame line ``row`` in place, the cursor (mid-typing) left where it was.
        False when that cannot be done (not a terminal, or the frame scrolled)."""
        if not self.tty or row >= self.rows or not self.fits():
            return False
        self.write(f"\x1b7\x1b[{row + 1};1H\x1b[2K{text}\x1b8")
        return True

    def line(self, text: str) -> None:
        """One line of log: printed as is off a terminal; on a terminal, above the prompt
        (callers on a terminal normally patch a frame line instead)."""
        if self.tty:
            self.write(f"\r\x1b[2K{text}\n{self.prompt}")
        else:
            self.write(text + "\n")

    def width(self) -> int:
        return shutil.get_terminal_size((160, 50)).columns

    def height(self) -> int:
        return shutil.get_terminal_size((160, 50)).lines


# ------------------------------------------------------------------------------ formatting


def clock(ms: float, *, tenths: bool = False) -> str:
    """``83_400`` → ``1:23`` (``1:23.4`` with ``tenths``); hours when needed."""
    ms = max(0, int(ms))
    if tenths:
        sec, rest = divmod(ms, 1000)
        frac = f".{rest // 100}"
    else:
        sec, frac = ms // 1000, ""
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}{frac}" if h else f"{m}:{s:02d}{frac}"


def table(rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    """Columns padded to their widest cell (``right``: right-aligned column indexes)."""
    if not rows:
        return []
    widths = [max(visible_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(pad(cell, w, right=i in right) for i, (cell, w) in enumerate(zip(r, widths)))
        .rstrip()
        for r in rows
    ]


_RESULT_COLOUR = {"won": "32", "lost": "31", "resigned": "31", "timeout": "33"}
END_REASONS = {"done": "every racer finished", "time": "the time limit was reached"}


def result_word(result: str | None, color: bool = False) -> str:
    word = result or "playing"
    return paint(word, _RESULT_COLOUR.get(word, ""), color)


def standings_lines(
    end: Mapping[str, Any], *, color: bool = False, me: str | None = None,
    total: int | None = None,
) -> list[str]:
    """The ``end`` event's standings as a table: rank, name, result, home, moves, time."""
    reason = END_REASONS.get(str(end.get("reason")), str(end.get("reason", "")))
    standings = end.get("standings", [])
    rated = any(r.get("rating") for r in standings)
    rows = [["#", "name", "result", "home", "moves", "time"] + (["rating"] if rated else [])]
    for r in standings:
        name = str(r.get("name", "?")) + (" (you)" if me and r.get("player") == me else "")
        home = f"{r.get('home', 0)}/{total}" if total else str(r.get("home", 0))
        rows.append([str(r.get("rank", "")), name, result_word(r.get("result"), color), home,
                     str(r.get("moves", 0)), clock(r.get("elapsed", 0), tenths=True)]
                    + ([rating_change(r.get("rating"))] if rated else []))
    head = paint("standings", "1", color) + (f" — {reason}" if reason else "")
    return [head, *("  " + line for line in table(rows, right=(0, 3, 4, 5)))]


def rating_change(rating: Mapping[str, Any] | None) -> str:
    """``1500 → 1523 (+23)`` from a standings row's ``rating`` (rated races)."""
    if not rating:
        return ""
    before, after = int(rating.get("before", 0)), int(rating.get("after", 0))
    mark = " provisional" if rating.get("provisional") else ""
    return f"{before} → {after} ({after - before:+d}){mark}"


def seed_lines(end: Mapping[str, Any], published: str | None, variant: str | None = None,
               options: Mapping[str, str] | None = None) -> list[str]:
    """The revealed seed, checked against the commitment published before the start."""
    seed = end.get("seed")
    if seed is None:
        return []
    expected = published or end.get("commitment")
    if expected and commitment(int(seed)) == expected:
        check = "sha256 matches the commitment published before the start ✓"
    elif expected:
        check = "WARNING: sha256 does NOT match the commitment published before the start"
    else:
        check = "no commitment to check against"
    lines = [f"seed {seed} ({check})"]
    if variant:
        opts = "".join(f" -o {k}={v}" for k, v in (options or {}).items())
        lines.append(f"see the deal: solrace deal {variant} --seed {seed}{opts}")
    return lines


VERDICT_WAIT = 60.0  # seconds a race's screen waits after the end for a pending verdict


def verdict_line(verdict: Mapping[str, Any] | None) -> str | None:
    """The solver's verdict on a finished race's deal (the ``end`` or ``verdict`` event's
    ``verdict``) as one sentence; None when the server gave none."""
    if not verdict:
        return None
    outcome = verdict.get("outcome")
    if outcome == "won":
        how = " (a certified deal)" if verdict.get("certified") else ""
        return f"solver: this deal was winnable in {verdict.get('par')} moves{how}"
    if outcome == "lost":
        return "solver: this deal was proved lost (no sequence of moves wins it)"
    if outcome == "unknown":
        budget = verdict.get("budget") or verdict.get("nodes")
        return f"solver: undecided within {budget} positions searched"
    if outcome == "pending":
        return "solver: checking this deal…"
    return f"solver: {outcome}"


def options_text(options: Mapping[str, Any] | None) -> str:
    return " ".join(f"{k}={v}" for k, v in (options or {}).items())


__all__ = [
    "DEFAULT_SERVER",
    "Screen",
    "StdinLines",
    "add_server_arguments",
    "clock",
    "interactive",
    "options_text",
    "resolve_name",
    "resolve_server",
    "result_word",
    "sanitize_name",
    "seed_lines",
    "standings_lines",
    "table",
    "verdict_line",
]
