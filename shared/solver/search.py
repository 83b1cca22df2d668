"""The search portfolios: which searches run on a deal, on what share of the budget.

The searches themselves are :class:`.searcher.Searcher` (Python best-first and depth-first,
one transposition table each; run to the end, either proves a deal lost) and the compiled
cores (:mod:`.fastcore`, :mod:`.onepass`, :mod:`.fortyeight`, :mod:`.poporder`);
:func:`search_game` picks the members, gives each its share, and replays every won line
through ``Game.push`` before it is reported.

Why two searches: measured on the five variants, neither order dominates. Best-first, guided
by an estimate of the work left, finds short lines (a useful par) and solves Seven by Five with
cells and Double Aces and Kings far more often; depth-first in the engine's move order solves
Forty and Eight, where the estimate misleads. :func:`search_game` therefore spends half the
budget on best-first and, if that ends undecided, the rest on depth-first — a portfolio, with
node budgets still fully deterministic. With a limited stock (Forty and Eight), where
best-first wins nothing, two depth-first members instead: plain (the engine's moves, one draw
per node) with greedy home moves (every card that fits a foundation goes home at once: a
streamliner, whose exhaustion proves nothing), then the pruned search, which can prove a
position lost.

On Klondike (Unlimited) the default strategy hands the search to the compiled core
(:mod:`.fastcore`, the same graph some thirty times faster) when it is available, in the small
portfolio of :func:`.coreportfolio.core_portfolio`; Double Aces and Kings and Sixes and Sevens
(automatic spaces) run the portfolio's members on their own compiled core (:mod:`.onepass`,
the Python search's nodes in the same order), and so do Forty and Eight's depth-first members
(:mod:`.fortyeight`); every line is replayed through ``Game.push`` either way. The default
strategy decides Sixes and Sevens with automatic spaces by another search altogether, over the
orders in which its waste can be emptied (:mod:`.poporder`), which is exact and far smaller;
the move searches still serve the named strategies and manual spaces.
"""

from __future__ import annotations

import gc
import time

from solrace.shared.engine import Game
from solrace.shared.notation import Move
from solrace.shared.rules import AutoFill
from solrace.shared.solver import fortyeight, onepass, poporder
from solrace.shared.solver.coreportfolio import core_portfolio
from solrace.shared.solver.moves import Triple
from solrace.shared.solver.result import Budget, Outcome, SolveResult
from solrace.shared.solver.searcher import Searcher
from solrace.shared.solver.shorten import shorten

STRATEGIES = ("portfolio", "portfolio2", "portfolio3", "streamlined", "depth3", "best", "dfs",
              "plain", "sbest", "sdfs", "gdfs", "gplain", "greedy2", "restarts", "shaken",
              "shaken-plain")
SHORTEN_EDGES = 20_000  # edges tried when shortening a winning line (deterministic cap)


# ---------------------------------------------------------------------- entry point


def _share(budget: Budget, weight: int, of: int, used_nodes: int, used_seconds: float
           ) -> Budget:
    """``weight`` parts of the ``of`` parts (the weights of this phase and the ones after it)
    of what the earlier phases left: with every weight 1 an equal share, and the last phase
    gets all that is left."""

    def cut(total: float, used: float) -> float:
        return (total - used) * weight / of

    return Budget(
        nodes=None if budget.nodes is None
        else max(1, int(cut(budget.nodes, used_nodes))),
        seconds=None if budget.seconds is None
        else max(1e-3, cut(budget.seconds, used_seconds)),
    )


