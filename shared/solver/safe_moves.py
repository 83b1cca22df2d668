"""Foundation moves the solver makes without searching, because they can never hurt.

A move is *safe* when every winnable position stays winnable after it; the search then treats
the move as part of the edge that led to the position (no branch, no node). The arguments are in
``docs/solver.md``; in short, a card ``c`` of rank ``r`` may go home at once when

1. nothing can ever be built on ``c`` on the tableau: no building at all (``Build.NONE``), or
   every card that could be built on it (rank ``r-1`` of the other colour, or of the same suit)
   is home for good;
2. when several decks give ``c`` a twin, both foundations of its suit and direction have
   reached the card before ``c`` (all copies of that card are home), so it does not matter
   which copy of ``c`` goes home first;
3. taking ``c`` away changes nothing else: no space is refilled from the waste or stock by it
   (auto-fill variants only while nothing could refill), and with ``draw 3`` a waste card is
   never auto-played, because removing it shifts the groups of three on the next pass;
4. with foundation take-back (``foundation_to_tableau``) a card is home for good only inside a
   set of home cards that is closed under "may be built on" and under "lies below on a
   foundation": nothing outside such a set ever needs one of its cards back. For same-suit
   building that is every copy of the cards of ``c``'s suit below ``c`` (condition 2 again);
   for alternate colours, the other colour's foundations up to ``r-1`` and the other suit of
   ``c``'s colour up to ``r-2``.

Games with foundations regardless of suit that also let cards move between foundations
(Double Aces and Kings) get no safe moves: which foundation takes a card is a real choice there.
"""

from __future__ import annotations

from solrace.shared.cards import RANK_OF, SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build

Triple = tuple[int, int, int]


