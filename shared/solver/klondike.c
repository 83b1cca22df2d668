/* The compiled search core for Klondike (the Unlimited variant: one deck, draw 1 or 3,
 * unlimited redeals, foundation take-back on or off).
 *
 * It is the Python search of shared/solver (moves.py, stock.py, safe_moves.py, canonical.py)
 * redone on a compact state, with the same pruning, each piece proved not to lose a win in
 * docs/solver.md: safe foundation moves, stock macro-moves (draw to a card, play it),
 * delayed moves (a move uncovering a built-on card, a take-back: only paired with a use), held
 * waste cards (draw 1), symmetric targets, and the canonical key (pile order, the free cycle of
 * the stock). The transposition table stores the exact canonical key (32 bytes), never just a
 * hash, so an exhausted search is a proof; with draw 3 it also skips a position another with a
 * wider free stock cycle dominates (waste dominance, visit()). Depth-first, in a fixed move order: a node budget
 * gives the same answer, node count and line everywhere. At the end of the file, two other
 * walks of the same graph: best-first (its exhaustion a proof too) and a beam (a heuristic:
 * won or nothing), both deterministic at a node budget.
 *
 * Installing solrace compiles this file (setup.py, with the module entry of coremodule.c) and
 * Python (shared/solver/fastcore.py) calls it through ctypes; the line it returns is replayed
 * through Game.push before it is reported won. No Python headers: plain C99.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NT 7
#define MAXP 32
#define PW 7      /* internal code of the waste */
#define PF 8      /* internal code of suit s's foundation: PF + s */
#define NOJUMP 255
/* the core's own prunings (cfg[16]); with none it searches the Python search's graph */
#define OWN_DEAD_START 1  /* the blocking test on the position the search starts from */
#define OWN_DEAD_NODES 2  /* ... and on every new node */
#define OWN_STOCK_HOME 4  /* rule S: draw 1, take-back: a stock card home over a good foundation */
#define OWN_STOCK_ORDER 8 /* draw 3: ... knowing which stock cards reach the top (at the start) */
#define OWN_DEAD_PAST 16  /* the blocking test looked one move past (a card stuck on its parent) */
#define OWN_DEAD_PAST_NODES 32  /* ... on every node too (about half the node rate: off by default) */
#define OWN_WASTE_DOM 64  /* draw 3: skip a position when one with a wider waste cycle was seen */

typedef struct { uint8_t jk, s, d, n; } Step;          /* jk: waste length to jump to first */
typedef struct { Step st[2]; uint8_t ns; int16_t score; } Edge;
typedef struct { uint8_t type, a, b, n, turned, card, oldk, fp; } Undo;
typedef struct { uint64_t w[4]; } Key;

enum { U_TT, U_TF, U_WT, U_WF, U_FT, U_JUMP };

typedef struct {
    /* rules and layout */
    int draw, takeback;
    int greedy;                 /* the streamliner: every foundation move is made at once */
    int own;                    /* the core's own prunings (OWN_ flags), beyond the Python graph */
    int shorten;                /* shorten a won line before returning it */
    int dom;                    /* visit(): waste dominance (OWN_WASTE_DOM, draw 3, not the beam) */
    uint64_t rseed, rcount;     /* restarts: a pseudo-random 0..jitter-1 added to move scores */
    int jitter;
    int fidx[4], tidx[NT], S, W;
    /* state */
    uint8_t t[NT][MAXP], len[NT], down[NT];
    uint8_t orig[NT];           /* a pile's own index: its face-down cards never move */
    uint8_t h[4];               /* foundation height per suit */
    int8_t fp[4];               /* engine foundation holding each suit, -1 */
    uint8_t seq[64];            /* waste bottom-to-top, then stock top-to-bottom */
    uint8_t slen, k;            /* cards in seq, waste length */
    uint32_t code[NT];          /* each pile's part of the key, valid unless dirty */
    unsigned dirty;             /* piles whose code must be recomputed */
    /* undo log and the line */
    Undo *undo; size_t nundo, capundo;
    int32_t *mv; size_t nmv, capmv;  /* engine triples, 3 ints each */
    /* transposition table */
    Key *tab; size_t tabsize, tabused;
    /* edge pool and frames */
    Edge *pool; size_t npool, cappool;
    int oom;
} Ctx;

static uint8_t RK[64], SU[64], RD[64];  /* rank 1..13, suit 0..3, red: by card */
static inline int RANK(int c) { return RK[c]; }
static inline int SUIT(int c) { return SU[c]; }
static inline int RED(int c) { return RD[c]; }

static void *grow(void *p, size_t *cap, size_t need, size_t size, int *oom) {
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    void *q = realloc(p, n * size);
    if (!q) { *oom = 1; return p; }
    *cap = n;
    return q;
}

static void push_undo(Ctx *c, Undo u) {
    c->undo = grow(c->undo, &c->capundo, c->nundo + 1, sizeof(Undo), &c->oom);
    if (c->oom) return;
    c->undo[c->nundo++] = u;
}

static void push_mv(Ctx *c, int s, int d, int n) {
    c->mv = grow(c->mv, &c->capmv, c->nmv + 3, sizeof(int32_t), &c->oom);
    if (c->oom) return;
    c->mv[c->nmv++] = s; c->mv[c->nmv++] = d; c->mv[c->nmv++] = n;
}

/* ------------------------------------------------------------------ applying */

static int first_empty_found(Ctx *c) {
    int best = -1;
    for (int i = 0; i < 4; i++) {
        int f = c->fidx[i], used = 0;
        for (int s = 0; s < 4; s++) if (c->fp[s] == f) used = 1;
        if (!used && (best < 0 || f < best)) best = f;
    }
    return best;
}

static void turn_up(Ctx *c, int s, Undo *u) {
    if (c->down[s] && c->len[s] == c->down[s]) { c->down[s]--; u->turned = 1; }
}

/* Draws and redeals until the waste holds jk cards (the walk guarantees it is reachable). */
static void jump(Ctx *c, int jk) {
    if (jk == NOJUMP || jk == c->k) return;
    Undo u = {U_JUMP, 0, 0, 0, 0, 0, c->k, 0};
    int k = c->k, guard = 0;
    while (k != jk && guard++ < 200) {
        if (k == c->slen) { push_mv(c, c->W, c->S, 1); k = 0; }
        else { push_mv(c, c->S, c->W, 1); k = k + c->draw > c->slen ? c->slen : k + c->draw; }
    }
    c->k = (uint8_t)k;
    push_undo(c, u);
}

static void to_found(Ctx *c, int card, Undo *u) {
    int s = SUIT(card);
    u->fp = (uint8_t)(c->fp[s] + 1);
    if (c->h[s] == 0) c->fp[s] = (int8_t)first_empty_found(c);
    c->h[s]++;
}

static void do_step(Ctx *c, const Step *st) {
    jump(c, st->jk);
    int s = st->s, d = st->d, n = st->n;
    Undo u = {0, (uint8_t)s, (uint8_t)d, (uint8_t)n, 0, 0, c->k, 0};
    c->dirty |= (s < NT ? 1u << s : 0) | (d < NT ? 1u << d : 0);
    if (s < NT && d < NT) {
        memcpy(&c->t[d][c->len[d]], &c->t[s][c->len[s] - n], n);
        c->len[d] += n; c->len[s] -= n;
        u.type = U_TT; turn_up(c, s, &u);
        push_mv(c, c->tidx[s], c->tidx[d], n);
    } else if (s < NT) {                   /* tableau to foundation */
        int card = c->t[s][--c->len[s]];
        u.type = U_TF; u.card = (uint8_t)card;
        to_found(c, card, &u);
        turn_up(c, s, &u);
        push_mv(c, c->tidx[s], c->fp[SUIT(card)], 1);
    } else if (s == PW) {
        int card = c->seq[c->k - 1];
        memmove(&c->seq[c->k - 1], &c->seq[c->k], c->slen - c->k);
        c->slen--; c->k--;
        u.card = (uint8_t)card;
        if (d < NT) { c->t[d][c->len[d]++] = (uint8_t)card; u.type = U_WT;
                      push_mv(c, c->W, c->tidx[d], 1); }
        else { u.type = U_WF; to_found(c, card, &u); push_mv(c, c->W, c->fp[SUIT(card)], 1); }
    } else {                                /* take-back: foundation to tableau */
        int su = s - PF, card = su * 13 + c->h[su] - 1, f = c->fp[su];
        u.type = U_FT; u.card = (uint8_t)card; u.fp = (uint8_t)(f + 1);
        c->h[su]--;
        if (c->h[su] == 0) c->fp[su] = -1;
        c->t[d][c->len[d]++] = (uint8_t)card;
        push_mv(c, f, c->tidx[d], 1);
    }
    push_undo(c, u);
}