# A portfolio is a list of members, each run on an equal share of what the earlier ones left
# (``WEIGHTS``: some count as more than one member), until one decides the deal. A member is
# (search, pruning, streamlined): ``best`` / ``dfs`` (pruned best-first / depth-first),
# ``plain`` (depth-first without the pruning), and ``sbest`` / ``sdfs``, the same searches
# under the streamliner (no take-back from the foundations; its wins are wins, its exhaustion
# proves nothing, and the next member starts afresh).
Member = tuple[str, bool, bool]
MEMBERS: dict[str, Member] = {
    "best": ("best", True, False),
    "dfs": ("dfs", True, False),
    "plain": ("dfs", False, False),
    "sbest": ("best", True, True),
    "sdfs": ("dfs", True, True),
    "gdfs": ("gdfs", True, False),
    "gplain": ("gplain", False, False),
    # Forty and Eight's beam (``fortyeight.beam``): compiled only, skipped without the core
    "beam": ("beam", False, False),
}
# ``beam<W>x<L>``: the beam of width W whose walk adds at most L positions per kept one
# (``beam`` alone: ``fortyeight.BEAM_WIDTH`` x ``fortyeight.BEAM_LOCAL``); ``beam<W>x<L>w<K>``
# the same ranking each card left in the waste K lower (``fortyeight.beam``'s ``waste``), and
# with a trailing ``s`` making only safe home moves at once (``greedy=False``): (W, L, K,
# greedy). Different settings win different deals (of 49 undecided deals of 1..240, 1000x200
# wins 13, 300x1000 12, two of them no other setting tried below 3000x300 wins; the waste
# weight and the safe-only beams then win 16 of the 32 left)
BEAMS: dict[str, tuple[int, int, int, bool]] = {
    f"beam{w}x{local}": (w, local, 0, True) for w, local in (
        (300, 1000), (1000, 200), (3000, 50), (3000, 300), (10000, 100))}
BEAMS.update({f"beam{w}x{local}w{k}{'' if greedy else 's'}": (w, local, k, greedy)
              for w, local, k in ((1000, 200, 10), (3000, 300, 20), (10000, 300, 20))
              for greedy in (True, False)})
for _name in BEAMS:
    MEMBERS[_name] = MEMBERS["beam"]
# ``rgplain<k>``, ``rplain<k>``, ``rdfs<k>``: ``gplain``, ``plain``, ``dfs`` with each node's
# children in a random order of seed k (restarts). A shuffled member's exhaustion is reported
# ``unknown`` (as a streamliner's), and once one member has searched a graph to the end the
# other orders of it are skipped
SHUFFLED: dict[str, int] = {}
for _base in ("gplain", "plain", "dfs"):
    for _k in range(1, 65):
        SHUFFLED[f"r{_base}{_k}"] = _k
        MEMBERS[f"r{_base}{_k}"] = MEMBERS[_base]
# members with greedy home moves: their exhaustion proves nothing
GREEDY = ("gdfs", "gplain", "beam")
# A member's share counts as this many equal shares (1 when not listed). The beams win deals at
# up to 1.5-1.8M of their nodes (seeds 55 and 120), more than an equal share of 7.5M, and
# where they do not win they empty early (``beam``: at most 1.2M nodes on seeds 1..240, most
# within 150k), so a double share costs the members after them little; the wide
# waste-ranked beams win at up to 0.9M and 1.7M nodes, and ``gplain``, first of the long
# members, counts double since the beams spend more where they do not win (seed
# 294 needs 1.6M of ``gplain``'s nodes, and where no beam wins they spend 2.1-2.3M)
WEIGHTS: dict[str, int] = {"beam": 2, "beam3000x50": 2, "beam3000x300w20": 2,
                           "beam3000x300w20s": 2, "beam10000x300w20": 2,
                           "beam10000x300w20s": 2, "gplain": 2}
