/* The compiled search core for Forty and Eight (two decks; 8 foundations by suit from the
 * Ace; 8 tableau piles building down by suit, one card at a time, any card into a space;
 * draw 1, one redeal; with or without foundation take-back).
 *
 * It is the Python search of shared/solver (moves.py, stock.py, safe_moves.py, canonical.py;
 * search.py's Searcher.run_dfs) on this game, redone on a compact state: the same edges in the
 * same order, the same safe moves, the same canonical classes. Two members of the Python
 * portfolio: the pruned depth-first search (mode 0: the engine's moves filtered by the
 * symmetric-target rules, stock macro-moves "draw (and redeal) until card X tops the waste,
 * then play X", delayed pairs for a move off a card's parent and for a take-back, safe moves
 * after every edge), the same with greedy home moves (mode 2, the `gdfs` streamliner: every
 * tableau or waste top that fits a foundation goes there at once), the plain depth-first
 * search (mode 1: the engine's moves one by one, one draw per node, no safe moves) and the
 * plain one with greedy home moves (mode 3, `gplain`). So at any node budget it visits the same nodes in the
 * same order as the Python search and gives the same answer, node count and line (tested); it
 * is only faster. One member has no Python twin: the beam (mode 4, run_beam), which only ever
 * answers won or unknown; without the core the portfolio skips it.
 *
 * The key is exact, never a hash, and has the Python key's classes: foundations as each
 * suit's two heights sorted (the multiset of foundation tops); the multiset of tableau piles,
 * each written as a 16-bit code (below); the stock and waste as the leftmost embedding of
 * their remaining cards in the root's sequence "waste bottom-to-top, then stock top-to-bottom"
 * (two remainders hold the same card sequence exactly when their leftmost embeddings are
 * equal), the waste length and the redeals used. A pile's code: cards only leave and arrive at
 * the top, and arrive only one lower in the same suit, so a pile is a prefix of its own root
 * pile, or (once emptied) one card, followed by a descending same-suit run. Let j be where the
 * maximal descending same-suit run at the top starts: the pile is fixed by p[0..j] and its
 * length; for j = 0 that is one card, for j >= 1 p[0..j] is a prefix of the root pile, written
 * as the first root pile with that prefix. Equal piles give equal codes and back.
 *
 * Installing solrace compiles this file (setup.py, with the module entry of coremodule.c) and
 * Python (shared/solver/fortyeight.py) calls it through ctypes; the line it returns is replayed
 * through Game.push before it is reported won. No Python headers: plain C99.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NF 8
#define NT 8
#define TB 8            /* engine pile indexes: foundations 0..7, tableau 8..15 */
#define PS 16           /* stock */
#define PW 17           /* waste */
#define MAXP 32         /* cards in a pile (a root pile at most MAXROOT, plus a run of 12) */
#define MAXROOT 19
#define MAXSEQ 64
#define JUMP 255        /* a step that moves the waste boundary */
#define TOTAL 104

typedef struct { uint8_t s, d; } Move;
typedef struct { uint8_t n, a[3], b[3]; } Edge;  /* steps: (src, dst), or (JUMP, B | redealt<<7) */
typedef struct { uint64_t w[4]; } Key;
typedef struct {
    uint64_t rem;       /* which cards of seq are still in the stock or the waste */
    uint8_t len[NT];
    uint8_t fh[NF], fs[NF];  /* foundation heights and suits */
    uint8_t B;          /* the waste is the cards of rem below index B */
    uint8_t redeals;
    uint16_t home;
    uint16_t code[NT];  /* each pile's code (key_of), kept as the piles change */
    uint64_t emb;       /* the leftmost embedding of rem (key_of), kept as rem changes */
    uint8_t p[NT][MAXP];
} State;

typedef struct { Edge *e; size_t n, cap; int oom; } Edges;

typedef struct {
    int takeback;
    uint8_t seq[MAXSEQ]; int nseq;
    uint8_t nxt[MAXSEQ + 1][52];  /* first q >= p with seq[q] == card x, else nseq */
    uint8_t canon[NT][MAXP];      /* first root pile sharing root pile t's first n cards */
    int32_t *mv; size_t nmv, capmv;
    Key *tab; size_t tabsize, tabused;
    long long nodes, max_nodes;
    double deadline;
    int oom, prune, greedy;
    uint64_t rng;  /* the shuffled members' generator (splitmix64) */
    int shuffled;  /* 0: the engine's order */
    int waste;     /* the beam's weight of a waste card (beam_score) */
} Ctx;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define RANK0(c) ((c) % 13)    /* rank - 1 */
#define SUIT(c) ((c) / 13)

static inline uint64_t below(int b) { return b >= 64 ? ~0ull : ((1ull << b) - 1); }
static inline int waste_top(const State *s) {
    uint64_t m = s->rem & below(s->B);
    return m ? 63 - __builtin_clzll(m) : -1;
}
static inline int stock_next(const State *s) {
    uint64_t m = s->rem & ~below(s->B);
    return m ? __builtin_ctzll(m) : -1;
}
static inline int ptop(const State *s, int t) { return s->p[t][s->len[t] - 1]; }
static inline int ftop(const State *s, int f) { return s->fs[f] * 13 + s->fh[f] - 1; }
static inline int f_accepts(const State *s, int f, int c) {
    return s->fh[f] ? (s->fs[f] == SUIT(c) && s->fh[f] == RANK0(c)) : RANK0(c) == 0;
}
static inline int t_accepts(const State *s, int t, int c) {  /* a non-empty pile */
    int top = ptop(s, t);
    return RANK0(top) != 0 && c == top - 1;
}

