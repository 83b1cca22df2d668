"""The default search on Klondike (Unlimited): a portfolio of the compiled core's members.

:func:`core_portfolio` spends one budget on the compiled core's searches (:mod:`.fastcore`):
a quick depth-first pass, Python best-first, the core's best-first and beam members, restarts
in other move orders, and last the streamlined and full depth-first searches, the full one
being the member that proves deals lost. The shares are constants here because they were
measured (``docs/solver.md``, "The compiled cores") and tests pin what each one wins.
:func:`.search.search_game` calls it and replays the line through ``Game.push``.
"""

from __future__ import annotations

import functools
import time

from solrace.shared.engine import Game
from solrace.shared.solver import fastcore
from solrace.shared.solver.moves import Triple
from solrace.shared.solver.result import Budget, Outcome
from solrace.shared.solver.searcher import Searcher

CORE_QUICK = 20_000  # nodes of the compiled core's quick first pass
PYTHON_BEST = 3_000  # nodes of the Python best-first pass that follows it
RESTART_SHARE = 0.5  # of the rest for the core's restarts in other move orders (and best-first)
# the compiled best-first members that follow the quick pass (``fastcore.best``): (streamlined,
# estimate weights, share of the rest); their nodes come out of the restarts' share, so the
# final full search keeps half of the rest (docs/solver.md, "The compiled cores")
CORE_BEST = ((True, (4, 2, 2, 2, 0), 0.1), (False, (4, 2, 2, 3, 0), 0.1))
# the compiled beam members that follow them (``fastcore.beam``): (streamlined, shape, share of
# the rest), also out of the restarts' share; the beam never proves a loss (docs/solver.md,
# "The compiled cores")
CORE_BEAM: tuple[tuple[bool, fastcore.Shape, float], ...] = (
    (True, fastcore.BEAM, 0.2),)
FINAL_STREAMLINED = 1 / 3  # of the last phase's nodes: the streamlined search (and late beams)
# beams in the last phase (``_final_search``), by the number of cards drawn: (streamlined,
# shape, share of its streamlined part); another width and a stock weight win other draw-3
# deals; on draw 1 the streamlined depth-first search keeps the part (it wins seed 9 there at
# 3M nodes; docs/solver.md, "The compiled cores")
CORE_LATE_BEAM: dict[int, tuple[tuple[bool, fastcore.Shape, float], ...]] = {
    3: ((True, (8000, 30, 4, 2, 2, 1, 2), 0.7),)}


def _fraction(budget: Budget, part: float) -> Budget:
    """``part`` (0..1) of ``budget``, at least one node."""
    return Budget(nodes=None if budget.nodes is None else max(1, int(budget.nodes * part)),
                  seconds=None if budget.seconds is None else budget.seconds * part)


