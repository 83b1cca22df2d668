"""Sixes and Sevens with automatic spaces, solved as a search over pop orders of the waste.

Why: the move-by-move search (:mod:`.search`, :mod:`.onepass`) decided a third of the deals
in 10 s and proved none lost, because its positions carry which card went home when and
where each card sits on the tableau. The game has much less choice than that. With automatic
spaces every move is a draw (a *push* onto the waste, a stack) or a card going home, and while
the stock or the waste holds cards every card going home takes exactly one card off the
waste (a *pop*): the waste top itself, or the waste top pulled into the space a tableau card
left. So a line is a sequence of pushes and pops, and which card goes home at each pop does
not matter (docs/solver.md, "Sixes and Sevens as pop orders", gives the proof):

    a deal is won iff some stack order ``P`` of popping the waste (pushes in deal order) has,
    for every ``k``, at least ``k`` more cards in the home closure of the cards seen by the
    ``k``-th pop (the tableau, home and popped cards) than were home at the start,

where the home closure of a set of cards is how many of them could go home in some order
(per chain — a suit's Five down to its Ace on the two Six foundations, or its Eight up to its
King on the two Seven foundations — ``c_d = min(c_(d-1), copies available at distance d)``,
``c_0 = 2``). A search state is therefore only (cards pushed, set of cards popped): a few
hundred states decide most deals where the move search met millions of positions. A won
line is turned back into engine moves by playing, at each pop, the first card that fits a
foundation (any choice works), and replays through ``Game.push`` like every solver line.

Two prunings keep the search exact:

* *Safe pop.* A waste top whose chain predecessor has both copies in the closure is popped
  at once (no branch): popping it now raises the closure by one for good, so any winning
  line that pops it later can pop it first instead.
* *Dig test.* For every waste card ``X``, the cards below ``X`` stay unseen until ``X`` is
  popped, and every card pushed before that must be popped first; if no number of further
  pushes (no fewer than the card above ``X`` needed) makes the closure large enough to pay
  for popping ``X`` and everything above it, the position is lost. It is one pass down the
  waste and runs after each push (a pop leaves every waste card's condition as it was).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from solrace.shared.engine import Game
from solrace.shared.notation import Move
from solrace.shared.rules import AutoFill, Build
from solrace.shared.solver.result import Budget, Outcome

Triple = tuple[int, int, int]

CHAINS = 8  # suit * 2 + 0 (Six foundations, Five down to Ace) or 1 (Seven, Eight up to King)
WIDTH = 7  # slots per chain in the availability table: distances 1..6, slot 0 unused
LENGTH = (5, 6) * 4  # cards per chain
CHECK_EVERY = 1024  # nodes between clock reads
FIRST_CAP = 5_000  # nodes of the first restart; each round of two allows four times more


def chain_slot(card: int) -> int:
    """The availability slot (``chain * WIDTH + distance``) of a card face that can go home
    in Sixes and Sevens; the Sixes and Sevens themselves start the foundations and have none."""
    suit, rank = divmod(card, 13)
    rank += 1
    if rank <= 5:
        return (suit * 2) * WIDTH + 6 - rank
    if rank >= 8:
        return (suit * 2 + 1) * WIDTH + rank - 7
    raise ValueError(f"card {card} starts a foundation and never moves")


def handles(game: Game) -> bool:
    """Sixes and Sevens, either ``empty_fill``, at a position play can reach (one face-up card
    or none per pile; with automatic spaces a space only once stock and waste are empty), not
    resigned."""
    r = game.rules
    t = r.tableau
    groups = [(g.count, g.start_rank, g.step, g.same_suit, g.prefilled) for g in r.foundations]
    if not (r.decks == 2 and groups == [(8, 6, -1, True, True), (8, 7, 1, True, True)]
            and t.piles == 9 and t.build is Build.NONE and r.draw == 1 and r.redeals == 0
            and t.auto_fill in (AutoFill.WASTE_THEN_STOCK, AutoFill.NONE)
            and not game._R and not game._C and game._S >= 0 and game._W >= 0
            and not r.foundation_to_foundation and not game.resigned):
        return False
    piles, down = game.pos.piles, game.pos.down
    if any(len(piles[p]) > 1 or down[p] for p in game._T):
        return False
    full = all(piles[p] for p in game._T)
    return full or _manual(game) or not (piles[game._S] or piles[game._W])


def _manual(game: Game) -> bool:
    return game.rules.tableau.auto_fill is AutoFill.NONE


def closure(avail: list[int], chain: int) -> int:
    """How many of one chain's available cards could go home: copies per distance, capped by
    the distance before (two foundations per chain, one copy of each card on each)."""
    base = chain * WIDTH
    cap = 2
    total = 0
    for d in range(1, LENGTH[chain] + 1):
        have = avail[base + d]
        if have < cap:
            cap = have
            if cap == 0:
                break
        total += cap
    return total


def _shift(avail: list[int], fch: list[int], slot: int, delta: int) -> int:
    """``delta`` more (or fewer) available cards of ``slot``: its chain's closure redone in
    ``fch``; the change of the closure."""
    avail[slot] += delta
    ch = slot // WIDTH
    old = fch[ch]
    new = closure(avail, ch)
    fch[ch] = new
    return new - old


class _OutOfBudget(Exception):
    pass


class PopSearch:
    """Depth-first search over (pushed, popped) with a table of lost states. ``dig`` and
    ``safe`` switch the two prunings (the tests compare the search with and without them)."""

    def __init__(self, game: Game, *, dig: bool = True, safe: bool = True) -> None:
        piles = game.pos.piles
        home = [c for f in game._F for c in piles[f][1:]]
        seen = home + [c for t in game._T for c in piles[t]]
        waste = list(piles[game._W])
        self.seq = waste + list(piles[game._S])[::-1]  # the waste, then the stock in draw order
        self.slot = [chain_slot(c) for c in self.seq]
        self.avail = [0] * (CHAINS * WIDTH)
        for c in seen:
            self.avail[chain_slot(c)] += 1
        self.fch = [closure(self.avail, ch) for ch in range(CHAINS)]
        self.f = sum(self.fch)
        # the closure must stay at least the cards home, less one for each space (a pop may
        # fill a space with no card going home: manual spaces only)
        self.need = len(home) - sum(1 for t in game._T if not piles[t])
        self.stack = list(range(len(waste)))
        self.pushed = len(waste)
        self.dig, self.safe = dig, safe
        self.lost: set[int] = set()  # lost states, as (popped << 7 | pushed)
        self.nodes = 0
        self.events: list[bool] = []  # the won line: True push, False pop (reversed as found)
        self.push_first = False  # the child order of the restart under way

    # -- the state's arithmetic

    def _add(self, i: int, delta: int) -> int:
        """Make ``seq[i]`` (un)available; the change of the closure."""
        change = _shift(self.avail, self.fch, self.slot[i], delta)
        self.f += change
        return change

    def _safe(self, i: int) -> bool:
        """Does popping ``seq[i]`` raise the closure for good (its predecessor's two copies
        are in the closure already)?"""
        s = self.slot[i]
        ch, d = divmod(s, WIDTH)
        base = ch * WIDTH
        cap = 2
        for e in range(1, d):
            have = self.avail[base + e]
            if have < cap:
                return False
        return cap == 2

    def _dead(self) -> bool:
        """The dig test: some waste card can never be popped (see the module docstring).

        Waste cards leave top first, and a card pushed before a waste card leaves must leave
        before it, so the number of further pushes made before each waste card leaves grows
        from the top of the waste down: one pointer into the stock serves the whole pass,
        moved on only as far as the closure needs to pay for the next card down."""
        avail = self.avail[:]
        fch = self.fch[:]
        f = self.f
        need = self.need
        slot = self.slot
        q, n = self.pushed, len(self.seq)
        stack = self.stack
        for j in range(len(stack) - 1, -1, -1):
            f += _shift(avail, fch, slot[stack[j]], 1)
            need += 1
            while f < need:
                if q == n:
                    return True
                f += _shift(avail, fch, slot[q], 1)
                q += 1
                need += 1
        return False

    # -- the search

    def run(self, budget: Budget, clock: Callable[[], float] = time.perf_counter) -> Outcome:
        """Search within ``budget``: depth-first restarts in the two child orders, pop first
        and push first, on node caps growing fourfold (``FIRST_CAP``, then ×4 each round),
        all sharing one table of lost states (a state is lost whatever order found it, so
        every restart's exhaustion is a proof). Measured on deals 1..1000 at 100k nodes, the
        30 undecided by pop-first alone were 21 quick wins for push-first)."""
        self._limit = budget.nodes
        self._deadline = None if budget.seconds is None else clock() + budget.seconds
        self._clock = clock
        if self.dig and self.stack and self._dead():
            self.nodes = 1
            return Outcome.LOST
        root = (self.avail[:], self.fch[:], self.f, self.need, self.stack[:], self.pushed)
        cap = FIRST_CAP
        while True:
            for push_first in (False, True):
                self.push_first = push_first
                self._cap = self.nodes + cap
                try:
                    return Outcome.WON if self._visit(0, False) else Outcome.LOST
                except _OutOfBudget:
                    if self._spent():
                        return Outcome.UNKNOWN
                avail, fch, self.f, self.need, stack, self.pushed = root
                self.avail, self.fch, self.stack = avail[:], fch[:], stack[:]
                self.events = []
            cap *= 4

    def _spent(self) -> bool:
        return (self._limit is not None and self.nodes >= self._limit) or (
            self._deadline is not None and self._clock() > self._deadline)

    def _count(self) -> None:
        self.nodes += 1
        if self._limit is not None and self.nodes > self._limit:
            self.nodes = self._limit
            raise _OutOfBudget
        if self.nodes > self._cap:
            self.nodes -= 1
            raise _OutOfBudget
        if self._deadline is not None and self.nodes % CHECK_EVERY == 0 \
                and self._clock() > self._deadline:
            raise _OutOfBudget

    def _visit(self, popped: int, after_push: bool) -> bool:
        self._count()
        stack = self.stack
        if not stack and self.pushed == len(self.seq):
            return True
        key = popped << 7 | self.pushed  # one int: at most 88 cards pushed
        if key in self.lost:
            return False
        if after_push and self.dig and self._dead():
            self.lost.add(key)
            return False
        if stack and self.safe and self._safe(stack[-1]):
            won = self._pop(popped)  # the only child worth trying
        elif self.push_first:
            won = self._push(popped) or self._pop(popped)
        else:
            won = self._pop(popped) or self._push(popped)
        if not won:
            self.lost.add(key)
        return won

    def _pop(self, popped: int) -> bool:
        """The child that pops the waste top, if the closure pays for it: won or not."""
        stack = self.stack
        if not stack:
            return False
        top = stack[-1]
        self._add(top, 1)
        won = False
        if self.f >= self.need + 1:
            self.need += 1
            stack.pop()
            won = self._visit(popped | (1 << top), False)
            stack.append(top)
            self.need -= 1
            if won:
                self.events.append(False)
        self._add(top, -1)
        return won

    def _push(self, popped: int) -> bool:
        """The child that draws the next stock card: won or not."""
        if self.pushed == len(self.seq):
            return False
        self.stack.append(self.pushed)
        self.pushed += 1
        won = self._visit(popped, True)
        self.pushed -= 1
        self.stack.pop()
        if won:
            self.events.append(True)
        return won


def line(game: Game, events: list[bool]) -> list[Triple]:
    """Engine moves for a won pop order (``events`` in order: True push, False pop), made on a
    copy of ``game``: a push is a draw; a pop moves the waste top into a space if there is one
    (manual spaces), else plays the first card that fits a foundation from the tableau or the
    waste, and with manual spaces moves the waste top into the space a tableau card left
    (automatic spaces do that themselves); after the last pop the tableau goes home."""
    work = game.copy()
    manual = _manual(game)
    foundations, tableau = set(game._F), set(game._T)
    sources = {*game._T, game._W}
    draw = (game._S, game._W, 1)
    out: list[Triple] = []

    def play(move: Triple) -> None:
        _push(work, move)
        out.append(move)

    for push in events:
        if push:
            play(draw)
            continue
        space = next((t for t in game._T if not work.pos.piles[t]), None) if manual else None
        if space is None:
            move = next(t for t in work.legal_triples()
                        if t[0] in sources and t[1] in foundations)
            play(move)
            if not manual or move[0] not in tableau:
                continue
            space = move[0]
        play((game._W, space, 1))
    while work.cards_home < work.total_cards:
        play(next(t for t in work.legal_triples() if t[1] in foundations))
    return out


def _push(game: Game, triple: Triple) -> None:
    ids = game.layout.ids
    game.push(Move(ids[triple[0]], ids[triple[1]], triple[2]))


def search(game: Game, budget: Budget) -> tuple[Outcome, list[Triple], int] | None:
    """Decide ``game``'s current position: (outcome, engine triples of a won line, nodes);
    ``None`` when the position is not one of Sixes and Sevens (:func:`handles`). A node budget
    gives the same answer and line on every machine; ``lost`` is a proof (exhaustive)."""
    if not handles(game):
        return None
    searcher = PopSearch(game)
    outcome = searcher.run(budget)
    if outcome is not Outcome.WON:
        return outcome, [], searcher.nodes
    return outcome, line(game, searcher.events[::-1]), searcher.nodes
