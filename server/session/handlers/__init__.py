"""Request handlers, one module per job; importing the package registers them all.

- ``session``: ``hello``, ``ping``
- ``lobby``: ``race.create``, ``race.join``, ``race.leave``, ``race.ready``, ``races.mine``,
  ``quick``, ``quick.cancel``
- ``rematch``: ``race.rematch``
- ``play``: ``move``, ``resign``, ``sync``, ``hint``
- ``pointing``: ``autoplay``, ``finish``, ``legal`` and the batch form of ``move``
- ``dailies``: ``daily``, ``daily.start``, ``practice.start``, ``leaderboard``, ``profile``
- ``watching``: ``watch``, ``unwatch``, ``races.live``
- ``accounts``: ``register``, ``login``, ``logout``, ``sessions``, ``session.revoke``,
  ``password.change``, ``account.delete``
- ``moderation``: ``report``, ``mod.reports``, ``mod.queue``, ``mod.case``, ``mod.clear``,
  ``mod.ban``, ``mod.unban``, ``mod.warn``, ``mod.annul``, ``mod.rename``, ``mod.audit``
- ``tournaments``: ``tournaments``, ``tournament.create``, ``tournament.join``,
  ``tournament.play``, ``tournament.standings``
"""

from solrace.server.session.handlers import (
    accounts,
    dailies,
    lobby,
    moderation,
    play,
    pointing,
    rematch,
    session,
    tournaments,
    watching,
)
from solrace.server.session.handlers.base import HANDLERS, Handler, handles

__all__ = [
    "HANDLERS", "Handler", "accounts", "dailies", "handles", "lobby", "moderation", "play",
    "pointing", "rematch", "session", "tournaments", "watching",
]