def core_portfolio(game: Game, budget: Budget
                   ) -> tuple[Outcome, list[Triple], int, bool] | None:
    """The portfolio on the compiled core (Klondike): the core on ``CORE_QUICK`` nodes (most
    deals are won in a few hundred), then Python best-first on ``PYTHON_BEST`` (it wins some
    deals in a few hundred nodes that depth-first misses for millions: on seeds 1..200 of
    draw 1 at 10 s, 11 of the wins), then the core's best-first members ``CORE_BEST``
    (``fastcore.best``: a streamlined and a full one, each on a tenth of the rest:
    on seeds 1..300 at 1.5M nodes they won 14 deals nothing else did), then the core's beam
    ``CORE_BEAM`` (``fastcore.beam``: streamlined, a fifth of the rest: it wins
    draw-3 deals no depth-first or best-first member reached at 3M nodes; it never proves a
    loss), then the core's
    restarts in other move orders on what is left of ``RESTART_SHARE`` of the rest
    (``fastcore.restarts``), then the core on what is left: streamlined on a third, the full search
    (the one that proves most deals lost) on the other two thirds. ``None`` when the core does
    not handle the position. Node budgets stay deterministic. The last item says whether a won
    line is already short: the core shortens its own lines (``fastcore.search``), in
    milliseconds where :func:`.shorten` takes 0.1-0.5 s of Python (most of a typical deal's
    time); Python best-first's line is left to :func:`.shorten`."""
    t0 = time.perf_counter()

    def left(cap: int | None) -> Budget | None:
        used_s = time.perf_counter() - t0
        nodes = None if budget.nodes is None else budget.nodes - used
        if cap is not None:
            nodes = cap if nodes is None else min(cap, nodes)
        secs = None if budget.seconds is None else budget.seconds - used_s
        if (nodes is not None and nodes < 1) or (secs is not None and secs <= 1e-3):
            return None
        return Budget(nodes=nodes, seconds=secs)

    used = 0
    first = left(CORE_QUICK)
    assert first is not None
    fast = fastcore.search(game, first, first.seconds)
    if fast is None:
        return None
    used += fast[2]
    if fast[0] is not Outcome.UNKNOWN:
        return fast[0], fast[1], used, True
    best = left(PYTHON_BEST)
    if best is not None:
        searcher = Searcher(game)
        outcome, line = searcher.run_best(best)
        used += searcher.nodes
        if outcome is not Outcome.UNKNOWN:
            return outcome, line, used, False
    rest = left(None)
    if rest is None:
        return Outcome.UNKNOWN, [], used, True
    share = RESTART_SHARE  # of this rest, for best-first, the beams and the restarts together
    # (member, its share of the rest, whether its exhaustion proves a loss: the beam's never)
    members = [(functools.partial(fastcore.best, greedy=greedy, weights=weights), part, True)
               for greedy, weights, part in CORE_BEST]
    members += [(functools.partial(fastcore.beam, greedy=greedy, shape=shape), part, False)
                for greedy, shape, part in CORE_BEAM]
    for member, part, proves in members:
        some = _fraction(rest, part)
        share -= part
        fast = member(game, some, some.seconds)
        if fast is None:
            return None
        used += fast[2]
        if fast[0] is Outcome.WON or (proves and fast[0] is Outcome.LOST):
            return fast[0], fast[1], used, True
    some = _fraction(rest, share)
    fast = fastcore.restarts(game, some, some.seconds)
    if fast is None:
        return None
    used += fast[2]
    if fast[0] is not Outcome.UNKNOWN:
        return fast[0], fast[1], used, True
    rest = left(None)
    if rest is None:
        return Outcome.UNKNOWN, [], used, True
    fast = _final_search(game, rest)
    if fast is None:
        return None
    return fast[0], fast[1], used + fast[2], True


def _final_search(game: Game, rest: Budget) -> tuple[Outcome, list[Triple], int] | None:
    """The portfolio's last phase on ``rest``: the core's streamlined search on
    ``FINAL_STREAMLINED`` of it, then the full search (the one that proves deals lost) on what
    is left. The late beams (``CORE_LATE_BEAM``: draw 3, streamlined) take their nodes out of
    the streamlined part, after the streamlined depth-first search (which won no deal of draw
    3 1..1000 at 3M nodes), and only when that search did not exhaust the streamlined game
    (then they cannot win it either): so the full search gets what it got without them,
    except when the streamlined game would have been exhausted within the beams' share of it
    (docs/solver.md, "The compiled cores")."""
    t0 = time.perf_counter()
    beams = CORE_LATE_BEAM.get(game.rules.draw, ())
    late = sum(part for _, _, part in beams)
    third = _fraction(rest, FINAL_STREAMLINED)
    first = _fraction(third, 1 - late)
    fast = fastcore.streamlined(game, first, first.seconds)
    if fast is None or fast[0] is Outcome.WON:
        return fast
    used = fast[2]
    spent = time.perf_counter() - t0
    exhausted = used < first.nodes if first.nodes is not None else spent < 0.99 * first.seconds
    for greedy, shape, part in () if exhausted else beams:
        beam = _fraction(third, part)
        fast = fastcore.beam(game, beam, beam.seconds, greedy=greedy, shape=shape)
        if fast is None:
            return None
        used += fast[2]
        if fast[0] is Outcome.WON:  # the beam never proves a loss
            return fast[0], fast[1], used
    spent = time.perf_counter() - t0
    left = Budget(nodes=None if rest.nodes is None else max(1, rest.nodes - used),
                  seconds=None if rest.seconds is None else max(1e-3, rest.seconds - spent))
    fast = fastcore.search(game, left, left.seconds, streamline=False)
    if fast is None:
        return None
    return fast[0], fast[1], used + fast[2]
