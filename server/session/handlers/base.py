"""The request-handler registry: one async function per request type.

A handler takes the :class:`~solrace.server.session.connection.Connection` that received the request
and the parsed request, and returns the reply (or ``None`` when it sent its replies itself).
Handlers are grouped by job in the modules of this package; each registers itself with
:func:`handles`, so dispatch is a dictionary lookup and no module needs to know the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from solrace.server.session.connection import Connection

Handler = Callable[["Connection", Any], Awaitable[dict[str, Any] | None]]
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