/* ---------------------------------------------------------------- key parts */

/* A pile's 16-bit code: let j be where the maximal descending same-suit run at the top
 * starts; j = 0: one card and the length, else the first root pile with the same p[0..j] and
 * j and the length (see the header). 0 for an empty pile. */
static uint16_t pile_code(const Ctx *c, const State *s, int t) {
    int L = s->len[t];
    if (!L) return 0;
    const uint8_t *p = s->p[t];
    int j = L - 1;
    while (j > 0 && RANK0(p[j - 1]) != 0 && p[j] == p[j - 1] - 1) j--;
    return j == 0 ? (uint16_t)(0x8000 | p[0] << 5 | L)
                  : (uint16_t)(c->canon[t][j + 1] << 10 | (j + 1) << 5 | L);
}

/* The leftmost embedding of the remaining cards' sequence in the root's. Its place q for a
 * card is at most the card's own index i; when q == i the card and every card right after it
 * in rem (a run of consecutive indexes) embed at their own indexes, so the run is copied
 * whole: only the cards after a gap are looked up one by one. */
static uint64_t embed(const Ctx *c, uint64_t m) {
    uint64_t e = 0;
    int q = 0;
    while (m) {
        int i = __builtin_ctzll(m);
        if (q == i) {
            uint64_t ones = ~(m >> i);
            int r = ones ? __builtin_ctzll(ones) : 64 - i;
            uint64_t bits = (r + i >= 64 ? ~0ull : (1ull << (r + i)) - 1) & ~below(i);
            e |= bits; m &= ~bits; q = i + r;
            continue;
        }
        m &= m - 1;
        q = c->nxt[q][c->seq[i]];
        e |= 1ull << q;
        q++;
    }
    return e;
}

/* ---------------------------------------------------------------- moves */

static void do_move(const Ctx *c, State *s, int src, int dst) {
    int card;
    if (src == PS) { s->B = (uint8_t)(stock_next(s) + 1); return; }   /* draw */
    if (dst == PS) { s->B = 0; s->redeals++; return; }                /* redeal */
    if (src == PW) {
        int i = waste_top(s);
        card = c->seq[i];
        s->rem &= ~(1ull << i);
        s->B = (uint8_t)i;
        s->emb = embed(c, s->rem);
    } else if (src < NF) {
        card = ftop(s, src);
        s->fh[src]--; s->home--;
    } else {
        int t = src - TB;
        int L = s->len[t], code = s->code[t];
        card = s->p[t][--s->len[t]];
        /* the top run's start j: the code drops one in length while the run keeps a card */
        int j = code & 0x8000 ? 0 : ((code >> 5) & 31) - 1;
        s->code[t] = j < L - 1 ? (uint16_t)(code - 1) : pile_code(c, s, t);
    }
    if (dst < NF) {
        if (!s->fh[dst]) s->fs[dst] = (uint8_t)SUIT(card);
        s->fh[dst]++; s->home++;
    } else {
        int t = dst - TB;
        /* a card goes only onto its parent (the run grows by one) or into a space */
        s->code[t] = s->len[t] ? (uint16_t)(s->code[t] + 1) : (uint16_t)(0x8000 | card << 5 | 1);
        s->p[t][s->len[t]++] = (uint8_t)card;
    }
}

static int emit(Ctx *c, int s, int d) {
    if (c->nmv == c->capmv) {
        size_t n = c->capmv ? 2 * c->capmv : 1024;
        int32_t *m = realloc(c->mv, 3 * n * sizeof(int32_t));
        if (!m) { c->oom = 1; return 0; }
        c->mv = m; c->capmv = n;
    }
    int32_t *o = c->mv + 3 * c->nmv++;
    o[0] = s; o[1] = d; o[2] = 1;
    return 1;
}

/* The draws (and redeal) of a jump to boundary b, as engine moves: stock.py's closed-form
 * walk (draw to the end, redeal, draw round to the card). */
static void emit_jump(Ctx *c, const State *s, int b, int redealt) {
    if (!redealt) {
        int k = __builtin_popcountll(s->rem & below(b) & ~below(s->B));
        while (k--) emit(c, PS, PW);
        return;
    }
    int ahead = __builtin_popcountll(s->rem & ~below(s->B));
    while (ahead--) emit(c, PS, PW);
    emit(c, PW, PS);
    int k = __builtin_popcountll(s->rem & below(b));
    while (k--) emit(c, PS, PW);
}

/* SafeMoves._find_ace_up for two decks: a tableau or waste top goes home when it is an Ace
 * (to the first empty foundation) or fits a foundation and both copies of the card below it
 * are home (rules A, B, D of docs/solver.md). */
static int safe_find(const Ctx *c, const State *s, int *src, int *dst) {
    int empty = -1;
    uint64_t want = 0;  /* the cards that fit a foundation (not Aces) */
    for (int f = 0; f < NF; f++) {
        if (!s->fh[f]) { if (empty < 0) empty = f; }
        else if (s->fh[f] < 13) want |= 1ull << (s->fs[f] * 13 + s->fh[f]);
    }
    int full[4], have_full = 0;
    for (int i = 0; i <= NT; i++) {
        int from, card;
        if (i < NT) {
            if (!s->len[i]) continue;
            from = TB + i; card = ptop(s, i);
        } else {
            int w = waste_top(s);
            if (w < 0) continue;
            from = PW; card = c->seq[w];
        }
        if (RANK0(card) == 0) {
            if (empty < 0) continue;
            *src = from; *dst = empty;
            return 1;
        }
        if (!(want >> card & 1)) continue;
        int f = -1;
        for (int g = 0; g < NF; g++)
            if (s->fh[g] && s->fs[g] == SUIT(card) && s->fh[g] == RANK0(card)) { f = g; break; }
        if (f < 0) continue;
        if (!have_full) {  /* per suit, the lower of its two highest foundations */
            int top[4] = {0, 0, 0, 0};
            for (int x = 0; x < 4; x++) full[x] = 0;
            for (int g = 0; g < NF; g++) {
                int h = s->fh[g];
                if (!h) continue;
                int su = s->fs[g];
                if (h > top[su]) { full[su] = top[su]; top[su] = h; }
                else if (h > full[su]) full[su] = h;
            }
            have_full = 1;
        }
        if (!c->greedy && full[SUIT(card)] < RANK0(card)) continue;
        *src = from; *dst = f;
        return 1;
    }
    return 0;
}