static void undo_to(Ctx *c, size_t mark_undo, size_t mark_mv) {
    while (c->nundo > mark_undo) {
        Undo u = c->undo[--c->nundo];
        if (u.type != U_JUMP)
            c->dirty |= (u.a < NT ? 1u << u.a : 0) | (u.b < NT ? 1u << u.b : 0);
        switch (u.type) {
        case U_JUMP: c->k = u.oldk; break;
        case U_TT:
            if (u.turned) c->down[u.a]++;
            c->len[u.b] -= u.n;
            memcpy(&c->t[u.a][c->len[u.a]], &c->t[u.b][c->len[u.b]], u.n);
            c->len[u.a] += u.n;
            break;
        case U_TF:
            if (u.turned) c->down[u.a]++;
            c->h[SUIT(u.card)]--; c->fp[SUIT(u.card)] = (int8_t)(u.fp - 1);
            c->t[u.a][c->len[u.a]++] = u.card;
            break;
        case U_WT: case U_WF:
            if (u.type == U_WT) c->len[u.b]--;
            else { c->h[SUIT(u.card)]--; c->fp[SUIT(u.card)] = (int8_t)(u.fp - 1); }
            memmove(&c->seq[u.oldk], &c->seq[u.oldk - 1], c->slen - (u.oldk - 1));
            c->seq[u.oldk - 1] = u.card; c->slen++; c->k = u.oldk;
            break;
        case U_FT:
            c->len[u.b]--;
            c->h[SUIT(u.card)]++; c->fp[SUIT(u.card)] = (int8_t)(u.fp - 1);
            break;
        }
    }
    c->nmv = mark_mv;
}

/* ------------------------------------------------------------------ rules */

static inline int fits_found(const Ctx *c, int card) { return c->h[SUIT(card)] == RANK(card) - 1; }

static inline int fits_on(int card, int top) {
    return RANK(top) == RANK(card) + 1 && RED(top) != RED(card);
}

static inline int top(const Ctx *c, int p) { return c->t[p][c->len[p] - 1]; }

static int run_len(const Ctx *c, int p) {
    int up = c->len[p] - c->down[p], n = 1;
    while (n < up && fits_on(c->t[p][c->len[p] - n], c->t[p][c->len[p] - n - 1])) n++;
    return c->len[p] ? n : 0;
}

static int first_empty(const Ctx *c) {
    for (int i = 0; i < NT; i++) if (!c->len[i]) return i;
    return -1;
}

/* Safe moves (safe_moves.py, one deck): rule A with alternate colours, rule D with
 * take-back; tableau tops, and the waste top with draw 1. Then the core's own rule S. */
static int find_safe(const Ctx *c, Step *out) {
    const int *h = (const int[4]){c->h[0], c->h[1], c->h[2], c->h[3]};
    for (int src = 0; src <= NT; src++) {
        int card;
        if (src < NT) { if (!c->len[src]) continue; card = top(c, src); }
        else { if ((c->draw != 1 && !c->greedy) || !c->k) continue; card = c->seq[c->k - 1]; }
        int r = RANK(card), s = SUIT(card);
        if (h[s] != r - 1) continue;
        if (r > 1 && !c->greedy) {
            if (s == 1 || s == 2) { if (h[0] < r - 1 || h[3] < r - 1) continue; }
            else if (h[1] < r - 1 || h[2] < r - 1) continue;
            if (c->takeback && h[3 - s] < r - 2) continue;
        }
        out->jk = NOJUMP; out->s = (uint8_t)(src < NT ? src : PW);
        out->d = (uint8_t)(PF + s); out->n = 1;
        return 1;
    }
    if ((c->own & OWN_STOCK_HOME) && c->draw == 1 && c->takeback && !c->greedy) {
        /* rule S (docs/solver.md): with draw 1 and take-back, a stock or waste card that fits
         * its foundation goes home when the card under it there is home for good (rule D's
         * set: the other colour home to r-2, the other suit of its colour to r-3): a line
         * that plays it from the stock takes it back from the foundation instead */
        for (int i = 0; i < c->slen; i++) {
            int card = c->seq[i], r = RANK(card), s = SUIT(card);
            if (h[s] != r - 1) continue;
            int o1 = s == 1 || s == 2 ? 0 : 1;
            if (r > 2 && (h[o1] < r - 2 || h[3 - o1] < r - 2 || h[3 - s] < r - 3)) continue;
            out->jk = (uint8_t)(i + 1 == c->k ? NOJUMP : i + 1); out->s = PW;
            out->d = (uint8_t)(PF + s); out->n = 1;
            return 1;
        }
    }
    return 0;
}

static void close_safe(Ctx *c) {
    Step st;
    while (find_safe(c, &st) && !c->oom) do_step(c, &st);
}

static int won(const Ctx *c) { return c->h[0] + c->h[1] + c->h[2] + c->h[3] == 52; }

/* ------------------------------------------------------------------ dead ends */

static uint64_t LOWER[64];  /* by card: the cards of its suit below it */

/* Cards home that stay home in some winning line whenever there is one: all of them without
 * take-back; with take-back rule D's "home for good" set (a suit up to rank r while the other
 * colour is home to r-1 and the other suit of its colour to r-2). */
static uint64_t home_for_good(const Ctx *c) {
    uint64_t m = 0;
    for (int s = 0; s < 4; s++) {
        int g = c->h[s];
        if (c->takeback) {
            int o1 = s == 1 || s == 2 ? 0 : 1, o2 = 3 - o1, same = 3 - s;
            while (g > 0 && (c->h[o1] < g - 1 || c->h[o2] < g - 1 || c->h[same] < g - 2)) g--;
        }
        m |= ((1ull << g) - 1) << (13 * s);
    }
    return m;
}

static int walk(const Ctx *c, uint8_t *ks);

static uint64_t PARENTS[64];  /* by card: its two parents (rank + 1, the other colour) */

/* The cards that can be a pile top (T) and, with draw 3, the stock and waste cards that can
 * leave the waste (*R) while no card of B has moved, given cov (the cards under a card of B) and
 * emptyable (some pile holds no card of B): least fixpoints, from the Kings down for T. */
static uint64_t tops(const Ctx *c, uint64_t tab, uint64_t cov, uint64_t good, uint64_t home,
                     uint64_t B, int emptyable, const uint8_t *base, uint64_t *Rout) {
    uint64_t all = (1ull << 52) - 1, other = all & ~tab & ~good, seqm = 0, R = 0;
    for (int j = 0; j < c->slen; j++) seqm |= 1ull << c->seq[j];
    if (!base) seqm = 0;  /* draw 1: every stock card reaches the waste top */
    for (;;) {
        /* reach: seq cards that can become the waste top given R (docs/solver.md) */
        uint64_t reach = 0, before = 0;
        if (seqm) {
            int allafter = 1;
            for (int j = c->slen - 1; j >= 0; j--) {
                if (base[j] || allafter || (j + 1 < c->slen && (R >> c->seq[j + 1] & 1)))
                    reach |= 1ull << c->seq[j];
                allafter = allafter && (R >> c->seq[j] & 1);
            }
            for (int j = 0; j < c->slen; j++) {  /* a card removed before it shifts it */
                if (before) reach |= 1ull << c->seq[j];
                before |= R & 1ull << c->seq[j];
            }
        }
        uint64_t stuck = (B | cov | (seqm & ~R)) & ~home;
        uint64_t T = tab & ~cov;
        for (int x = 12; x >= 0; x--)
            for (int su = 0; su < 52; su += 13) {
                int y = su + x;
                if (!(other >> y & 1) || ((seqm >> y & 1) && !(reach >> y & 1))) continue;
                if (x == 12 ? emptyable : (PARENTS[y] & T) != 0) T |= 1ull << y;
            }
        uint64_t nR = R;
        for (uint64_t m = seqm & reach & ~R; m; m &= m - 1) {
            int y = __builtin_ctzll(m);
            if ((T >> y & 1) || !(LOWER[y] & stuck)) nR |= 1ull << y;
        }
        if (nR == R) { *Rout = seqm & ~R; return T; }
        R = nR;
    }
}

/* The blocking test (docs/solver.md, "Dead ends: the blocking test"): is there a set B of
 * tableau cards such that,
 * while no card of B has moved, every card of B has every way out closed? Home: a card of its
 * suit below it is in B or under a card of B, so not home. Onto a parent (rank + 1, the other
 * colour): neither parent can be a pile top (set T below). Into a space (a King): every pile
 * holds a card of B, so none is or becomes empty. And a face-up card is in B only with every
 * face-up card under it (it leaves with any of them). Then no card of B ever moves and the
 * position is lost. B is the largest such set: start from every tableau card and drop the
 * cards with a way out until none has (dropping cards only opens ways out). stock_order (draw
 * 3): a stock card no draws bring to the waste top while the cards before it stay is stuck. */