PHASES: dict[str, tuple[str, ...]] = {
    "portfolio2": ("best", "dfs"),
    "portfolio3": ("best", "dfs", "plain"),
    "streamlined": ("sbest", "best", "dfs"),
    "depth3": ("gdfs", "dfs", "plain"),
    "greedy2": ("gplain", "dfs"),
    "restarts": ("gplain", "rgplain1", "rgplain2", "dfs"),
}
# Double Aces and Kings: short shuffled restarts of the pruned depth-first search first, each
# capped (``name@nodes``), then the old halves (best-first, depth-first) on what is left.
# Its depth-first wins come in about one descent or not for millions of nodes (seeds 1..60,
# 64 orders at 5k nodes each: most wins within 300-3,000 nodes), so many cheap first choices
# beat one long search (docs/solver.md, "The search")
RESTARTS = 32  # shuffled orders tried
RESTART_NODES = 2_000  # nodes each, at most
CAPPED_PART = 4  # the capped members together get at most this part of the whole budget
PHASES["shaken"] = (*(f"rdfs{k}@{RESTART_NODES}" for k in range(1, RESTARTS + 1)),
                    "best", "dfs")
# Forty and Eight: short shuffled restarts of the plain search (no greedy home moves), then
# ``restarts``. They win what no greedy order wins: seed 34 (one of the ten deals no order of
# the greedy game won) in 3 of 256 orders, seed 18 in 21 of 256, at 5k nodes
PLAIN_RESTARTS = 64
PLAIN_RESTART_NODES = 5_000
# then short restarts of the greedy plain search in the orders ``restarts`` does not run
# (``rgplain3`` ... ``rgplain10``, 50k nodes each). At 7.5M nodes (about 10 s of the core) they
# win held-out seed 236 of 61..240, which no long member wins, and lose no deal there or on
# 1..60; orders 11..16 and 25k caps gave nothing more (docs/solver.md, "Tried and dropped")
GREEDY_RESTART_ORDERS = range(3, 11)
GREEDY_RESTART_NODES = 50_000
# then beams (compiled only: ``fortyeight.beam``), before the long depth-first members: they
# win deals those wander on for millions of nodes, and where they do not win they empty early.
# Five rank each card left in the waste down (the 1000x200 beam at weight 10 wins 43 of the
# 50 deals of 1..240 that the unweighted beams won after the restarts, within
# 363k nodes), each setting greedy then safe-only (``s``: home moves other than the safe ones
# are choices; they win deals whose greedy game empties early), the wide ones on double shares;
# of three unweighted beams only ``beam`` stays (it alone wins seed 309,
# at 163k nodes). On 1..240 at 7.5M nodes: 224 won against 208, none lost. Where none wins the
# six spend about 2.4M nodes, so ``dfs``, last, still gets the 0.7M it needs for seed 59
PHASES["shaken-plain"] = (
    *(f"rplain{k}@{PLAIN_RESTART_NODES}" for k in range(1, PLAIN_RESTARTS + 1)),
    *(f"rgplain{k}@{GREEDY_RESTART_NODES}" for k in GREEDY_RESTART_ORDERS),
    "beam1000x200w10",
    "beam",
    "beam1000x200w10s",
    "beam3000x300w20",
    "beam3000x300w20s",
    "beam10000x300w20s",
    *PHASES["restarts"],
)


def member_of(name: str) -> tuple[str, int | None]:
    """A phase's member and its node cap: ``rdfs3@5000`` is ``rdfs3`` on at most 5,000
    nodes, ``dfs`` is ``dfs`` on its share. The capped members of a portfolio together get at
    most a ``CAPPED_PART``-th of the whole budget, in order (those after it is spent are
    skipped), so a small budget — a hint's 20k nodes — still runs a few restarts at full size
    and leaves three quarters to the members after them (a late position lost in 2k nodes is
    still proved at 30k)."""
    base, _, cap = name.partition("@")
    return base, (int(cap) if cap else None)


# the smallest whole budget on which the default portfolio runs its beams
BEAM_MIN_NODES = 500_000
BEAM_MIN_SECONDS = 0.5