class SafeMoves:
    """Finds one safe move in the current position of ``game`` (``find``), or ``None``."""

    def __init__(self, game: Game, *, takeback: bool = True, greedy: bool = False) -> None:
        rules = game.rules
        # greedy: every tableau or waste top that fits a foundation goes home (the
        # auto-foundation streamliner of a ``gdfs`` member: a smaller game, whose wins are
        # wins and whose exhaustion proves nothing); Ace-up same-suit games only
        self.greedy = greedy
        self.game = game
        self.pos = game.pos
        self.F = game._F
        self.decks = rules.decks
        self.build = rules.tableau.build
        # takeback=False: the rules of a search that never takes a card back (a streamliner)
        self.takeback = takeback and rules.foundation_to_tableau
        self.auto = rules.tableau.auto_fill
        self.start = game.layout.f_start
        self.step = game.layout.f_step
        same_suit = all(g.same_suit for g in rules.foundations)
        ace_up = all(g.start_rank == 1 and g.step == 1 for g in rules.foundations)
        self.enabled = (
            same_suit
            and not rules.foundation_to_foundation
            and (not self.takeback or ace_up)
        )
        self.ace_up = ace_up and self.auto is AutoFill.NONE and self.build is not Build.NONE
        self.tableau = game._T
        self.others = game._C + game._R
        waste_ok = rules.draw == 1 and self.auto is AutoFill.NONE and game._W >= 0
        self.waste = (game._W,) if waste_ok else ()
        self.S, self.W = game._S, game._W
        self.sources = self.tableau + self.others + self.waste

    # ------------------------------------------------------------------ helpers

    def _accepting(self) -> dict[int, int]:
        """Card -> the first foundation that takes it now."""
        piles = self.pos.piles
        out: dict[int, int] = {}
        for f in self.F:
            p = piles[f]
            if p:
                top = p[-1]
                r = RANK_OF[top] + self.step[f]
                if 1 <= r <= 13 and RANK_OF[top] != (13 if self.step[f] == 1 else 1):
                    out.setdefault(top + self.step[f], f)
            else:
                for suit in range(4):
                    out.setdefault(suit * 13 + self.start[f] - 1, f)
        return out

    def home_copies(self, card: int) -> int:
        """How many copies of ``card`` are on the foundations (same-suit foundations only)."""
        piles = self.pos.piles
        r, s = RANK_OF[card], SUIT_OF[card]
        n = 0
        for f in self.F:
            p = piles[f]
            if p and SUIT_OF[p[0]] == s:
                top = RANK_OF[p[-1]]
                lo, hi = (self.start[f], top) if self.step[f] == 1 else (top, self.start[f])
                if lo <= r <= hi:
                    n += 1
        return n

    def refill_possible(self) -> bool:
        """Would emptying a tableau pile now pull a card into it?"""
        if self.auto is AutoFill.NONE or self.S < 0:
            return False
        piles = self.pos.piles
        if piles[self.S]:
            return True
        return self.auto is AutoFill.WASTE_THEN_STOCK and bool(piles[self.W])

    def is_safe(self, card: int, f: int) -> bool:
        """May ``card`` go home to foundation ``f`` (where it fits) without a search?"""
        r = RANK_OF[card]
        decks = self.decks
        if self.takeback and self.build is not Build.DOWN_SAME_SUIT:
            if self.build is Build.DOWN_ALTERNATE_COLOUR:
                # rule 4: the other colour home to r-1, the other suit of c's colour to r-2
                s = SUIT_OF[card]
                opp = (0, 3) if s in (1, 2) else (1, 2)
                same = 3 - s
                return (r == 1 or all(self.home_copies(o * 13 + r - 2) >= decks for o in opp)
                        ) and (r <= 2 or self.home_copies(same * 13 + r - 3) >= decks)
            piles = self.pos.piles
            return all(len(piles[g]) >= r - 1 for g in self.F)
        if decks > 1 and r != self.start[f] and self.home_copies(card - self.step[f]) < decks:
            return False  # condition 2: the card before it is not home in every copy
        if self.build is Build.NONE or r == 1:
            return True
        if self.build is Build.DOWN_SAME_SUIT:
            return self.home_copies(card - 1) >= decks
        # alternate colours: both cards of rank r-1 of the other colour
        s = SUIT_OF[card]
        others = (0, 3) if s in (1, 2) else (1, 2)
        return all(self.home_copies(o * 13 + r - 2) >= decks for o in others)

    # ------------------------------------------------------------------ search

    def find(self) -> Triple | None:
        if not self.enabled:
            return None
        if self.ace_up:
            return self._find_ace_up()
        return self._find_generic()

    def _find_generic(self) -> Triple | None:
        piles, down = self.pos.piles, self.pos.down
        accepting = None
        sources = self.others + self.waste
        if not self.refill_possible():
            sources = self.tableau + sources
        for s in sources:
            p = piles[s]
            if not p or len(p) <= down[s]:
                continue
            if accepting is None:
                accepting = self._accepting()
            c = p[-1]
            f = accepting.get(c)
            if f is not None and self.is_safe(c, f):
                return (s, f, 1)
        return None

    def _find_ace_up(self) -> Triple | None:
        """The same rules, fast, for same-suit foundations built up from the Ace (Unlimited,
        Seven by Five, Forty and Eight): a foundation is its suit and height."""
        if self.decks == 1:
            return self._find_one_deck()
        piles, down = self.pos.piles, self.pos.down
        decks = self.decks
        # a foundation of suit s and height h (Ace up, same suit) wants the card s*13 + h:
        # ``want`` maps that card to the first such foundation; full heights (the twin rule)
        # are only worked out for a card that fits, which most calls never meet
        want: dict[int, int] = {}
        empty = -1
        for f in self.F:
            p = piles[f]
            if p:
                want.setdefault(p[-1] + 1, f)
            elif empty < 0:
                empty = f
        build_alt = self.build is Build.DOWN_ALTERNATE_COLOUR
        full: list[int] | None = None
        for src in self.sources:
            p = piles[src]
            if not p or len(p) <= down[src]:
                continue
            c = p[-1]
            r = RANK_OF[c]
            if r == 1:
                if empty < 0:
                    continue
                return (src, empty, 1)
            f = want.get(c, -1)
            if f < 0:
                continue
            if full is None:
                full = self._full_heights()
            s = SUIT_OF[c]
            if self.greedy:
                return (src, f, 1)
            if decks > 1 and full[s] < r - 1:
                continue  # the twin rule: every copy of the card below is home
            # same suit building: the twin rule above already covers it
            if build_alt and (min(full[0], full[3]) if s in (1, 2)
                              else min(full[1], full[2])) < r - 1:
                continue
            return (src, f, 1)
        return None

    def _full_heights(self) -> list[int]:
        """Per suit, the rank up to which every copy is home (same-suit foundations)."""
        piles = self.pos.piles
        if self.decks == 2:  # the lower of each suit's two highest foundations (0 if < 2)
            top, second = [0, 0, 0, 0], [0, 0, 0, 0]
            for f in self.F:
                p = piles[f]
                if p:
                    s, n = SUIT_OF[p[0]], len(p)
                    if n > top[s]:
                        second[s], top[s] = top[s], n
                    elif n > second[s]:
                        second[s] = n
            return second
        heights: list[list[int]] = [[], [], [], []]
        for f in self.F:
            p = piles[f]
            if p:
                heights[SUIT_OF[p[0]]].append(len(p))
        return [_full_height(h, self.decks) for h in heights]

    def _find_one_deck(self) -> Triple | None:
        """One deck: a suit's foundation is its height; no twins."""
        piles, down = self.pos.piles, self.pos.down
        h = [0, 0, 0, 0]
        at = [-1, -1, -1, -1]
        empty = -1
        for f in self.F:
            p = piles[f]
            if p:
                s = SUIT_OF[p[0]]
                h[s] = len(p)
                at[s] = f
            elif empty < 0:
                empty = f
        takeback = self.takeback
        alt = self.build is Build.DOWN_ALTERNATE_COLOUR
        # the card each suit's foundation takes next (card = suit*13 + rank-1): a source top
        # fits exactly when it is one of these, the test "h[s] == r - 1" as one lookup
        want = {s * 13 + n for s, n in enumerate(h) if n < 13}
        for src in self.sources:
            p = piles[src]
            if not p or p[-1] not in want or len(p) <= down[src]:
                continue
            c = p[-1]
            r = RANK_OF[c]
            s = SUIT_OF[c]
            if r == 1:
                return (src, empty, 1)
            if alt:
                if s == 1 or s == 2:
                    if h[0] < r - 1 or h[3] < r - 1:
                        continue
                elif h[1] < r - 1 or h[2] < r - 1:
                    continue
                if takeback and h[3 - s] < r - 2:
                    continue  # rule 4: the other suit of c's colour home to r-2
            # same suit building, one deck: the card below c is home, since c fits
            return (src, at[s], 1)
        return None


def _full_height(heights: list[int], decks: int) -> int:
    """The rank up to which every copy of a suit is home, given its foundations' heights."""
    if len(heights) < decks:
        return 0
    return min(sorted(heights, reverse=True)[:decks])