static int dead_end(const Ctx *c, int stock_order) {
    uint64_t tab = 0, home = 0, good = home_for_good(c);
    for (int s = 0; s < 4; s++) home |= ((1ull << c->h[s]) - 1) << (13 * s);
    uint64_t pre[NT][MAXP + 1];
    for (int p = 0; p < NT; p++) {
        pre[p][0] = 0;
        for (int i = 0; i < c->len[p]; i++) pre[p][i + 1] = pre[p][i] | 1ull << c->t[p][i];
        tab |= pre[p][c->len[p]];
    }
    /* draw 3: the waste lengths draws and redeals reach (the free cycle from the current one) */
    uint8_t basebuf[64] = {0}, *base = NULL;
    if (c->draw > 1 && stock_order) {
        uint8_t ks[64];
        int nk = walk(c, ks);
        for (int i = 0; i < nk; i++) basebuf[ks[i] - 1] = 1;
        base = basebuf;
    }
    uint64_t B = tab;
    for (;;) {
        if (!B) return 0;
        uint64_t cov = 0;
        int emptyable = 0;
        for (int p = 0; p < NT; p++) {
            int i = c->len[p] - 1;
            while (i >= 0 && !(B >> c->t[p][i] & 1)) i--;
            if (i > 0) cov |= pre[p][i];
            if (i < 0) emptyable = 1;
        }
        uint64_t never;  /* stock and waste cards that never leave */
        uint64_t T = tops(c, tab, cov, good, home, B, emptyable, base, &never);
        uint64_t stuck = (B | cov | never) & ~home, nb = B;
        for (uint64_t m = B; m; m &= m - 1) {
            int x = __builtin_ctzll(m), r = RANK(x);
            int out = !(LOWER[x] & stuck);
            if (!out) out = r == 13 ? emptyable : (PARENTS[x] & T) != 0;
            if (out) nb &= ~(1ull << x);
        }
        for (int p = 0; p < NT; p++)  /* a card leaves with any face-up card under it */
            for (int i = c->down[p]; i < c->len[p]; i++)
                if (!(nb >> c->t[p][i] & 1)) { nb &= ~(pre[p][c->len[p]] & ~pre[p][i]); break; }
        if (nb == B) return 1;
        B = nb;
    }
}

/* ------------------------------------------------------------------ dead ends: one move past */

/* The blocking test looked one move past (docs/solver.md, "Dead ends: one move past (Klondike core)"). The
 * test above drops a card of B as soon as it has a way out; but a card whose only way out is
 * one parent P may, once it sits on P, be stuck there for good: then it never goes home and
 * the position is lost just the same. The helpers below work on the position's own piles
 * (pre: each pile's cards up to a height, as a mask), and leave the code above untouched. */

/* The cards under a card of B (each pile below its highest card of B), and whether some pile
 * holds no card of B (a space can exist). */
static uint64_t covered_by(const Ctx *c, uint64_t pre[][MAXP + 1], uint64_t B, int *emptyable) {
    uint64_t cov = 0;
    *emptyable = 0;
    for (int p = 0; p < NT; p++) {
        int i = c->len[p] - 1;
        while (i >= 0 && !(B >> c->t[p][i] & 1)) i--;
        if (i > 0) cov |= pre[p][i];
        if (i < 0) *emptyable = 1;
    }
    return cov;
}

/* The cards that can be a pile top while the cards of B2 stay and the mover lies on P: as
 * tops() without the stock order (every stock card may reach the waste top, a relaxation),
 * and never P (the mover covers it). */
static uint64_t tops_past(uint64_t tab, uint64_t cov, uint64_t good, int emptyable, uint64_t P) {
    uint64_t all = (1ull << 52) - 1, other = all & ~tab & ~good & ~P, T = tab & ~cov & ~P;
    for (int x = 12; x >= 0; x--)
        for (int su = 0; su < 52; su += 13) {
            int y = su + x;
            if (!(other >> y & 1)) continue;
            if (x == 12 ? emptyable : (PARENTS[y] & T) != 0) T |= 1ull << y;
        }
    return T;
}

/* A face-up card stays only with every face-up card under it (it leaves with any of them). */
static uint64_t with_groups(const Ctx *c, uint64_t pre[][MAXP + 1], uint64_t nb) {
    for (int p = 0; p < NT; p++)
        for (int i = c->down[p]; i < c->len[p]; i++)
            if (!(nb >> c->t[p][i] & 1)) { nb &= ~(pre[p][c->len[p]] & ~pre[p][i]); break; }
    return nb;
}

/* The second phase: the mover m, a card of B, has just gone onto its one open parent P (mask),
 * the first move of any card of B; the cards of B above m went with it. Is m then on P for
 * good? Largest B2 inside B minus m and the cards above it whose cards all keep every way out
 * closed while m stays on P, and m's own ways off P (home, its other parent) closed too. */
static int stuck_past(const Ctx *c, uint64_t pre[][MAXP + 1], uint64_t B, int m, uint64_t P,
                      uint64_t tab, uint64_t good, uint64_t home) {
    uint64_t above = 0, mb = 1ull << m, Q = PARENTS[m] & ~P;
    for (int p = 0; p < NT; p++)
        if (pre[p][c->len[p]] & mb)
            for (int i = 0; i < c->len[p]; i++)
                if (c->t[p][i] == m) { above = pre[p][c->len[p]] & ~pre[p][i + 1]; break; }
    uint64_t B2 = B & ~mb & ~above;
    for (;;) {
        int emptyable;
        uint64_t cov = covered_by(c, pre, B2, &emptyable) | P;
        uint64_t T = tops_past(tab, cov, good, emptyable, P);
        uint64_t stuck = ((B2 | cov) & ~home) | mb | P, nb = B2;
        if (!(LOWER[m] & stuck) || (Q & T)) return 0;  /* m can leave P: home or Q */
        for (uint64_t w = B2; w; w &= w - 1) {
            int x = __builtin_ctzll(w);
            int out = !(LOWER[x] & stuck);
            if (!out) out = RANK(x) == 13 ? emptyable : (PARENTS[x] & T) != 0;
            if (out) nb &= ~(1ull << x);
        }
        nb = with_groups(c, pre, nb);
        if (nb == B2) return 1;
        B2 = nb;
    }
}

/* The first phase: the blocking test's fixpoint, except that a card whose home is closed and
 * whose only way out is one parent in T (a mover) stays in B. When B is stable and not empty,
 * the first move of a card of B is a mover onto its parent; the position is lost if every
 * mover is then stuck for good (stuck_past). A mover that is not is dropped, and the fixpoint
 * goes on. With no mover left this is the blocking test's own verdict. */
static int dead_past(const Ctx *c, int stock_order) {
    uint64_t tab = 0, home = 0, good = home_for_good(c);
    for (int s = 0; s < 4; s++) home |= ((1ull << c->h[s]) - 1) << (13 * s);
    uint64_t pre[NT][MAXP + 1];
    for (int p = 0; p < NT; p++) {
        pre[p][0] = 0;
        for (int i = 0; i < c->len[p]; i++) pre[p][i + 1] = pre[p][i] | 1ull << c->t[p][i];
        tab |= pre[p][c->len[p]];
    }
    uint8_t basebuf[64] = {0}, *base = NULL;
    if (c->draw > 1 && stock_order) {
        uint8_t ks[64];
        int nk = walk(c, ks);
        for (int i = 0; i < nk; i++) basebuf[ks[i] - 1] = 1;
        base = basebuf;
    }
    uint64_t B = tab, barred = 0;  /* barred: movers found not stuck on their parent */
    for (;;) {
        if (!B) return 0;
        int emptyable;
        uint64_t cov = covered_by(c, pre, B, &emptyable), never;
        uint64_t T = tops(c, tab, cov, good, home, B, emptyable, base, &never);
        uint64_t stuck = (B | cov | never) & ~home, nb = B, movers = 0;
        for (uint64_t w = B; w; w &= w - 1) {
            int x = __builtin_ctzll(w);
            int out = !(LOWER[x] & stuck);
            if (!out && RANK(x) == 13) out = emptyable;
            else if (!out) {
                uint64_t pt = PARENTS[x] & T;
                if (pt && ((pt & (pt - 1)) || (barred >> x & 1))) out = 1;
                else if (pt) movers |= 1ull << x;
            }
            if (out) nb &= ~(1ull << x);
        }
        nb = with_groups(c, pre, nb);
        if (nb != B) { B = nb; continue; }
        int fail = 0;
        for (uint64_t w = movers; w; w &= w - 1) {
            int x = __builtin_ctzll(w);
            if (!stuck_past(c, pre, B, x, PARENTS[x] & T, tab, good, home)) {
                barred |= 1ull << x;
                fail = 1;
            }
        }
        if (!fail) return 1;
    }
}

/* ------------------------------------------------------------------ the key */

static uint32_t pile_code(const Ctx *c, int p, int *bad) {
    int len = c->len[p];
    if (!len) return 0;
    int dn = c->down[p], up = len - dn;
    const uint8_t *q = &c->t[p][dn];
    uint32_t code = (uint32_t)dn << 25 | (uint32_t)(dn ? c->orig[p] : 0) << 22
                  | (uint32_t)up << 18 | (uint32_t)q[0] << 12;
    for (int i = 1; i < up; i++) {
        if (!fits_on(q[i], q[i - 1])) { *bad = 1; return 0; }
        /* the next card is one of two suits of the other colour: a bit says which */
        int s = SUIT(q[i]);
        code |= (uint32_t)(s == 2 || s == 3) << (i - 1);
    }
    return code;
}