/* Safe moves (greedy ones with c->greedy) until none is left; emitted when emitting. */
static void close_safe(Ctx *c, State *s, int emitting) {
    int a, b;
    while (safe_find(c, s, &a, &b)) {
        if (emitting) emit(c, a, b);
        do_move(c, s, a, b);
    }
}

static void apply(Ctx *c, State *s, const Edge *e, int emitting) {
    for (int i = 0; i < e->n; i++) {
        if (e->a[i] == JUMP) {
            int b = e->b[i] & 127, r = e->b[i] >> 7;
            if (emitting) emit_jump(c, s, b, r);
            s->B = (uint8_t)b; s->redeals = (uint8_t)(s->redeals + r);
        } else {
            if (emitting) emit(c, e->a[i], e->b[i]);
            do_move(c, s, e->a[i], e->b[i]);
        }
    }
    if (c->prune || c->greedy) close_safe(c, s, emitting);
}

/* Game._legal() for this game, in its order: tableau then waste to the foundations; each
 * tableau top to the piles that take it (empty ones merged in pile order); the waste top and
 * (with take-back) the foundation tops likewise; then the draw or the redeal. */
static int legal(const Ctx *c, const State *s, Move *out) {
    int n = 0;
    if (s->home == TOTAL) return 0;
    int w = waste_top(s);
    int empty = 0;
    uint64_t want = 0;  /* the cards that fit a foundation (not Aces) */
    for (int f = 0; f < NF; f++) {
        if (!s->fh[f]) empty = 1;
        else if (s->fh[f] < 13) want |= 1ull << (s->fs[f] * 13 + s->fh[f]);
    }
    for (int t = 0; t < NT; t++) {
        if (!s->len[t]) continue;
        int x = ptop(s, t);
        if (RANK0(x) == 0 ? !empty : !(want >> x & 1)) continue;
        for (int f = 0; f < NF; f++)
            if (f_accepts(s, f, x)) { out[n].s = (uint8_t)(TB + t); out[n].d = (uint8_t)f; n++; }
    }
    if (w >= 0 && (RANK0(c->seq[w]) == 0 ? empty : (int)(want >> c->seq[w] & 1))) {
        int x = c->seq[w];
        for (int f = 0; f < NF; f++)
            if (f_accepts(s, f, x)) { out[n].s = PW; out[n].d = (uint8_t)f; n++; }
    }
    for (int t = 0; t < NT; t++) {
        if (!s->len[t]) continue;
        int x = ptop(s, t);
        for (int d = 0; d < NT; d++)
            if (d != t && (!s->len[d] || t_accepts(s, d, x))) {
                out[n].s = (uint8_t)(TB + t); out[n].d = (uint8_t)(TB + d); n++;
            }
    }
    for (int i = -1; i < (c->takeback ? NF : 0); i++) {
        int x, from;
        if (i < 0) {
            if (w < 0) continue;
            x = c->seq[w]; from = PW;
        } else {
            if (!s->fh[i]) continue;
            x = ftop(s, i); from = i;
        }
        for (int d = 0; d < NT; d++)
            if (!s->len[d] || t_accepts(s, d, x)) {
                out[n].s = (uint8_t)from; out[n].d = (uint8_t)(TB + d); n++;
            }
    }
    if (stock_next(s) >= 0) { out[n].s = PS; out[n].d = PW; n++; }
    else if (w >= 0 && s->redeals < 1) { out[n].s = PW; out[n].d = PS; n++; }
    return n;
}

/* ---------------------------------------------------------------- edges */

static int push(Edges *o, Edge e) {
    if (o->n == o->cap) {
        size_t n = o->cap ? 2 * o->cap : 4096;
        Edge *g = realloc(o->e, n * sizeof(Edge));
        if (!g) { o->oom = 1; return 0; }
        o->e = g; o->cap = n;
    }
    o->e[o->n++] = e;
    return 1;
}

static inline Edge edge1(int s, int d) { Edge e; e.n = 1; e.a[0] = (uint8_t)s; e.b[0] = (uint8_t)d; return e; }

static inline void add_step(Edge *e, int a, int b) { e->a[e->n] = (uint8_t)a; e->b[e->n] = (uint8_t)b; e->n++; }

/* StockEdges._stock_edges: for every waste position reachable by draws and redeals (the
 * cheapest way, in the closed-form walk's order), the card on top to each place that takes it:
 * its foundation, the tableau piles one higher in its suit, the first empty pile. only >= 0:
 * onto that tableau pile only (the second half of a pair). first: the pair's first move. */