def _without_beams_when_small(phases: tuple[str, ...], budget: Budget) -> tuple[str, ...]:
    """``phases`` without the beams when the whole budget is small (a hint's 20k nodes, a
    test's few thousand): a beam's first wins come after tens of thousands of nodes (seeds
    1..240: 40k at the least), and its share would only thin the restarts and the greedy
    search that win what such a budget can (at 4k nodes a Forty and Eight deal the default
    without beams won was lost to three beams' shares)."""
    small = (budget.nodes is not None and budget.nodes < BEAM_MIN_NODES) or (
        budget.seconds is not None and budget.seconds < BEAM_MIN_SECONDS)
    if not small:
        return phases
    return tuple(p for p in phases if MEMBERS[member_of(p)[0]][0] != "beam")


def _weight(name: str) -> int:
    """How many equal shares member ``name`` (without its cap) gets: ``WEIGHTS``."""
    return WEIGHTS.get(name, 1)


def _known(name: str) -> bool:
    base, _, cap = name.partition("@")
    return base in MEMBERS and (not cap or (cap.isdigit() and int(cap) > 0))


def _proves(name: str) -> bool:
    """Is the exhaustion of member ``name`` reported as a proof of loss (not a streamliner,
    not greedy, not shuffled)?"""
    kind, _, streamline = MEMBERS[name]
    return not streamline and kind not in GREEDY and name not in SHUFFLED


def phases_of(strategy: str) -> tuple[str, ...] | None:
    """The members of a named strategy, or of a ``+``-joined list of members (``sbest+dfs``);
    ``None`` when the strategy is ``portfolio`` (chosen per game) or unknown."""
    if strategy in PHASES:
        return PHASES[strategy]
    names = tuple(strategy.split("+"))
    if strategy != "portfolio" and all(_known(n) for n in names):
        return names
    return None


def default_phases(game: Game) -> tuple[str, ...]:
    """``portfolio``: best-first then depth-first; with a limited stock and macro-moves (Forty
    and Eight) 64 short shuffled restarts of the plain search first (``shaken-plain``: at
    most 5k nodes each, a 128th of the budget), eight of the greedy plain search (at most 50k
    each; the capped members together at most a ``CAPPED_PART``-th of the budget), then six
    beams over the stock position (compiled only, ``fortyeight.beam``: 1000 x 200 ranking
    each waste card 10 down, the unweighted 1000 x 200, the first again safe-only, 3000 x 300
    at 20 greedy and safe-only, and 10000 x 300 safe-only at 20, the wide ones on double shares;
    they win deals the depth-first members wander on), then
    depth-first searches (``restarts``, ``gplain`` on a double share):
    plain depth-first with greedy home moves (every card that fits a foundation goes home at
    once), the same twice more with
    each node's children in a random order (``rgplain1``, ``rgplain2``: restarts), then pruned
    depth-first, which alone can prove a position lost — a quarter of the budget each, and a
    greedy game searched to the end hands the shuffled members' shares on. The plain search
    draws one card per node and so explores "play through the stock, using each card as it
    comes" first, which the macro-moves (every tableau move before any later waste card)
    reach late, and the greedy home moves shrink its game: alone at 1M nodes it wins 29 of
    seeds 1..40, against 20 for the three-member ``depth3``; a depth-first
    search's first choices fix a subtree of millions of positions, and restarts in other
    orders win deals the engine's order misses (seeds 1..60: 47 of 60 at 3M nodes against 45
    for ``greedy2``; docs/solver.md, "The search"). Double Aces and Kings (one-card piles
    refilled from a one-pass stock) starts with 32 short shuffled restarts of the pruned
    depth-first search (``shaken``: at most 2k nodes each), then the halves: its depth-first
    wins come within about one descent or not for millions of nodes. On
    Unlimited (unlimited redeals) and Sixes and Sevens a third phase only thins the other
    two."""
    rules = game.rules
    macro = rules.draw > 0 and rules.tableau.auto_fill is AutoFill.NONE
    if macro and rules.redeals is not None:
        return PHASES["shaken-plain"]
    if rules.tableau.auto_fill is AutoFill.STOCK and rules.redeals == 0:
        return PHASES["shaken"]  # Double Aces and Kings
    return PHASES["portfolio2"]