static Key make_key(Ctx *c, int *bad) {
    uint32_t code[NT];
    for (int i = 0; i < NT; i++) {
        if (c->dirty >> i & 1) c->code[i] = pile_code(c, i, bad);
        code[i] = c->code[i];
    }
    c->dirty = 0;
    for (int i = 1; i < NT; i++) {  /* insertion sort: the piles' order does not matter */
        uint32_t x = code[i]; int j = i - 1;
        while (j >= 0 && code[j] > x) { code[j + 1] = code[j]; j--; }
        code[j + 1] = x;
    }
    int wc = 0;
    if (c->draw > 1) wc = (c->k % c->draw == 0 || c->k == c->slen) ? 63 : c->k;
    uint64_t tail = (uint64_t)c->h[0] | (uint64_t)c->h[1] << 4 | (uint64_t)c->h[2] << 8
                  | (uint64_t)c->h[3] << 12 | (uint64_t)wc << 16 | 1ull << 31;
    Key k;
    k.w[0] = code[0] | (uint64_t)code[1] << 32;
    k.w[1] = code[2] | (uint64_t)code[3] << 32;
    k.w[2] = code[4] | (uint64_t)code[5] << 32;
    k.w[3] = code[6] | tail << 32;
    return k;
}

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static inline uint64_t key_hash(const Key *k) {
    return mix(k->w[0] ^ mix(k->w[1] ^ mix(k->w[2] ^ mix(k->w[3]))));
}

static int tab_insert_raw(Key *tab, size_t size, const Key *k) {
    size_t i = key_hash(k) & (size - 1);
    while (tab[i].w[3]) {
        if (tab[i].w[3] == k->w[3] && tab[i].w[2] == k->w[2] && tab[i].w[1] == k->w[1]
            && tab[i].w[0] == k->w[0]) return 0;
        i = (i + 1) & (size - 1);
    }
    tab[i] = *k;
    return 1;
}

/* Waste dominance (docs/solver.md, "Waste dominance (draw 3, Klondike core)"). With draw 3 the key keeps the
 * waste length k when the stock's free cycle from it reaches positions the aligned cycle does not
 * (k not a multiple of 3 and not the whole stock); the cycle from k is k, k+3, ... and then,
 * after the redeal, every aligned position. So of two positions alike but for k, the one with a
 * smaller k of the same residue (or any unaligned one, against the aligned one) reaches every
 * waste card the other does, at the same macro-move edges to the same children: the other
 * needs no search. visit() keys a position without its waste length and keeps, in the key's
 * spare tail bits, whether the aligned one was seen and the least k seen of each residue. */
#define WC_SHIFT 48                       /* the waste length's place in key.w[3] (make_key) */
#define DOM_BITS (0x7fffull << WC_SHIFT)  /* the tail's bits 16..30: the waste length and spares */
#define DOM_ALIGNED (1ull << WC_SHIFT)
static inline int dom_min(uint64_t w, int r) {  /* least k seen of residue r, 0: none */
    return (int)(w >> (WC_SHIFT + 1 + 5 * (r - 1)) & 31);
}
static inline uint64_t dom_set_min(uint64_t w, int r, int k) {
    int at = WC_SHIFT + 1 + 5 * (r - 1);
    return (w & ~(31ull << at)) | (uint64_t)k << at;
}

/* An entry's slot: the hash of its identity (without the waste bits under the dominance). */
static inline uint64_t entry_hash(const Ctx *c, const Key *k) {
    if (!c->dom) return key_hash(k);
    Key n = *k;
    n.w[3] &= ~DOM_BITS;
    return key_hash(&n);
}

/* Room for one more entry (at most half full: short probes); 0 when out of memory. */
static int tab_room(Ctx *c) {
    if ((c->tabused + 1) * 2 <= c->tabsize) return 1;
    size_t ns = c->tabsize ? c->tabsize * 2 : (1u << 16);
    Key *nt = calloc(ns, sizeof(Key));
    if (!nt) { c->oom = 1; return 0; }
    for (size_t i = 0; i < c->tabsize; i++) {
        if (!c->tab[i].w[3]) continue;
        size_t j = entry_hash(c, &c->tab[i]) & (ns - 1);
        while (nt[j].w[3]) j = (j + 1) & (ns - 1);
        nt[j] = c->tab[i];
    }
    free(c->tab); c->tab = nt; c->tabsize = ns;
    return 1;
}

/* 1: new, 0: already there */
static int tab_insert(Ctx *c, const Key *k) {
    if (!tab_room(c)) return 0;
    int r = tab_insert_raw(c->tab, c->tabsize, k);
    c->tabused += r;
    return r;
}

/* 1: a position to search (new, and not dominated), 0: seen already or dominated. */
static int visit(Ctx *c, const Key *k) {
    if (!c->dom) return tab_insert(c, k);
    if (!tab_room(c)) return 0;
    int wc = (int)(k->w[3] >> WC_SHIFT & 63), r = wc == 63 ? 0 : wc % c->draw;
    Key n = *k;
    n.w[3] &= ~DOM_BITS;
    size_t i = key_hash(&n) & (c->tabsize - 1);
    while (c->tab[i].w[3]) {
        Key *e = &c->tab[i];
        if (e->w[0] == n.w[0] && e->w[1] == n.w[1] && e->w[2] == n.w[2]
            && (e->w[3] & ~DOM_BITS) == n.w[3]) {
            uint64_t w = e->w[3];
            if (!r) {  /* aligned: any position seen with this layout reaches as much */
                if ((w & DOM_ALIGNED) || dom_min(w, 1) || dom_min(w, 2)) return 0;
                e->w[3] = w | DOM_ALIGNED;
                return 1;
            }
            int m = dom_min(w, r);
            if (m && m <= wc) return 0;
            e->w[3] = dom_set_min(w, r, wc);
            return 1;
        }
        i = (i + 1) & (c->tabsize - 1);
    }
    n.w[3] = r ? dom_set_min(n.w[3], r, wc) : n.w[3] | DOM_ALIGNED;
    c->tab[i] = n;
    c->tabused++;
    return 1;
}

/* ------------------------------------------------------------------ edges */

typedef struct { Edge *e; int n, cap; } EList;

static void add(Ctx *c, EList *L, const Step *a, const Step *b, int score) {
    if (L->n == L->cap) {
        int nc = L->cap ? L->cap * 2 : 64;
        Edge *ne = realloc(L->e, nc * sizeof(Edge));
        if (!ne) { c->oom = 1; return; }
        L->e = ne; L->cap = nc;
    }
    Edge *e = &L->e[L->n++];
    e->st[0] = *a; e->ns = 1; e->score = (int16_t)score;
    if (b) { e->st[1] = *b; e->ns = 2; }
}

static inline Step S4(int jk, int s, int d, int n) {
    Step st = {(uint8_t)jk, (uint8_t)s, (uint8_t)d, (uint8_t)n};
    return st;
}

/* The waste lengths reachable by draws and redeals from the current one (stock.py's walk). */
static int walk(const Ctx *c, uint8_t *ks) {
    int n = 0, k = c->k, total = c->slen;
    uint8_t reached[65] = {0};
    while (total && !reached[k]) {
        reached[k] = 1;
        if (k) ks[n++] = (uint8_t)k;
        if (k == total) k = 0;
        else k = k + c->draw > total ? total : k + c->draw;
    }
    return n;
}

/* Plain edges that use a change (moves.py's _legal_uses with the edge filters): moves from
 * src (a tableau pile or a foundation, or -1) or onto tableau pile dst (never empty here). */
