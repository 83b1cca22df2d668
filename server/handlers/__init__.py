"""Request handlers, one module per job; importing the package registers them all.

- ``session``: ``hello``, ``ping``
- ``lobby``: ``race.create``, ``race.join``, ``race.leave``, ``race.ready``, ``races.mine``,
  ``quick``, ``quick.cancel``
- ``rematch``: ``race.rematch``
- ``play``: ``move``, ``resign``, ``sync``, ``hint``
- ``dailies``: ``daily``, ``daily.start``, ``practice.start``, ``leaderboard``, ``profile``
- ``watching``: ``watch``, ``unwatch``, ``races.live``
"""

from solrace.server.handlers import dailies, lobby, play, rematch, session, watching
from solrace.server.handlers.base import HANDLERS, Handler, handles

__all__ = [
    "HANDLERS", "Handler", "dailies", "handles", "lobby", "play", "rematch", "session",
    "watching",
]