def _compiled_member(work: Game, share: Budget, member: str, core: str
                     ) -> tuple[Outcome, list[Triple], int] | None:
    """One portfolio member on a compiled core that runs the Python search itself, node for
    node (:mod:`.onepass`: ``best`` and ``dfs``; :mod:`.fortyeight`: the depth-first ones), or
    ``None`` (then the Python search runs it); with ``core="c"`` a core that should take the
    position and cannot is an error."""
    shuffle = SHUFFLED.get(member, 0)
    kind = "plain" if MEMBERS[member] == MEMBERS["plain"] else MEMBERS[member][0]
    if kind == "beam":
        width, local, waste, greedy = BEAMS.get(member, (
            fortyeight.BEAM_WIDTH, fortyeight.BEAM_LOCAL, fortyeight.BEAM_WASTE,
            fortyeight.BEAM_GREEDY))
        compiled = fortyeight.beam(work, share, width, local, waste, greedy) \
            if fortyeight.handles(work) else None
    elif kind in ("best", "dfs") and onepass.handles(work):
        compiled = onepass.search(work, share, kind, shuffle=shuffle)
    elif kind in fortyeight.MODES and fortyeight.handles(work):
        compiled = fortyeight.search(work, share, kind, shuffle)
    else:
        return None
    if compiled is None and core == "c":
        raise RuntimeError("the compiled core cannot search this position")
    return compiled