static void gen_uses(Ctx *c, EList *L, int src, int dst, const uint8_t *ks0, int nk0) {
    int fe = first_empty(c);
    Step a;
    if (src >= 0 && src < NT && c->len[src]) {
        int card = top(c, src);
        if (fits_found(c, card)) { a = S4(NOJUMP, src, PF + SUIT(card), 1); add(c, L, &a, 0, 0); }
        int rl = run_len(c, src);
        for (int n = 1; n <= rl; n++) {
            int head = c->t[src][c->len[src] - n];
            for (int d = 0; d < NT; d++) {
                if (d == src) continue;
                if (!c->len[d]) {
                    if (RANK(head) != 13 || d != fe || n == c->len[src]) continue;
                } else if (!fits_on(head, top(c, d))) continue;
                a = S4(NOJUMP, src, d, n); add(c, L, &a, 0, 0);
            }
        }
    }
    int dtop = top(c, dst);
    int want = RANK(dtop) - 1;
    for (int s = 0; s < NT; s++) {
        if (s == src || s == dst || !c->len[s]) continue;
        int n = want - RANK(top(c, s)) + 1;
        if (n < 1 || n > run_len(c, s)) continue;
        if (!fits_on(c->t[s][c->len[s] - n], dtop)) continue;
        a = S4(NOJUMP, s, dst, n); add(c, L, &a, 0, 0);
    }
    if (c->takeback) {
        for (int su = 0; su < 4; su++) {
            if (!c->h[su]) continue;
            int card = su * 13 + c->h[su] - 1;
            if (src == PF + su) {
                for (int d = 0; d < NT; d++) {
                    if (!c->len[d]) { if (RANK(card) != 13 || d != fe) continue; }
                    else if (!fits_on(card, top(c, d))) continue;
                    a = S4(NOJUMP, PF + su, d, 1); add(c, L, &a, 0, 0);
                }
            } else if (fits_on(card, dtop)) {
                a = S4(NOJUMP, PF + su, dst, 1); add(c, L, &a, 0, 0);
            }
        }
    }
    uint8_t own[64];
    const uint8_t *ks = ks0;
    int nk = nk0;
    if (!ks) { nk = walk(c, own); ks = own; }  /* else the node's walk: the stock is as it was */
    for (int i = 0; i < nk; i++) {
        int card = c->seq[ks[i] - 1];
        if (fits_on(card, dtop)) {
            a = S4(ks[i] == c->k ? NOJUMP : ks[i], PW, dst, 1); add(c, L, &a, 0, 0);
        }
    }
}

/* Pairs: `first` and then each plain edge using what it changed. */
static void pairs(Ctx *c, EList *L, EList *tmp, const Step *first, int src, int dst, int score,
                  const uint8_t *ks, int nk) {
    size_t mu = c->nundo, mm = c->nmv;
    do_step(c, first);
    tmp->n = 0;
    gen_uses(c, tmp, src, dst, first->s == PW ? NULL : ks, nk);
    undo_to(c, mu, mm);
    for (int i = 0; i < tmp->n; i++) {
        const Step *b = &tmp->e[i].st[0];
        int sc = score;
        if (b->d >= PF) sc += 30;
        else if (b->s < NT && c->len[b->s] - b->n == c->down[b->s] && c->down[b->s]) sc += 40;
        add(c, L, first, b, sc);
    }
}

/* Every edge out of the current position (moves.py's edges, stock.py's macro-moves), with a
 * move-order score (higher first). */
static void gen_all(Ctx *c, EList *L, EList *tmp) {
    int fe = first_empty(c);
    Step a;
    uint8_t ks[64];
    int nk = walk(c, ks);
    for (int s = 0; s < NT; s++) {
        if (!c->len[s]) continue;
        int card = top(c, s);
        if (fits_found(c, card)) {
            int sc = 60 + (c->len[s] - 1 == c->down[s] && c->down[s] ? 40 : 0);
            a = S4(NOJUMP, s, PF + SUIT(card), 1); add(c, L, &a, 0, sc);
        }
    }
    for (int s = 0; s < NT; s++) {
        if (!c->len[s]) continue;
        int rl = run_len(c, s);
        for (int n = 1; n <= rl; n++) {
            int head = c->t[s][c->len[s] - n];
            for (int d = 0; d < NT; d++) {
                if (d == s) continue;
                if (!c->len[d]) {
                    if (RANK(head) != 13 || d != fe || n == c->len[s]) continue;
                } else if (!fits_on(head, top(c, d))) continue;
                a = S4(NOJUMP, s, d, n);
                if (c->len[s] - n > c->down[s]) {  /* uncovers a card it was built on */
                    pairs(c, L, tmp, &a, s, s, 10, ks, nk);
                } else {
                    int sc = c->down[s] ? 80 + c->down[s] : 50;
                    add(c, L, &a, 0, sc);
                }
            }
        }
    }
    if (c->takeback) {
        for (int su = 0; su < 4; su++) {
            if (!c->h[su]) continue;
            int card = su * 13 + c->h[su] - 1;
            for (int d = 0; d < NT; d++) {
                if (!c->len[d]) { if (RANK(card) != 13 || d != fe) continue; }
                else if (!fits_on(card, top(c, d))) continue;
                a = S4(NOJUMP, PF + su, d, 1);
                pairs(c, L, tmp, &a, PF + su, d, 0, ks, nk);
            }
        }
    }
    for (int i = 0; i < nk; i++) {
        int k = ks[i], card = c->seq[k - 1], jk = k == c->k ? NOJUMP : k;
        if (fits_found(c, card)) { a = S4(jk, PW, PF + SUIT(card), 1); add(c, L, &a, 0, 55); }
        for (int d = 0; d < NT; d++) {
            if (!c->len[d]) { if (RANK(card) != 13 || d != fe) continue; }
            else if (!fits_on(card, top(c, d))) continue;
            a = S4(jk, PW, d, 1);
            if (c->draw == 1) pairs(c, L, tmp, &a, -1, d, 20, ks, nk);  /* a held waste card */
            else add(c, L, &a, 0, 40);
        }
    }
}

/* Restarts: each edge's score plus a pseudo-random number, a function of the seed, the edge and
 * how many nodes were expanded before (deterministic for a node budget), for another order. */
static void shake(Ctx *c, EList *L) {
    uint64_t salt = mix(c->rseed * 0x9e3779b97f4a7c15ull + ++c->rcount);
    for (int i = 0; i < L->n; i++) {
        const Edge *e = &L->e[i];
        uint64_t x = (uint64_t)e->st[0].jk | (uint64_t)e->st[0].s << 8 | (uint64_t)e->st[0].d << 16
                   | (uint64_t)e->st[0].n << 24 | (uint64_t)e->ns << 32;
        if (e->ns == 2) x ^= ((uint64_t)e->st[1].jk | (uint64_t)e->st[1].s << 8
                              | (uint64_t)e->st[1].d << 16 | (uint64_t)e->st[1].n << 24) << 36;
        L->e[i].score = (int16_t)(e->score + (int)(mix(x ^ salt)
                                                   % (uint64_t)c->jitter));
    }
}

static void order(EList *L) {  /* stable: by score, highest first */
    for (int i = 1; i < L->n; i++) {
        Edge x = L->e[i]; int j = i - 1;
        while (j >= 0 && L->e[j].score < x.score) { L->e[j + 1] = L->e[j]; j--; }
        L->e[j + 1] = x;
    }
}

/* ------------------------------------------------------------------ shortening */

/* The exact position (not the canonical key: a shortcut must land on the very position the
 * line passes through, so that the rest of the line replays move for move): the piles in
 * order, the foundations with the engine pile of each suit, the waste and the stock. */
#define XB 96
typedef struct { uint64_t hash; uint8_t n, b[XB]; } Exact;

static void exact(const Ctx *c, Exact *x) {
    int n = 0;
    for (int i = 0; i < NT; i++) {
        x->b[n++] = c->len[i]; x->b[n++] = c->down[i];
        memcpy(&x->b[n], c->t[i], c->len[i]); n += c->len[i];
    }
    for (int s = 0; s < 4; s++) { x->b[n++] = c->h[s]; x->b[n++] = (uint8_t)c->fp[s]; }
    x->b[n++] = c->slen; x->b[n++] = c->k;
    memcpy(&x->b[n], c->seq, c->slen); n += c->slen;  /* at most 14 + 8 + 2 + 52 bytes */
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) h = (h ^ x->b[i]) * 0x100000001b3ull;
    x->hash = h; x->n = (uint8_t)n;
}

static void play(Ctx *c, const Edge *e) {
    for (int i = 0; i < e->ns; i++) do_step(c, &e->st[i]);
    close_safe(c);
}

/* Make the won line shorter (shorten.py's walk, on the core's own edges): from each position
 * of the line try every edge, and take the one that lands furthest along the line for fewer
 * engine moves than the line spends getting there (any won position counts as the end);
 * repeat until a pass gains nothing. `path` holds the n edges from the root (whose position
 * is at the undo marks mu0, mm0) to the win; on return the state is won again and c->mv holds
 * the new line. Exact comparisons: the spliced line replays move for move. Returns 0, or -2
 * when out of memory (the line is then the original). */