static void stock_edges(const Ctx *c, const State *s, Edges *o, int only, const Edge *first) {
    int8_t tf[52];
    int8_t tt[52][2]; uint8_t ntt[52];
    int any_t = -1;
    memset(tf, -1, sizeof tf); memset(ntt, 0, sizeof ntt);
    if (only < 0) {
        uint64_t seen = 0;  /* foundation tops tried (bit 52: empty) */
        for (int f = 0; f < NF; f++) {
            int top = s->fh[f] ? ftop(s, f) : 52;
            if (seen >> top & 1) continue;
            seen |= 1ull << top;
            if (top == 52) { for (int su = 0; su < 4; su++) tf[su * 13] = (int8_t)f; }
            else if (RANK0(top) != 12) tf[top + 1] = (int8_t)f;
        }
        for (int t = 0; t < NT; t++) {
            if (!s->len[t]) { if (any_t < 0) any_t = t; continue; }
            int top = ptop(s, t);
            if (RANK0(top) == 0) continue;
            tt[top - 1][ntt[top - 1]++] = (int8_t)t;
        }
    } else {
        int t = only;
        if (!s->len[t]) {
            for (int u = 0; u < t; u++) if (!s->len[u]) return;
            any_t = t;
        } else {
            int top = ptop(s, t);
            if (RANK0(top) == 0) return;
            tt[top - 1][ntt[top - 1]++] = (int8_t)t;
        }
    }
    int wt = waste_top(s);
    int redeal = s->redeals < 1;
    /* first the waste top (no draw), then every later card; after a redeal the cards below
     * the waste top */
    for (int part = 0; part < 3; part++) {
        uint64_t m;
        if (part == 0) m = wt >= 0 ? 1ull << wt : 0;
        else if (part == 1) m = s->rem & ~below(s->B);
        else m = redeal && wt >= 0 ? s->rem & below(wt) : 0;
        while (m) {
            int i = __builtin_ctzll(m);
            m &= m - 1;
            int x = c->seq[i];
            if (tf[x] < 0 && !ntt[x] && any_t < 0) continue;
            Edge base;
            base.n = 0;
            if (first) base = *first;
            if (part) add_step(&base, JUMP, (i + 1) | (part == 2 ? 128 : 0));
            int ds[4], nd = 0;
            if (tf[x] >= 0) ds[nd++] = tf[x];
            for (int j = 0; j < ntt[x]; j++) ds[nd++] = TB + tt[x][j];
            if (any_t >= 0) ds[nd++] = TB + any_t;
            for (int j = 0; j < nd; j++) {
                Edge e = base;
                add_step(&e, PW, ds[j]);
                push(o, e);
            }
        }
    }
}

static inline int sits_on_parent(const State *s, int t) {  /* a non-empty pile of 2+ */
    int head = s->p[t][s->len[t] - 1], below_ = s->p[t][s->len[t] - 2];
    return RANK0(head) != 12 && below_ == head + 1;
}

static void pruned_edges(const Ctx *c, const State *s, Edges *o, const Edge *first, int src,
                         int dst);

/* MoveGen._delayed: first, then every move that uses what it changed (from src, or onto
 * dst), and the waste cards that go onto dst. */
static void delayed(const Ctx *c, const State *s, Move first, int src, int dst, Edges *o) {
    State s2 = *s;
    do_move(c, &s2, first.s, first.d);
    Edge e = edge1(first.s, first.d);
    pruned_edges(c, &s2, o, &e, src, dst);
}

/* MoveGen.edges(): the engine's moves filtered (per source one foundation per top and one
 * empty pile; no one-card pile into a space), moves off a parent and take-backs only paired
 * with a use, then the stock macro-moves. With first: the second halves of its pair (inner). */
static void pruned_edges(const Ctx *c, const State *s, Edges *o, const Edge *first, int src,
                         int dst) {
    Move L[256];
    int nl = legal(c, s, L);
    uint64_t fseen[PW + 1];
    uint8_t eseen[PW + 1];
    memset(fseen, 0, sizeof fseen); memset(eseen, 0, sizeof eseen);
    for (int i = 0; i < nl; i++) {
        int a = L[i].s, b = L[i].d;
        if (first && a != src && b != dst) continue;
        if (a == PS || a == PW || b == PS) continue;  /* the macro-moves replace these */
        if (b < NF) {
            int top = s->fh[b] ? ftop(s, b) : 52;
            if (fseen[a] >> top & 1) continue;
            fseen[a] |= 1ull << top;
        } else if (!s->len[b - TB]) {
            if (eseen[a]) continue;
            eseen[a] = 1;
            if (a >= TB && s->len[a - TB] == 1) continue;  /* a whole pile into a space */
        }
        if (!first) {
            if (a >= TB && b >= TB && s->len[a - TB] >= 2 && sits_on_parent(s, a - TB)) {
                delayed(c, s, L[i], a, a, o);
                continue;
            }
            if (a < NF && b >= TB) { delayed(c, s, L[i], a, b, o); continue; }
            push(o, edge1(a, b));
        } else {
            Edge e = *first;
            add_step(&e, a, b);
            push(o, e);
        }
    }
    if (c->nseq) {
        if (!first) stock_edges(c, s, o, -1, NULL);
        else if (dst >= TB) stock_edges(c, s, o, dst - TB, first);
    }
}

static void node_edges(const Ctx *c, const State *s, Edges *o) {
    if (c->prune) { pruned_edges(c, s, o, NULL, -1, -1); return; }
    Move L[256];
    int nl = legal(c, s, L);
    for (int i = 0; i < nl; i++) push(o, edge1(L[i].s, L[i].d));
}

/* A shuffled member (cfg[2] != 0, any mode): each new node's edges in a random order
 * (Fisher-Yates over splitmix64, one draw per swap), a trailing draw or redeal kept last (the
 * plain modes' last resort; the pruned modes have none: their stock edges are jumps), the
 * same permutation as Searcher._shuffled. Deterministic: the nodes are expanded in the same
 * order at any budget, so the generator is at the same state at each of them. */
