"""Dead ends of the one-pass games: positions the search proves lost without searching them.

Why: in Sixes and Sevens a position late in the game is usually lost, but proving it by
exhaustion costs hundreds of thousands of nodes, because every order in which the remaining
cards can be drawn and played is a different position. The *pile-up test* below recognises
most of them at once. Its argument (``docs/solver.md``, "Dead ends in Sixes and Sevens"):

A card's *class* is its chain (suit and direction: down from the Six, 5 to A; up from the
Seven, 8 to K) and its *distance* from the Six or Seven (5 and 8 are 1). Take a card ``X`` on
the waste. While ``X`` is there, ``X`` and every card below it stay on the waste (only the top
leaves, nothing is ever put under it). Call a class *held* when no card of it can go home while
``X`` is on the waste: between the foundation it would go on (the higher of its chain's two
when it is farther than both; else the lower one, the higher having passed it) and its
distance lies a distance whose copies not home are all held or below ``X``. Foundations only
grow, so the first held card to go home would need such a copy home first: none goes home.
When ``X`` leaves the waste, every held card drawn by then has left the waste above ``X``
without going home, so it is on the tableau, which never holds more than 9 cards (8 besides
``X`` when ``X``'s own class is held by the cards below it, so that ``X`` can only leave to the
tableau too). More held cards than that on the tableau and above ``X`` now: ``X`` never
leaves, the game is lost.

The test holds for both ``empty_fill`` settings (it reads nothing but "nine piles of at most
one card; the waste is a stack"). The compiled core (``onepass.c``, ``pile_up``) runs the same
test at the same places, so the two searches still visit the same nodes.
"""

from __future__ import annotations

from collections.abc import Callable

from solrace.shared.engine import Game

TABLEAU_CAP = 9  # Sixes and Sevens: nine piles, never more than one card each


def _cls(card: int) -> int:
    """chain * 8 + distance; -1 for a Six or Seven (home from the start)."""
    suit, rank = divmod(card, 13)
    rank += 1
    if rank <= 5:
        return suit * 8 + 6 - rank
    if rank >= 8:
        return (4 + suit) * 8 + rank - 7
    return -1


CLS = tuple(_cls(c) for c in range(52))


def held_mask(full: int, lo: int, hi: int) -> int:
    """The held distances of a chain (bit ``q``), given the distances whose copies not home
    are all held or below ``X`` (``full``) and the chain's foundation distances ``lo <= hi``."""
    out = 0
    for q in range(lo + 1, 7):
        frm = hi if q > hi else lo  # the foundation a card at distance q must go on
        between = ((1 << q) - 1) & ~((2 << frm) - 1)  # distances frm+1 .. q-1
        if full & between:
            out |= 1 << q
            full |= 1 << q
    return out


def is_sixes(game: Game) -> bool:
    """Sixes and Sevens' layout: 16 prefilled same-suit foundations (Sixes down, Sevens up), 9
    one-card tableau piles, a one-pass draw-1 stock."""
    r = game.rules
    groups = [(g.count, g.start_rank, g.step, g.same_suit, g.prefilled) for g in r.foundations]
    return (r.decks == 2 and groups == [(8, 6, -1, True, True), (8, 7, 1, True, True)]
            and r.tableau.piles == TABLEAU_CAP and r.draw == 1 and r.redeals == 0
            and not game._R and not game._C and game._W >= 0)


def pile_up(game: Game) -> bool:
    """Sixes and Sevens: is the current position lost by the pile-up test?"""
    piles = game.pos.piles
    waste = piles[game._W]
    if not waste:
        return False
    lo, hi = [99] * 8, [-1] * 8
    for i, f in enumerate(game._F):
        p = piles[f]
        ch = (0 if i < 8 else 4) + p[0] // 13
        d = len(p) - 1
        if d > hi[ch]:
            lo[ch] = d if hi[ch] < 0 else hi[ch]
            hi[ch] = d
        else:
            lo[ch] = d
    rem = [0] * 64
    for ch in range(8):
        for p in range(1, (5 if ch < 4 else 6) + 1):
            rem[ch * 8 + p] = 2 - (lo[ch] >= p) - (hi[ch] >= p)
    tw = [0] * 64
    for c in waste:
        tw[CLS[c]] += 1
    if not any(tw[x] == rem[x] for x in set(map(CLS.__getitem__, waste))):
        return False  # no class has all its copies on the waste: nothing is ever held
    for t in game._T:
        for c in piles[t]:
            tw[CLS[c]] += 1
    base = [0] * 64
    full = [0] * 8
    held = [0] * 8
    count = 0
    for c in waste:  # X, bottom to top
        x = CLS[c]
        ch, p = x >> 3, x & 7
        park = (held[ch] >> p) & 1
        base[x] += 1
        if park:
            count -= 1
        if base[x] == rem[x] and not (full[ch] >> p) & 1:
            full[ch] |= 1 << p
            h = held_mask(full[ch], lo[ch], hi[ch])
            if h != held[ch]:
                held[ch] = h
                count = sum(tw[k * 8 + q] - base[k * 8 + q]
                            for k in range(8) for q in range(7) if (held[k] >> q) & 1)
        if count > TABLEAU_CAP or (park and count > TABLEAU_CAP - 1):
            return True
    return False


def dead_end_test(game: Game) -> Callable[[], bool] | None:
    """The dead-end test of ``game``'s rules, as a function of its current position, or
    ``None`` when it has none."""
    if is_sixes(game):
        return lambda: pile_up(game)
    return None