static int shorten_line(Ctx *c, Edge *path, int n, size_t mu0, size_t mm0, EList *L,
                        EList *tmp) {
    Exact *pos = malloc((size_t)(n + 1) * sizeof(Exact)), here;
    size_t *cost = malloc((size_t)(n + 1) * sizeof(size_t));
    Edge *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(Edge));
    int rc = 0;
    if (!pos || !cost || !out) { rc = -2; goto done; }
    for (int pass = 0; pass < 8; pass++) {
        undo_to(c, mu0, mm0);
        for (int i = 0; i <= n; i++) {
            exact(c, &pos[i]); cost[i] = c->nmv;
            if (i < n) play(c, &path[i]);
        }
        undo_to(c, mu0, mm0);
        int m = 0, gained = 0;
        for (int i = 0; i < n;) {
            L->n = 0; gen_all(c, L, tmp);
            if (c->oom) { rc = -2; goto done; }
            int bj = -1, bi = -1; long bgain = 0;
            for (int x = 0; x < L->n; x++) {
                size_t mu = c->nundo, mm = c->nmv;
                play(c, &L->e[x]);
                if (c->oom) { rc = -2; goto done; }
                int j = -1;
                if (won(c)) j = n;
                else {
                    exact(c, &here);
                    for (int y = n - 1; y > i; y--)
                        if (pos[y].hash == here.hash && pos[y].n == here.n
                            && !memcmp(pos[y].b, here.b, here.n)) { j = y; break; }
                }
                long gain = j < 0 ? 0 : (long)(cost[j] - cost[i]) - (long)(c->nmv - mm);
                undo_to(c, mu, mm);
                if (gain > bgain) { bgain = gain; bj = j; bi = x; }
            }
            if (bi >= 0) { out[m++] = L->e[bi]; play(c, &L->e[bi]); i = bj; gained = 1; }
            else { out[m++] = path[i]; play(c, &path[i]); i++; }
        }
        memcpy(path, out, (size_t)m * sizeof(Edge));
        n = m;
        if (!gained) break;
    }
done:
    if (rc) {  /* replay the line as it stands */
        c->oom = 0;
        undo_to(c, mu0, mm0);
        for (int i = 0; i < n; i++) play(c, &path[i]);
    }
    free(pos); free(cost); free(out);
    return rc;
}

/* ------------------------------------------------------------------ the search */

typedef struct { size_t first, n, i, mu, mm; } Frame;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* cfg: draw, takeback, f1..f4, t1..t7, S, W (engine pile indexes), greedy, own, shorten,
 * restart seed, jitter.
 * tab: 7 x (len, down, cards[len]) ; found: 4 x (len, cards) in engine order ; seq/k.
 * Returns 1 won, 0 lost, 2 unknown, -1 a position this core does not handle, -2 no memory.
 */
typedef struct {
    Ctx c;
    long long nodes;
    int32_t best[8];  /* best-first instead of depth-first (kl_best, at the end of the file) */
    int32_t beam[8];  /* a beam search instead (kl_beam, at the end of the file) */
} Solver;

static int best_first(Solver *sv, long long max_nodes, double deadline);
static int beam_search(Solver *sv, long long max_nodes, double deadline);

void *kl_new(void) { return calloc(1, sizeof(Solver)); }

void kl_free(void *p) {
    Solver *sv = p;
    if (!sv) return;
    free(sv->c.undo); free(sv->c.mv); free(sv->c.tab); free(sv->c.pool);
    free(sv);
}

long long kl_nodes(void *p) { return ((Solver *)p)->nodes; }
long long kl_moves_len(void *p) { return (long long)(((Solver *)p)->c.nmv / 3); }
void kl_moves(void *p, int32_t *out) {
    Solver *sv = p;
    memcpy(out, sv->c.mv, sv->c.nmv * sizeof(int32_t));
}

int kl_solve(void *p, const int32_t *cfg, const int32_t *tabl, const int32_t *found,
             const int32_t *seq, int slen, int k, long long max_nodes, double seconds) {
    Solver *sv = p;
    Ctx *c = &sv->c;
    for (int x = 0; x < 64; x++) {
        RK[x] = (uint8_t)(x % 13 + 1); SU[x] = (uint8_t)(x / 13 % 4);
        RD[x] = SU[x] == 1 || SU[x] == 2;
        LOWER[x] = x < 52 ? ((1ull << (x % 13)) - 1) << (13 * (x / 13)) : 0;
        PARENTS[x] = 0;
        if (x < 52 && x % 13 < 12) {
            int o1 = SU[x] == 1 || SU[x] == 2 ? 0 : 1;
            PARENTS[x] = 1ull << (13 * o1 + x % 13 + 1) | 1ull << (13 * (3 - o1) + x % 13 + 1);
        }
    }
    c->dirty = (1u << NT) - 1;
    c->draw = cfg[0]; c->takeback = cfg[1];
    for (int i = 0; i < 4; i++) c->fidx[i] = cfg[2 + i];
    for (int i = 0; i < NT; i++) c->tidx[i] = cfg[6 + i];
    c->S = cfg[13]; c->W = cfg[14]; c->greedy = cfg[15]; c->own = cfg[16];
    c->shorten = cfg[17]; c->rseed = (uint64_t)cfg[18]; c->jitter = cfg[19];
    int at = 0, bad = 0, count[52] = {0};
    for (int i = 0; i < NT; i++) {
        int len = tabl[at++], dn = tabl[at++];
        if (len > MAXP || dn > len || (len && dn == len) || dn > 7) return -1;
        c->len[i] = (uint8_t)len; c->down[i] = (uint8_t)dn; c->orig[i] = (uint8_t)i;
        for (int j = 0; j < len; j++) { int x = tabl[at++]; if (x < 0 || x > 51) return -1;
                                        c->t[i][j] = (uint8_t)x; count[x]++; }
    }
    for (int s = 0; s < 4; s++) { c->fp[s] = -1; c->h[s] = 0; }
    at = 0;
    for (int i = 0; i < 4; i++) {
        int len = found[at++];
        for (int j = 0; j < len; j++) {
            int x = found[at++];
            if (x < 0 || x > 51 || RANK(x) != j + 1 || SUIT(x) != SUIT(found[at - 1 - j]))
                return -1;
            count[x]++;
        }
        if (len) {
            int s = SUIT(found[at - len]);
            if (c->fp[s] >= 0) return -1;
            c->fp[s] = (int8_t)c->fidx[i]; c->h[s] = (uint8_t)len;
        }
    }
    if (slen < 0 || slen > 52 || k < 0 || k > slen) return -1;
    for (int i = 0; i < slen; i++) { if (seq[i] < 0 || seq[i] > 51) return -1;
                                     c->seq[i] = (uint8_t)seq[i]; count[seq[i]]++; }
    for (int i = 0; i < 52; i++) if (count[i] != 1) return -1;
    c->slen = (uint8_t)slen; c->k = (uint8_t)k;
    make_key(c, &bad);
    if (bad) return -1;  /* a face-up pile that is not a built run: not from play */
    c->dom = (c->own & OWN_WASTE_DOM) && c->draw == 3 && slen < 32 && !sv->beam[0];

    double deadline = seconds > 0 ? now() + seconds : 0;
    close_safe(c);
    if (won(c)) { sv->nodes = 1; return 1; }
    if ((c->own & OWN_DEAD_START) && (c->own & OWN_DEAD_PAST ? dead_past(c, c->own & OWN_STOCK_ORDER)
                                   : dead_end(c, c->own & OWN_STOCK_ORDER))) {
        sv->nodes = 1;
        return 0;
    }
    if (sv->best[0]) return best_first(sv, max_nodes, deadline);
    if (sv->beam[0]) return beam_search(sv, max_nodes, deadline);
    Key key = make_key(c, &bad);
    visit(c, &key);
    long long nodes = 1;
    size_t nframes = 0, capframes = 0;
    Frame *fr = NULL;
    EList L = {0}, tmp = {0};
    int result = 0;
#define NEWFRAME(MU, MM) do { \
        L.n = 0; gen_all(c, &L, &tmp); if (c->jitter > 0) shake(c, &L); order(&L); \
        c->pool = grow(c->pool, &c->cappool, c->npool + L.n, sizeof(Edge), &c->oom); \
        fr = grow(fr, &capframes, nframes + 1, sizeof(Frame), &c->oom); \
        if (c->oom) { result = -2; goto out; } \
        memcpy(&c->pool[c->npool], L.e, L.n * sizeof(Edge)); \
        fr[nframes++] = (Frame){c->npool, (size_t)L.n, 0, (MU), (MM)}; \
        c->npool += L.n; } while (0)
    NEWFRAME(c->nundo, c->nmv);
    while (nframes) {
        Frame *f = &fr[nframes - 1];
        if (f->i == f->n) {
            c->npool = f->first;
            undo_to(c, f->mu, f->mm);
            nframes--;
            continue;
        }
        Edge e = c->pool[f->first + f->i++];
        size_t mu = c->nundo, mm = c->nmv;
        for (int i = 0; i < e.ns; i++) do_step(c, &e.st[i]);
        close_safe(c);
        if (c->oom) { result = -2; goto out; }
        if (won(c)) {
            result = 1;
            if (c->shorten) {  /* the path: the edge taken out of every frame, then e */
                Edge *path = malloc((nframes + 1) * sizeof(Edge));
                if (path) {
                    for (size_t i = 0; i < nframes; i++) path[i] = c->pool[fr[i].first + fr[i].i - 1];
                    path[nframes - 1] = e;
                    shorten_line(c, path, (int)nframes, fr[0].mu, fr[0].mm, &L, &tmp);
                    free(path);
                }
            }
            goto out;
        }
        key = make_key(c, &bad);
        if (!visit(c, &key)) {
            if (c->oom) { result = -2; goto out; }
            undo_to(c, mu, mm);
            continue;
        }
        if ((max_nodes >= 0 && nodes >= max_nodes) ||
            (deadline > 0 && (nodes & 255) == 0 && now() > deadline)) {
            result = 2; goto out;
        }
        nodes++;
        if ((c->own & OWN_DEAD_NODES) && (c->own & OWN_DEAD_PAST_NODES ? dead_past(c, 0) : dead_end(c, 0))) {
            undo_to(c, mu, mm); continue;
        }
        NEWFRAME(mu, mm);
    }
    result = 0;
