"""Tournaments, sans-I/O: the formats' rules as pure functions, for the server to run and for
anyone to check (docs/tournaments.md is their statement for players).

* :mod:`.seeds` — one committed master seed per tournament, and deal *k*'s seed from it;
* :mod:`.arena` — an arena's points per deal, streaks, berserk, standings and tie-breaks;
* :mod:`.event` — a scheduled event's ranking;
* :mod:`.knockout` — seeding a bracket, byes, walkovers, who advances;
* :mod:`.bracket` — a knockout's bracket over time: rounds opening, matches decided, bans,
  the podium;
* :mod:`.machine` — a tournament's states and transitions as one table;
* :mod:`.schedule` — recurring tournaments ("every hour at :00 for 30 minutes").
"""