static inline uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void shuffle(Ctx *c, Edges *o, size_t first) {
    if (!c->shuffled || o->oom) return;
    size_t n = o->n - first;
    if (n && o->e[o->n - 1].n == 1) {
        int a = o->e[o->n - 1].a[0], b = o->e[o->n - 1].b[0];
        if ((a == PS && b == PW) || (a == PW && b == PS)) n--;
    }
    Edge *e = o->e + first;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(splitmix(&c->rng) % i);
        Edge t = e[i - 1]; e[i - 1] = e[j]; e[j] = t;
    }
}

/* ---------------------------------------------------------------- key */

static inline void sort16(uint16_t *a, int n) {
    for (int i = 1; i < n; i++) {
        uint16_t x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

static Key key_of(const Ctx *c, const State *s) {
    Key k;
    uint16_t code[NT];
    memcpy(code, s->code, sizeof code);
    sort16(code, NT);
    k.w[2] = (uint64_t)code[0] | (uint64_t)code[1] << 16 | (uint64_t)code[2] << 32
           | (uint64_t)code[3] << 48;
    k.w[3] = (uint64_t)code[4] | (uint64_t)code[5] << 16 | (uint64_t)code[6] << 32
           | (uint64_t)code[7] << 48;
    uint8_t hi[4] = {0, 0, 0, 0}, lo[4] = {0, 0, 0, 0};
    for (int f = 0; f < NF; f++) {
        int h = s->fh[f];
        if (!h) continue;
        int su = s->fs[f];
        if (h > hi[su]) { lo[su] = hi[su]; hi[su] = (uint8_t)h; }
        else if (h > lo[su]) lo[su] = (uint8_t)h;
    }
    uint64_t w0 = 1ull << 63 | (uint64_t)s->redeals << 48
                | (uint64_t)__builtin_popcountll(s->rem & below(s->B)) << 40;
    for (int su = 0; su < 4; su++) w0 |= (uint64_t)(hi[su] << 4 | lo[su]) << (8 * su);
    k.w[0] = w0;
    k.w[1] = s->emb;
    return k;
}

/* ---------------------------------------------------------------- table */

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static inline uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static inline uint64_t hash_key(const Key *k) {  /* four independent products, one final mix */
    uint64_t h = k->w[0] * 0x9e3779b97f4a7c15ull + rotl(k->w[1] * 0xc2b2ae3d27d4eb4full, 21)
               + rotl(k->w[2] * 0x165667b19e3779f9ull, 42) + k->w[3] * 0xd6e8feb86659fd93ull;
    return mix(h);
}

static inline int key_empty(const Key *k) { return !k->w[0]; }  /* a real key has bit 63 */

static int table_grow(Ctx *c) {
    size_t n = c->tabsize ? c->tabsize * 2 : (1u << 16);
    Key *t = calloc(n, sizeof(Key));
    if (!t) { c->oom = 1; return 0; }
    for (size_t i = 0; i < c->tabsize; i++) {
        if (key_empty(&c->tab[i])) continue;
        size_t j = hash_key(&c->tab[i]) & (n - 1);
        while (!key_empty(&t[j])) j = (j + 1) & (n - 1);
        t[j] = c->tab[i];
    }
    free(c->tab);
    c->tab = t; c->tabsize = n;
    return 1;
}

/* 1: newly added, 0: already there, -1: out of memory */
static int table_add(Ctx *c, const Key *k) {
    if (2 * (c->tabused + 1) > c->tabsize && !table_grow(c)) return -1;
    size_t m = c->tabsize - 1, j = hash_key(k) & m;
    while (!key_empty(&c->tab[j])) {
        if (!memcmp(&c->tab[j], k, sizeof(Key))) return 0;
        j = (j + 1) & m;
    }
    c->tab[j] = *k; c->tabused++;
    return 1;
}

/* ---------------------------------------------------------------- depth-first */

static inline int out_of_budget(Ctx *c) {
    if (c->max_nodes >= 0 && c->nodes >= c->max_nodes) return 1;
    if (c->deadline > 0 && c->nodes % 256 == 0 && now() > c->deadline) return 1;
    return 0;
}

typedef struct { State s; size_t first, count, next; Edge in; } Frame;

/* Searcher.run_dfs from root (its safe moves made): 1 won (c->mv holds the line after the
 * root's prefix), 0 lost, 2 out of budget, -1 out of memory. */
static int run_dfs(Ctx *c, const State *root) {
    size_t capf = 256;
    Frame *fr = malloc(capf * sizeof(Frame));
    Edges o = {NULL, 0, 0, 0};
    int rc = 0;
    if (!fr) return -1;
    Key k = key_of(c, root);
    if (table_add(c, &k) < 0) { free(fr); return -1; }
    c->nodes = 1;
    size_t top = 0;
    fr[0].s = *root; fr[0].first = 0; fr[0].next = 0;
    node_edges(c, root, &o);
    shuffle(c, &o, 0);
    fr[0].count = o.n;
    for (;;) {
        if (o.oom) { rc = -1; break; }
        Frame *f = &fr[top];
        if (f->next == f->count) {
            if (top == 0) { rc = 0; break; }
            o.n = f->first; top--;
            continue;
        }
        Edge e = o.e[f->first + f->next++];
        State s = f->s;
        apply(c, &s, &e, 0);
        if (s.home == TOTAL) {
            for (size_t i = 1; i <= top; i++) {
                State r = fr[i - 1].s;
                apply(c, &r, &fr[i].in, 1);
            }
            State r = f->s;
            apply(c, &r, &e, 1);
            rc = c->oom ? -1 : 1;
            break;
        }
        k = key_of(c, &s);
        int add = table_add(c, &k);
        if (add < 0) { rc = -1; break; }
        if (!add) continue;
        if (out_of_budget(c)) { rc = 2; break; }
        c->nodes++;
        if (top + 1 >= capf) {
            Frame *g = realloc(fr, 2 * capf * sizeof(Frame));
            if (!g) { rc = -1; break; }
            fr = g; capf *= 2;
        }
        top++;
        fr[top].s = s; fr[top].in = e; fr[top].first = o.n; fr[top].next = 0;
        node_edges(c, &s, &o);
        shuffle(c, &o, fr[top].first);
        fr[top].count = o.n - fr[top].first;
    }
    free(fr); free(o.e);
    return rc;
}

/* ---------------------------------------------------------------- beam

 * The beam member (mode 4): a best-W search of the greedy game by stock position, for deals
 * the depth-first members wander on for millions of nodes (docs/solver.md, "The search").
 * A layer is the positions just after a draw or the redeal; each is expanded by a
 * depth-first walk over its non-stock moves (no take-backs: greedy home moves would undo them
 * at once), at most `local` new positions, every one of them with greedy home moves after each
 * move; every position reached offers its draw (or redeal) child to the next layer, of which
 * the best `width` by beam_score are kept, ties to the first found. One table of keys over the
 * whole run: a position is reached once. Each node records its parent and the move into it,
 * so a win's line is the moves from the root, each followed by its greedy home moves, replayed.
 * An empty layer ends it without a win: the greedy game truncated, which proves nothing.
 * Deterministic: nothing depends on anything but the position and the node budget. */

typedef struct { int32_t parent; uint8_t s, d; } BNode;
typedef struct { int32_t score; uint32_t order; int32_t node; State s; } Cand;
typedef struct { BNode *n; size_t len, cap; } Arena;

/* The layer's rank: cards home, less the cards buried under each pile's top run (they must
 * move before the pile is any use), plus spaces (a space takes any card), less `waste` per card
 * in the waste. Ten, three and five were the best weights of the few tried. The positions of a layer have all drawn the same number of cards, so the waste
 * term counts, within a layer, the drawn cards that were not played out of the waste: on the
 * first pass they make the second pass's stock, on the second they are reachable only top
 * down, and the second pass was found to be what binds. */
static int32_t beam_score(const State *s, int waste) {
    int32_t v = 10 * s->home;
    for (int t = 0; t < NT; t++) {
        int code = s->code[t];
        if (!s->len[t]) { v += 5; continue; }
        if (!(code & 0x8000)) v -= 3 * (((code >> 5) & 31) - 1);
    }
    return v - waste * __builtin_popcountll(s->rem & below(s->B));
}

static int arena_add(Arena *a, int32_t parent, int s, int d) {
    if (a->len == a->cap) {
        size_t n = a->cap ? 2 * a->cap : 1 << 16;
        BNode *g = realloc(a->n, n * sizeof(BNode));
        if (!g) return -1;
        a->n = g; a->cap = n;
    }
    a->n[a->len].parent = parent; a->n[a->len].s = (uint8_t)s; a->n[a->len].d = (uint8_t)d;
    return (int)a->len++;
}

/* a worse than b: lower score, or the same score found later */
static inline int cand_worse(const Cand *a, const Cand *b) {
    return a->score < b->score || (a->score == b->score && a->order > b->order);
}

/* The next layer as a heap of at most width candidates, the worst on top. */
static void heap_offer(Cand *h, int *n, int width, const Cand *x) {
    int i;
    if (*n < width) {
        i = (*n)++;
        while (i && cand_worse(x, &h[(i - 1) / 2])) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
        h[i] = *x;
        return;
    }
    if (!cand_worse(&h[0], x)) return;  /* no better than the worst kept */
    i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        const Cand *cw = x;
        if (l < *n && cand_worse(&h[l], cw)) { w = l; cw = &h[l]; }
        if (r < *n && cand_worse(&h[r], cw)) { w = r; }
        if (w == i) break;
        h[i] = h[w]; i = w;
    }
    h[i] = *x;
}

static int cand_cmp(const void *a, const void *b) {  /* best first */
    const Cand *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The line to node i: the moves from the root, each with its greedy home moves, emitted. */
static int beam_line(Ctx *c, const State *root, const Arena *a, int32_t i) {
    size_t n = 0;
    for (int32_t j = i; j > 0; j = a->n[j].parent) n++;
    int32_t *path = malloc((n ? n : 1) * sizeof(int32_t));
    if (!path) return -1;
    size_t k = n;
    for (int32_t j = i; j > 0; j = a->n[j].parent) path[--k] = j;
    State s = *root;
    for (k = 0; k < n; k++) {
        emit(c, a->n[path[k]].s, a->n[path[k]].d);
        do_move(c, &s, a->n[path[k]].s, a->n[path[k]].d);
        close_safe(c, &s, 1);
    }
    free(path);
    return c->oom || s.home != TOTAL ? -1 : 1;
}

/* One move and its greedy home moves from s (node `from`): 1 won (the line emitted), 0 a new
 * node (*out, its index *idx), 3 seen before, 2 out of budget, -1 out of memory. */
static int beam_step(Ctx *c, const State *root, Arena *a, const State *s, int32_t from,
                     int src, int dst, State *out, int32_t *idx) {
    *out = *s;
    do_move(c, out, src, dst);
    close_safe(c, out, 0);
    if (out->home == TOTAL) {
        int32_t j = arena_add(a, from, src, dst);
        return j < 0 ? -1 : beam_line(c, root, a, j);
    }
    Key k = key_of(c, out);
    int add = table_add(c, &k);
    if (add < 0) return -1;
    if (!add) return 3;
    if (out_of_budget(c)) return 2;
    c->nodes++;
    *idx = arena_add(a, from, src, dst);
    return *idx < 0 ? -1 : 0;
}

typedef struct { State s; int32_t node; int n, next; Move m[256]; } BFrame;

/* The non-stock moves out of s (no take-backs), in the engine's order. */
static int beam_moves(const Ctx *c, const State *s, Move *m) {
    int n = legal(c, s, m), k = 0;
    for (int i = 0; i < n; i++)
        if (m[i].s != PS && m[i].d != PS && !(m[i].s < NF)) m[k++] = m[i];
    return k;
}

/* Expand one beam position: the walk over its non-stock moves (at most `local` new nodes),
 * each position's draw child offered to the next layer. Returns as beam_step (0: go on). */
static int beam_expand(Ctx *c, const State *root, Arena *a, const Cand *from, BFrame *fr,
                       int local, Cand *heap, int *nheap, int width, uint32_t *order) {
    int top = 0, made = 0;
    fr[0].s = from->s; fr[0].node = from->node; fr[0].next = 0;
    fr[0].n = beam_moves(c, &fr[0].s, fr[0].m);
    int fresh = 1;  /* the top frame's draw child still to offer */
    for (;;) {
        BFrame *f = &fr[top];
        if (fresh) {
            fresh = 0;
            int sd = -1, dd = -1;
            if (stock_next(&f->s) >= 0) { sd = PS; dd = PW; }
            else if (waste_top(&f->s) >= 0 && f->s.redeals < 1) { sd = PW; dd = PS; }
            if (sd >= 0) {
                Cand x;
                int rc = beam_step(c, root, a, &f->s, f->node, sd, dd, &x.s, &x.node);
                if (rc == 1 || rc == 2 || rc < 0) return rc;
                if (rc == 0) {
                    x.score = beam_score(&x.s, c->waste); x.order = (*order)++;
                    heap_offer(heap, nheap, width, &x);
                }
            }
        }
        if (f->next == f->n || made >= local) {
            if (top == 0) return 0;
            top--;
            continue;
        }
        Move m = f->m[f->next++];
        State s;
        int32_t idx;
        int rc = beam_step(c, root, a, &f->s, f->node, m.s, m.d, &s, &idx);
        if (rc == 1 || rc == 2 || rc < 0) return rc;
        if (rc == 3) continue;
        made++;
        BFrame *g = &fr[++top];
        g->s = s; g->node = idx; g->next = 0;
        g->n = beam_moves(c, &s, g->m);
        fresh = 1;
    }
}

/* The beam from root (its greedy home moves made): 1 won (c->mv holds the line after the
 * root's prefix), 0 the beam emptied (no proof), 2 out of budget, -1 out of memory. */
static int run_beam(Ctx *c, const State *root, int width, int local) {
    Arena a = {NULL, 0, 0};
    Cand *cur = malloc((size_t)width * sizeof(Cand)), *nxt = malloc((size_t)width * sizeof(Cand));
    BFrame *fr = malloc((size_t)(local + 2) * sizeof(BFrame));
    int rc = -1, ncur = 1;
    uint32_t order = 0;
    Key k = key_of(c, root);
    if (!cur || !nxt || !fr || table_add(c, &k) < 0 || arena_add(&a, -1, 0, 0) < 0) goto done;
    c->nodes = 1;
    cur[0].s = *root; cur[0].node = 0; cur[0].order = order++;
    cur[0].score = beam_score(root, c->waste);
    for (;;) {
        int nnxt = 0;
        for (int i = 0; i < ncur; i++) {
            rc = beam_expand(c, root, &a, &cur[i], fr, local, nxt, &nnxt, width, &order);
            if (rc != 0) goto done;
        }
        if (!nnxt) { rc = 0; goto done; }
        qsort(nxt, (size_t)nnxt, sizeof(Cand), cand_cmp);
        Cand *t = cur; cur = nxt; nxt = t; ncur = nnxt;
    }
done:
    if (c->oom) rc = -1;
    free(a.n); free(cur); free(nxt); free(fr);
    return rc;
}

/* ---------------------------------------------------------------- interface */

void *fe_new(void) { return calloc(1, sizeof(Ctx)); }

void fe_free(void *h) {
    Ctx *c = h;
    if (!c) return;
    free(c->tab); free(c->mv); free(c);
}

long long fe_nodes(void *h) { return ((Ctx *)h)->nodes; }
long long fe_moves_len(void *h) { return (long long)((Ctx *)h)->nmv; }
void fe_moves(void *h, int32_t *out) {
    Ctx *c = h;
    if (c->nmv) memcpy(out, c->mv, 3 * c->nmv * sizeof(int32_t));
}

/* cfg: takeback, mode (0 pruned depth-first, 1 plain depth-first, 2 pruned depth-first with
 * greedy home moves: every top that fits a foundation goes there, a streamliner; 3 plain
 * depth-first with greedy home moves; 4 the beam, greedy, whose cfg[3] is its width and
 * cfg[4] its walk's limit per position, both at least 1, cfg[5] its score's weight of a
 * waste card, at least 0, and cfg[6] nonzero for safe home moves only instead of greedy ones);
 * shuffle seed (0: none). cfg has seven ints in every mode.
 * pos: 8 foundation heights, 8 foundation suits; for each of the 8 tableau piles its length
 * and cards bottom to top; redeals used; the waste length k, nseq, and nseq cards (waste
 * bottom-to-top, then stock top-to-bottom). Returns -1 for a position it does not take. */
static int setup(Ctx *c, State *sp, const int32_t *cfg, const int32_t *pos) {
    State s;
    memset(&s, 0, sizeof s);
    c->takeback = cfg[0] != 0;
    c->prune = cfg[1] == 0 || cfg[1] == 2;
    /* the beam with cfg[6] set: safe home moves only, the others are choices of its walk */
    c->greedy = cfg[1] == 2 || cfg[1] == 3 || (cfg[1] == 4 && !cfg[6]);
    c->rng = (uint64_t)(uint32_t)cfg[2];
    c->shuffled = cfg[2] != 0;
    if (cfg[1] < 0 || cfg[1] > 4 || (cfg[1] == 4 && (cfg[3] < 1 || cfg[4] < 1 || cfg[5] < 0)))
        return -1;
    c->waste = cfg[1] == 4 ? cfg[5] : 0;
    int i = 0;
    for (int f = 0; f < NF; f++) {
        if (pos[i] < 0 || pos[i] > 13) return -1;
        s.fh[f] = (uint8_t)pos[i++]; s.home = (uint16_t)(s.home + s.fh[f]);
    }
    for (int f = 0; f < NF; f++) {
        if (pos[i] < 0 || pos[i] > 3) return -1;
        s.fs[f] = (uint8_t)pos[i++];
    }
    uint8_t root[NT][MAXP];
    for (int t = 0; t < NT; t++) {
        int n = pos[i++];
        if (n < 0 || n > MAXROOT) return -1;
        s.len[t] = (uint8_t)n;
        for (int j = 0; j < n; j++) {
            if (pos[i] < 0 || pos[i] > 51) return -1;
            s.p[t][j] = root[t][j] = (uint8_t)pos[i++];
        }
    }
    int r = pos[i++];
    if (r < 0 || r > 1) return -1;
    s.redeals = (uint8_t)r;
    int k = pos[i++];
    c->nseq = pos[i++];
    if (c->nseq < 0 || c->nseq > MAXSEQ || k < 0 || k > c->nseq) return -1;
    for (int j = 0; j < c->nseq; j++) {
        if (pos[i] < 0 || pos[i] > 51) return -1;
        c->seq[j] = (uint8_t)pos[i++];
    }
    s.rem = below(c->nseq);
    s.B = (uint8_t)k;
    for (int x = 0; x < 52; x++) c->nxt[c->nseq][x] = (uint8_t)c->nseq;
    for (int p = c->nseq - 1; p >= 0; p--)
        for (int x = 0; x < 52; x++)
            c->nxt[p][x] = c->seq[p] == x ? (uint8_t)p : c->nxt[p + 1][x];
    for (int t = 0; t < NT; t++)
        for (int n = 1; n <= s.len[t]; n++) {
            int u = 0;
            while (s.len[u] < n || memcmp(root[u], root[t], (size_t)n)) u++;
            c->canon[t][n] = (uint8_t)u;
        }
    for (int t = 0; t < NT; t++) s.code[t] = pile_code(c, &s, t);
    s.emb = embed(c, s.rem);
    *sp = s;
    return 0;
}

int fe_solve(void *h, const int32_t *cfg, const int32_t *pos, long long max_nodes,
             double seconds) {
    Ctx *c = h;
    State s;
    if (setup(c, &s, cfg, pos) < 0) return -1;
    free(c->tab); c->tab = NULL; c->tabsize = c->tabused = 0;
    free(c->mv); c->mv = NULL; c->nmv = c->capmv = 0;
    c->oom = 0;
    if (c->prune || c->greedy) close_safe(c, &s, 1);  /* the root's safe moves: the prefix */
    c->max_nodes = max_nodes;
    c->deadline = seconds > 0 ? now() + seconds : 0;
    c->nodes = 0;
    if (s.home == TOTAL) return c->oom ? -1 : 1;
    int rc = cfg[1] == 4 ? run_beam(c, &s, cfg[3], cfg[4]) : run_dfs(c, &s);
    if (c->oom) rc = -1;
    return rc;
}

/* The edges out of a position (after the root's safe moves when pruning, which the caller
 * has made), each as its number of engine moves then the moves (3 ints each); the number of
 * ints written, or -1 (cap too small, or a position it does not take): for the tests. */
int fe_edges(void *h, const int32_t *cfg, const int32_t *pos, int32_t *out, int cap) {
    Ctx *c = h;
    State s;
    if (setup(c, &s, cfg, pos) < 0) return -1;
    Edges o = {NULL, 0, 0, 0};
    node_edges(c, &s, &o);
    int n = 0;
    for (size_t i = 0; i < o.n && !o.oom; i++) {
        free(c->mv); c->mv = NULL; c->nmv = c->capmv = 0;
        State r = s;
        int prune = c->prune, greedy = c->greedy;
        c->prune = c->greedy = 0;  /* the edge's own moves, not the safe moves after it */
        apply(c, &r, &o.e[i], 1);
        c->prune = prune; c->greedy = greedy;
        if (n + 1 + 3 * (int)c->nmv > cap) { free(o.e); return -1; }
        out[n++] = (int32_t)c->nmv;
        memcpy(out + n, c->mv, 3 * c->nmv * sizeof(int32_t));
        n += 3 * (int)c->nmv;
    }
    int bad = o.oom;
    free(o.e);
    return bad ? -1 : n;
}