out:
    free(fr); free(L.e); free(tmp.e);
    sv->nodes = nodes;
    return result;
}


/* ------------------------------------------------------------------ best-first */

/* The best-first member (docs/solver.md, "The compiled cores"): the same graph as the
 * depth-first search above (gen_all, close_safe, the exact key and its table, the blocking test
 * at every node), expanded in the order of an estimate of the work left instead of depth first.
 * Some deals are won in a few hundred best-first nodes and not in millions of depth-first ones.
 * Each open node keeps its exact position (a Snap: 76 bytes) and the edge that reached it from
 * its parent, so the won line is the path of edges, replayed from the root and then shortened
 * like a depth-first line. Ties go to the node generated first (children in the depth-first
 * move order), so a node budget gives the same answer everywhere. It visits every node of the
 * graph when it runs to the end, so an exhausted full (not streamlined) run is a proof too. */

enum { B_ON, B_HOME, B_DOWN, B_EMPTY, B_DEPTH, B_STOCK };  /* kl_best's parameters */

typedef struct { uint8_t len[NT], down[NT], h[4]; int8_t fp[4]; uint8_t slen, k, cards[52]; } Snap;
typedef struct { Snap s; uint32_t parent, depth; Edge e; } BNode;
typedef struct { int32_t pri; uint32_t id; } HItem;

/* kl_best(handle, params): the next kl_solve on this handle runs best-first; params: on (1),
 * weights per card not home, per face-down card, per empty pile (a bonus), per edge from the
 * start, per stock and waste card. */
void kl_best(void *p, const int32_t *params) {
    Solver *sv = p;
    memcpy(sv->best, params, 6 * sizeof(int32_t));
}

static void snap_take(const Ctx *c, Snap *s) {
    int n = 0;
    for (int i = 0; i < NT; i++) {
        s->len[i] = c->len[i]; s->down[i] = c->down[i];
        memcpy(&s->cards[n], c->t[i], c->len[i]); n += c->len[i];
    }
    memcpy(s->h, c->h, 4); memcpy(s->fp, c->fp, 4);
    s->slen = c->slen; s->k = c->k;
    memcpy(&s->cards[n], c->seq, c->slen);
}

static void snap_put(Ctx *c, const Snap *s) {
    int n = 0;
    for (int i = 0; i < NT; i++) {
        c->len[i] = s->len[i]; c->down[i] = s->down[i];
        memcpy(c->t[i], &s->cards[n], s->len[i]); n += s->len[i];
    }
    memcpy(c->h, s->h, 4); memcpy(c->fp, s->fp, 4);
    c->slen = s->slen; c->k = s->k;
    memcpy(c->seq, &s->cards[n], s->slen);
    c->dirty = (1u << NT) - 1;
}

static int32_t estimate(const Ctx *c, const int32_t *w, uint32_t depth) {
    int home = c->h[0] + c->h[1] + c->h[2] + c->h[3], down = 0, empty = 0;
    for (int i = 0; i < NT; i++) { down += c->down[i]; empty += !c->len[i]; }
    return w[B_HOME] * (52 - home) + w[B_DOWN] * down - w[B_EMPTY] * empty
         + w[B_DEPTH] * (int32_t)depth + w[B_STOCK] * c->slen;
}

static inline int h_less(HItem a, HItem b) { return a.pri < b.pri || (a.pri == b.pri && a.id < b.id); }

static void h_push(HItem *h, size_t *n, HItem x) {
    size_t i = (*n)++;
    while (i && h_less(x, h[(i - 1) / 2])) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
    h[i] = x;
}

static HItem h_pop(HItem *h, size_t *n) {
    HItem top = h[0], x = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < *n && h_less(h[l], x)) m = l;
        if (l + 1 < *n && h_less(h[l + 1], m == i ? x : h[l])) m = l + 1;
        if (m == i) break;
        h[i] = h[m]; i = m;
    }
    if (*n) h[i] = x;
    return top;
}

/* Called by kl_solve on the starting position, its safe moves made, not won, not dead. */
static int best_first(Solver *sv, long long max_nodes, double deadline) {
    Ctx *c = &sv->c;
    const int32_t *w = sv->best;
    int bad = 0, result = 0;
    size_t mu0 = c->nundo, mm0 = c->nmv, nn = 0, capn = 0, nh = 0, caph = 0;
    BNode *N = NULL;
    HItem *H = NULL;
    EList L = {0}, tmp = {0};
    Key key = make_key(c, &bad);
    visit(c, &key);
    long long nodes = 1;
    N = grow(N, &capn, 1, sizeof(BNode), &c->oom);
    H = grow(H, &caph, 1, sizeof(HItem), &c->oom);
    if (c->oom) { result = -2; goto out; }
    snap_take(c, &N[0].s); N[0].parent = UINT32_MAX; N[0].depth = 0; nn = 1;
    h_push(H, &nh, (HItem){0, 0});
    while (nh) {
        uint32_t id = h_pop(H, &nh).id;
        snap_put(c, &N[id].s);
        c->nundo = mu0; c->nmv = mm0;
        L.n = 0; gen_all(c, &L, &tmp); order(&L);
        if (c->oom) { result = -2; goto out; }
        uint32_t depth = N[id].depth + 1;
        for (int x = 0; x < L.n; x++) {
            Edge e = L.e[x];
            play(c, &e);
            if (c->oom) { result = -2; goto out; }
            if (won(c)) {  /* the path of edges from the root, replayed, then shortened */
                Edge *path = malloc(depth * sizeof(Edge));
                if (!path) { result = -2; goto out; }
                path[depth - 1] = e;
                for (uint32_t j = id, i = depth - 1; j; j = N[j].parent) path[--i] = N[j].e;
                snap_put(c, &N[0].s);
                c->nundo = mu0; c->nmv = mm0;
                for (uint32_t i = 0; i < depth; i++) play(c, &path[i]);
                if (c->shorten && !c->oom)
                    shorten_line(c, path, (int)depth, mu0, mm0, &L, &tmp);
                free(path);
                result = c->oom ? -2 : 1;
                goto out;
            }
            key = make_key(c, &bad);
            if (!visit(c, &key)) {
                if (c->oom) { result = -2; goto out; }
                undo_to(c, mu0, mm0);
                continue;
            }
            if ((max_nodes >= 0 && nodes >= max_nodes) ||
                (deadline > 0 && (nodes & 255) == 0 && now() > deadline)) {
                result = 2; goto out;
            }
            nodes++;
            if ((c->own & OWN_DEAD_NODES) && dead_end(c, 0)) { undo_to(c, mu0, mm0); continue; }
            N = grow(N, &capn, nn + 1, sizeof(BNode), &c->oom);
            H = grow(H, &caph, nh + 1, sizeof(HItem), &c->oom);
            if (c->oom || nn >= UINT32_MAX) { result = -2; goto out; }
            BNode *b = &N[nn];
            snap_take(c, &b->s); b->parent = id; b->depth = depth; b->e = e;
            h_push(H, &nh, (HItem){estimate(c, w, depth), (uint32_t)nn});
            nn++;
            undo_to(c, mu0, mm0);
        }
    }
    result = 0;  /* every node of the graph visited */
out:
    free(N); free(H); free(L.e); free(tmp.e);
    sv->nodes = nodes;
    return result;
}


/* ------------------------------------------------------------------ beam */

/* The beam member (docs/solver.md, "The compiled cores"): the graph of the searches above
 * (gen_all, close_safe, the canonical key and its one table, the blocking test at every node),
 * walked in layers. A layer is a set of positions just after some *progress* (a card turned face
 * up, one more card home than before, or one card fewer in the stock and waste: moves a line
 * rarely takes back); from each, a depth-first walk of at most `local` positions over the moves that
 * make no progress collects every position reached by a move that does, and the best `width` of
 * those (by a score of cards not home, face-down cards, empty piles and stock cards; ties to the
 * one found first) are the next layer. Depth-first and best-first orders spend millions of nodes
 * under their first choices; the beam keeps many different lines alive at once and wins deals
 * neither reaches. It is a heuristic: positions it drops are never searched, so when it runs dry
 * it proves nothing (the caller reports unknown). A won line is the chain of edges from the
 * root, replayed and shortened as best-first's is; a node budget gives the same answer
 * everywhere (fixed move order, table, and ties). */

enum { M_ON, M_WIDTH, M_LOCAL, M_HOME, M_DOWN, M_EMPTY, M_STOCK, M_PER };  /* kl_beam's parameters */