def search_game(
    game: Game, budget: Budget, *, strategy: str = "portfolio", pruning: bool = True,
    core: str = "auto",
) -> SolveResult:
    """Solve the current position of ``game`` (left untouched) within ``budget``: see
    :func:`_search_game`. The cyclic garbage collector is paused meanwhile: the search makes
    no reference cycles, only many small lists and tuples, whose allocations would trigger
    collections that scan the growing transposition table for nothing (3-4% of a Python
    search's time; the nodes searched do not change)."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _search_game(game, budget, strategy=strategy, pruning=pruning, core=core)
    finally:
        if paused:
            gc.enable()


def _search_game(
    game: Game, budget: Budget, *, strategy: str = "portfolio", pruning: bool = True,
    core: str = "auto",
) -> SolveResult:
    """Solve the current position of ``game`` (left untouched) within ``budget``.

    ``strategy``: ``"portfolio"`` (the default: :func:`default_phases`), ``"portfolio2"``
    (best-first on half the budget, then depth-first on the rest), ``"portfolio3"``
    (best-first, depth-first, then plain depth-first, a third each), ``"best"``, ``"dfs"`` or
    ``"plain"`` alone. ``pruning=False`` turns off safe moves, delayed
    moves, stock macro-moves and target deduplication in every phase (the transposition table
    stays): the baseline of ``bench/solver.py``.

    The default strategy decides Sixes and Sevens with automatic spaces by
    :mod:`.poporder` (whatever ``core``: it is Python, and exact).

    ``core``: with ``"auto"`` the default strategy searches Klondike (Unlimited) positions with
    the compiled core (:mod:`.fastcore`) when it is available, the Python portfolio otherwise;
    Double Aces and Kings and Sixes and Sevens (``empty_fill=auto``) run the members ``best``
    and ``dfs`` of any strategy on their compiled core (:mod:`.onepass`: the same search, node
    for node); ``"python"`` always runs the Python search, ``"c"`` requires the core.
    """
    named = phases_of(strategy)
    if named is None and strategy != "portfolio":
        raise ValueError(f"unknown search strategy {strategy!r} (known: {STRATEGIES}, or "
                         f"members {tuple(MEMBERS)} joined by '+')")
    start = game.pos.copy()
    work = Game(game.variant, game.options, game.seed, position=start.copy())
    t0 = time.perf_counter()
    phases = default_phases(game) if named is None else named
    if named is None:
        phases = _without_beams_when_small(phases, budget)
    nodes = 0
    outcome, triples = Outcome.UNKNOWN, []
    fast = None
    short = False  # the line is already shortened (the compiled core's own)
    if strategy == "portfolio" and pruning and poporder.handles(work):
        fast = (*poporder.search(work, budget), True)  # Sixes and Sevens, automatic spaces
    elif strategy == "portfolio" and pruning and core != "python":
        fast = core_portfolio(work, budget)
        if fast is None and core == "c" and not onepass.handles(work) \
                and not fortyeight.handles(work):
            raise RuntimeError("the compiled core cannot search this position")
    if fast is not None:
        outcome, triples, nodes, short = fast
        phases = ()
    spent: set[Member] = set()  # streamlined graphs searched to the end without a win
    todo = list(phases)
    capped_nodes, capped_seconds = 0, 0.0  # spent by capped members so far
    while todo:
        name, cap = member_of(todo.pop(0))
        member = MEMBERS[name]
        kind, prune, streamline = member
        now = time.perf_counter() - t0
        share = _share(budget, _weight(name), _weight(name) + sum(
            _weight(member_of(n)[0]) for n in todo), nodes, now)
        if cap is not None:
            limits = [n for n in (cap, share.nodes) if n is not None]
            if budget.nodes is not None:
                limits.append(budget.nodes // CAPPED_PART - capped_nodes)
            seconds = share.seconds
            if budget.seconds is not None and seconds is not None:
                seconds = min(seconds, budget.seconds / CAPPED_PART - capped_seconds)
            if min(limits) < 1 or (seconds is not None and seconds <= 1e-3):
                continue  # the capped members' part of the budget is spent
            share = Budget(nodes=min(limits), seconds=seconds)
        compiled = None
        before_nodes = nodes
        if core != "python" and pruning and not streamline:
            compiled = _compiled_member(work, share, name, core)
        if compiled is None and kind == "beam":
            continue  # no Python twin: its share goes to the members left
        if compiled is not None:
            outcome, triples, count = compiled
            nodes += count
            if outcome is Outcome.LOST and (kind in GREEDY or name in SHUFFLED):
                outcome = Outcome.UNKNOWN  # lost greedily or shuffled: not reported a proof
                spent.add(member)
        else:
            searcher = Searcher(work, pruning=pruning and prune, streamline=streamline,
                                greedy=kind in GREEDY, shuffle=SHUFFLED.get(name, 0))
            run = searcher.run_best if kind == "best" else searcher.run_dfs
            outcome, triples = run(share)
            nodes += searcher.nodes
            if outcome is Outcome.LOST and (searcher.no_takeback or searcher.greedy
                                            or name in SHUFFLED):
                outcome = Outcome.UNKNOWN  # lost without take-backs, greedily or shuffled
                spent.add(member)
        if cap is not None:
            capped_nodes += nodes - before_nodes
            capped_seconds += time.perf_counter() - t0 - now
        if outcome is not Outcome.UNKNOWN:
            break
        # the same graph in another child order (a shuffled member) cannot win either: its
        # share goes to the members left; a member whose exhaustion is a proof still runs
        todo = [n for n in todo if MEMBERS[member_of(n)[0]] not in spent
                or _proves(member_of(n)[0])]
    if outcome is Outcome.WON and pruning and not short:  # the baseline's stay as found
        end = None if budget.seconds is None else t0 + budget.seconds
        triples = shorten(work, triples, max_edges=SHORTEN_EDGES, deadline=end)
    elapsed = time.perf_counter() - t0
    moves: tuple[Move, ...] = ()
    if outcome is Outcome.WON:
        ids = work.layout.ids
        moves = tuple(Move(ids[s], ids[d], n) for s, d, n in triples)
        check = Game(game.variant, game.options, game.seed, position=start)
        for m in moves:
            check.push(m)  # raises if the solver and the engine ever disagree
        if check.cards_home != check.total_cards:
            raise AssertionError("the solver's line does not win")
    return SolveResult(outcome, moves, nodes, elapsed, budget)
