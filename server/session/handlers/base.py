"""The request-handler registry: one async function per request type.

A handler takes the session that received the request (:class:`Session`: what a handler may use
of its connection), the services (:class:`Services`: races, store, dailies, accounts, …) and
the parsed request, and returns the reply (or ``None`` when it sent its replies itself).
Handlers are grouped by job in the modules of this package; each registers itself with
:func:`handles`, so dispatch is a dictionary lookup and no module needs to know the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from solrace.server.fanout.feed import Feed
    from solrace.server.fanout.presence import Presence
    from solrace.server.game.racemodel import Player
    from solrace.server.ops.app import Context as Services
    from solrace.server.store.accounts import SessionRecord

__all__ = ["HANDLERS", "Handler", "Services", "Session", "handles"]


class Session(Protocol):
    """What a handler may use of the connection that received its request: who plays, the
    session record and its checks, sending, background tasks, the event feed and presence.
    The services come as the handler's second argument, never through the connection."""

    player: Player | None
    session: SessionRecord | None
    session_refreshed: float
    session_held: int | None
    session_revoked: bool
    greeted: bool
    quick_queue: str | None
    hinting: bool
    checking: bool
    analysing: bool
    member: str
    feed: Feed
    presence: Presence
    codec: Any
    out: Any
    ws: Any  # the peer's address and request headers (accounts.address)

    @property
    def me(self) -> Player: ...

    def send(self, message: dict[str, Any]) -> None: ...

    def send_frame(self, frame: bytes | str, event: bool) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...

    def background_done(self) -> None: ...

    async def close_after_reply(self, reason: str) -> None: ...


Handler = Callable[["Session", "Services", Any], Awaitable[dict[str, Any] | None]]
HANDLERS: dict[type, Handler] = {}
F = TypeVar("F", bound=Handler)


def handles(*request_types: type) -> Callable[[F], F]:
    """Register the decorated function as the handler of ``request_types``."""

    def register(fn: F) -> F:
        for t in request_types:
            if t in HANDLERS:
                raise RuntimeError(f"two handlers for {t.__name__}")
            HANDLERS[t] = fn
        return fn

    return register