typedef struct { uint32_t parent; Edge e; } BRec;                 /* how a node was reached */
typedef struct { Snap s; uint32_t rec, order; int32_t score; } BCand;
typedef struct { size_t first, n, i, mu, mm; uint32_t rec; } BFrame;

typedef struct {
    Solver *sv;
    long long max_nodes, nodes;
    double deadline;
    size_t mu0, mm0;
    BRec *R; size_t nr, capr;       /* every node the beam kept, by record number */
    BCand *C; size_t nc, capc;      /* the next layer's candidates */
    BFrame *F; size_t capf;
    EList L, tmp;
} Beam;

/* kl_beam(handle, params): the next kl_solve on this handle runs the beam; params (8): on (1),
 * width, local (positions per walk), weights per card not home, per face-down card, per empty
 * pile (a bonus), per stock and waste card, and the most candidates one walk may hand on (the
 * best of its own, 0: all; a few keep one position's variations from filling the layer). */
void kl_beam(void *p, const int32_t *params) {
    Solver *sv = p;
    memcpy(sv->beam, params, 8 * sizeof(int32_t));
}

static int homes(const Ctx *c) { return c->h[0] + c->h[1] + c->h[2] + c->h[3]; }

static int downs(const Ctx *c) {
    int d = 0;
    for (int i = 0; i < NT; i++) d += c->down[i];
    return d;
}

/* Lower is better: the beam keeps the lowest. */
static int32_t beam_score(const Ctx *c, const int32_t *w) {
    int empty = 0;
    for (int i = 0; i < NT; i++) empty += !c->len[i];
    return w[M_HOME] * (52 - homes(c)) + w[M_DOWN] * downs(c) - w[M_EMPTY] * empty
         + w[M_STOCK] * c->slen;
}

static int cand_less(const void *a, const void *b) {
    const BCand *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Record the node just reached by `e` from record `parent`: its record number, or -1. */
static long beam_record(Beam *b, uint32_t parent, const Edge *e) {
    Ctx *c = &b->sv->c;
    b->R = grow(b->R, &b->capr, b->nr + 1, sizeof(BRec), &c->oom);
    if (c->oom || b->nr >= UINT32_MAX) return -1;
    b->R[b->nr].parent = parent; b->R[b->nr].e = *e;
    return (long)b->nr++;
}

static int beam_candidate(Beam *b, uint32_t rec) {
    Ctx *c = &b->sv->c;
    b->C = grow(b->C, &b->capc, b->nc + 1, sizeof(BCand), &c->oom);
    if (c->oom) return -2;
    BCand *x = &b->C[b->nc];
    snap_take(c, &x->s); x->rec = rec; x->order = (uint32_t)b->nc++;
    x->score = beam_score(c, b->sv->beam);
    return 0;
}

/* The won line: the edges from the root to record `rec`, then `last`; replayed from the root
 * (whose position and undo marks `root` and mu0/mm0 hold) and shortened. */
static int beam_won(Beam *b, const Snap *root, uint32_t rec, const Edge *last) {
    Ctx *c = &b->sv->c;
    uint32_t depth = 1;
    for (uint32_t j = rec; j; j = b->R[j].parent) depth++;
    Edge *path = malloc(depth * sizeof(Edge));
    if (!path) return -2;
    path[depth - 1] = *last;
    for (uint32_t j = rec, i = depth - 1; j; j = b->R[j].parent) path[--i] = b->R[j].e;
    snap_put(c, root);
    c->nundo = b->mu0; c->nmv = b->mm0;
    for (uint32_t i = 0; i < depth; i++) play(c, &path[i]);
    if (c->shorten && !c->oom) shorten_line(c, path, (int)depth, b->mu0, b->mm0, &b->L, &b->tmp);
    free(path);
    return c->oom ? -2 : 1;
}

static int beam_push(Beam *b, size_t *nf, size_t mu, size_t mm, uint32_t rec) {
    Ctx *c = &b->sv->c;
    b->L.n = 0; gen_all(c, &b->L, &b->tmp); order(&b->L);
    c->pool = grow(c->pool, &c->cappool, c->npool + b->L.n, sizeof(Edge), &c->oom);
    b->F = grow(b->F, &b->capf, *nf + 1, sizeof(BFrame), &c->oom);
    if (c->oom) return -2;
    memcpy(&c->pool[c->npool], b->L.e, b->L.n * sizeof(Edge));
    b->F[(*nf)++] = (BFrame){c->npool, (size_t)b->L.n, 0, mu, mm, rec};
    c->npool += b->L.n;
    return 0;
}

/* One walk from `from`: depth-first over moves without progress, at most `local` positions
 * expanded; positions after progress become candidates. 0 done, 1 won, 2 budget, -2 memory. */
static int beam_walk(Beam *b, const BCand *from, const Snap *root) {
    Ctx *c = &b->sv->c;
    const int32_t *w = b->sv->beam;
    snap_put(c, &from->s);
    c->nundo = b->mu0; c->nmv = b->mm0; c->npool = 0;
    int home0 = homes(c), down0 = downs(c), slen0 = c->slen, bad = 0;
    long walked = 1;
    size_t nf = 0;
    if (beam_push(b, &nf, b->mu0, b->mm0, from->rec)) return -2;
    while (nf) {
        BFrame *f = &b->F[nf - 1];
        if (f->i == f->n) { c->npool = f->first; undo_to(c, f->mu, f->mm); nf--; continue; }
        Edge e = c->pool[f->first + f->i++];
        uint32_t parent = f->rec;
        size_t mu = c->nundo, mm = c->nmv;
        play(c, &e);
        if (c->oom) return -2;
        if (won(c)) return beam_won(b, root, parent, &e);
        Key key = make_key(c, &bad);
        if (!tab_insert(c, &key)) {
            if (c->oom) return -2;
            undo_to(c, mu, mm);
            continue;
        }
        if ((b->max_nodes >= 0 && b->nodes >= b->max_nodes) ||
            (b->deadline > 0 && (b->nodes & 255) == 0 && now() > b->deadline)) return 2;
        b->nodes++;
        if ((c->own & OWN_DEAD_NODES) && dead_end(c, 0)) { undo_to(c, mu, mm); continue; }
        long rec = beam_record(b, parent, &e);
        if (rec < 0) return -2;
        if (homes(c) > home0 || downs(c) < down0 || c->slen < slen0) {
            if (beam_candidate(b, (uint32_t)rec)) return -2;
            undo_to(c, mu, mm);
        } else if (walked < w[M_LOCAL]) {
            walked++;
            if (beam_push(b, &nf, mu, mm, (uint32_t)rec)) return -2;
        } else {
            undo_to(c, mu, mm);
        }
    }
    return 0;
}

/* Called by kl_solve on the starting position, its safe moves made, not won, not dead. */
static int beam_search(Solver *sv, long long max_nodes, double deadline) {
    Ctx *c = &sv->c;
    Beam b = {0};
    b.sv = sv; b.max_nodes = max_nodes; b.deadline = deadline; b.nodes = 1;
    b.mu0 = c->nundo; b.mm0 = c->nmv;
    int bad = 0, result = 2;
    size_t width = sv->beam[M_WIDTH] > 0 ? (size_t)sv->beam[M_WIDTH] : 1, ncur = 1, capcur = 0;
    BCand *cur = NULL;
    Snap root;
    snap_take(c, &root);
    Key key = make_key(c, &bad);
    tab_insert(c, &key);
    Edge none = {0};
    cur = grow(cur, &capcur, 1, sizeof(BCand), &c->oom);
    if (c->oom || beam_record(&b, UINT32_MAX, &none) < 0) { result = -2; goto out; }
    cur[0].s = root; cur[0].rec = 0; cur[0].order = 0; cur[0].score = 0;
    while (ncur) {
        b.nc = 0;
        for (size_t i = 0; i < ncur; i++) {
            size_t start = b.nc;
            int rc = beam_walk(&b, &cur[i], &root);
            if (rc) { result = rc; goto out; }
            size_t per = sv->beam[M_PER] > 0 ? (size_t)sv->beam[M_PER] : SIZE_MAX;
            if (b.nc - start > per) {  /* a few from each position: the layer stays diverse */
                qsort(b.C + start, b.nc - start, sizeof(BCand), cand_less);
                b.nc = start + per;
            }
        }
        qsort(b.C, b.nc, sizeof(BCand), cand_less);
        ncur = b.nc < width ? b.nc : width;
        cur = grow(cur, &capcur, ncur ? ncur : 1, sizeof(BCand), &c->oom);
        if (c->oom) { result = -2; goto out; }
        memcpy(cur, b.C, ncur * sizeof(BCand));
    }
    result = 2;  /* the beam ran dry: its dropped positions were never searched, so unknown */
out:
    if (result != 1) { c->nmv = b.mm0; c->nundo = b.mu0; }
    free(cur); free(b.R); free(b.C); free(b.F); free(b.L.e); free(b.tmp.e);
    sv->nodes = b.nodes;
    return result;
}
