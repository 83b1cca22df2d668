/* The compiled search core for the one-pass games without building: Double Aces and Kings
 * (four decks, foundations regardless of suit, 8 up from the Ace and 8 down from the King,
 * cards moving between foundations, 4 reserves of 13, 8 one-card piles refilled from the
 * stock) and Sixes and Sevens with automatic spaces (two decks, 8 foundations down from the
 * Sixes and 8 up from the Sevens by suit, 9 one-card piles refilled from the waste, else the
 * stock).
 *
 * It is the Python search of shared/solver (moves.py, safe_moves.py, canonical.py; search.py's
 * Searcher) on these games, redone on a compact state: the same edges in the same order (the
 * engine's move order, filtered by the same symmetric-target rules), the same safe moves, the
 * same canonical classes, and both members of the Python portfolio — depth-first and
 * best-first with the same estimate and the same tie-breaking. So at any node budget it visits
 * the same nodes in the same order as the Python search and gives the same answer, node count
 * and line (tested); it is only faster. No stock macro-moves (a play from the tableau refills
 * a space, so draws do not commute): an edge is one engine move, plus in Sixes and Sevens the
 * safe moves after it (only once stock and waste are empty, docs/solver.md rules B and C);
 * Double Aces and Kings has none (rule E). In Sixes and Sevens a node that the pile-up test
 * (pile_up below; deadends.py in Python) proves lost is counted and never expanded.
 *
 * The key is exact, never a hash: the multiset of foundation heights per group (per suit in
 * Sixes and Sevens), the multiset of tableau cards, each reserve as (height, the first reserve
 * whose dealt cards begin with the same ranks), the waste boundary, and the waste's card
 * sequence written as its leftmost embedding in the drawn cards (two wastes with the same
 * cards in the same order share one embedding; kept in the state as the waste changes, not
 * recomputed). Double Aces and Kings drops suits throughout (no rule reads them) and writes its
 * multisets as counts, a nibble per value, where Sixes and Sevens sorts.
 *
 * Besides the two portfolio members, the depth-first one with each node's children in a
 * random order (op_solve's shuffle seed: the rdfs<k> restarts, Searcher(shuffle=k) in Python,
 * permutation for permutation).
 *
 * Installing solrace compiles this file (setup.py, with the module entry of coremodule.c) and
 * Python (shared/solver/onepass.py) calls it through ctypes; the line it returns is replayed
 * through Game.push before it is reported won. No Python headers: plain C99.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NF 16
#define NT 9           /* tableau piles at most (8 in Double Aces and Kings) */
#define NR 4
#define RH 13           /* reserve height at the deal */
#define MAXSEQ 192      /* waste + stock cards (148 in a deal) */
#define EMPTY 255
#define MAXMV 12        /* engine moves in one edge with its safe moves */

enum { DAK, SIXES };  /* the game */

enum { K_T, K_R, K_W, K_F, K_S };

typedef struct { uint8_t sk, si, dk, di; } Edge;
typedef struct { uint64_t w[6]; } Key;
typedef struct {
    uint8_t h[NF];      /* foundation heights: the first 8 of the first group, then the second */
    uint8_t t[NT];      /* tableau cards (ranks in Double Aces and Kings), EMPTY */
    uint8_t r[NR];      /* reserve heights */
    uint8_t L;          /* cards of seq drawn (waste or gone) */
    uint8_t wlen;
    uint16_t home;
    uint64_t wb[3];     /* which of seq[0..L) are on the waste */
    uint64_t eb[3];     /* the waste's leftmost embedding in seq (the key's), kept as it grows */
} State;

typedef struct {
    /* rules and layout */
    int game, nt;
    int fidx[NF], tidx[NT], ridx[NR], S, W, r2s, total;
    uint8_t fsuit[NF];              /* Sixes and Sevens: each foundation's suit */
    uint8_t res[NR][RH + 1];        /* reserve ranks bottom to top */
    uint8_t lcp[NR][NR];            /* common prefix length of two reserves' dealt ranks */
    uint8_t seq[MAXSEQ]; int nseq;  /* waste bottom-to-top, then stock top-to-bottom */
    uint8_t nxt[MAXSEQ + 1][53];    /* first q >= p with seq[q] == card x, else nseq */
    int32_t prefix[3 * NT * 2]; int nprefix;  /* safe moves made at the root */
    int deadcheck;                  /* the pile-up test (Sixes and Sevens): 0 off, 1 on */
    uint64_t rng; int shuffled;     /* the shuffled depth-first member's generator */
    /* transposition table */
    Key *tab; size_t tabsize, tabused;
    /* search */
    long long nodes, max_nodes;
    double deadline;
    int oom;
    int32_t *mv; size_t nmv;
} Ctx;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- state */

/* A card is a rank (1..13) in Double Aces and Kings, suit * 13 + rank - 1 in Sixes and Sevens. */
static inline int ftop(const Ctx *c, int f, int h) {  /* the card on top of foundation f */
    if (c->game == DAK) return f < 8 ? h : 14 - h;
    return c->fsuit[f] * 13 + (f < 8 ? 7 - h : 6 + h) - 1;
}

static inline int f_accepts(const Ctx *c, int f, int h) {  /* the card f takes, -1: none */
    if (c->game == DAK) {
        if (h >= 13) return -1;
        if (h == 0) return f < 8 ? 1 : 13;
        return f < 8 ? h + 1 : 13 - h;
    }
    int r = f < 8 ? 6 - h : 7 + h;  /* heights count the prefilled Six or Seven */
    return r < 1 || r > 13 ? -1 : c->fsuit[f] * 13 + r - 1;
}

static inline int waste_top(const State *s) {  /* index into seq of the waste top, -1 */
    for (int i = 2; i >= 0; i--)
        if (s->wb[i]) return i * 64 + 63 - __builtin_clzll(s->wb[i]);
    return -1;
}

/* The waste's card sequence changes only at its top, and the leftmost embedding of a sequence
 * extends that of its prefix: a card put on the waste is embedded at the first place after
 * the embedding's last one that holds the same card, and the waste top leaves with the
 * embedding's last place. So the key's embedding is kept in the state, not recomputed. */
static inline int emb_top(const State *s) {  /* the embedding's last place, -1 */
    for (int i = 2; i >= 0; i--)
        if (s->eb[i]) return i * 64 + 63 - __builtin_clzll(s->eb[i]);
    return -1;
}

static inline void emb_push(const Ctx *c, State *s, int card) {
    int at = c->nxt[emb_top(s) + 1][card];
    s->eb[at >> 6] |= 1ull << (at & 63);
}

static inline void emb_pop(State *s) {
    int at = emb_top(s);
    s->eb[at >> 6] &= ~(1ull << (at & 63));
}

static void move(const Ctx *c, State *s, Edge e) {
    int card = 0;
    switch (e.sk) {
    case K_S:  /* draw */
        s->wb[s->L >> 6] |= 1ull << (s->L & 63);
        emb_push(c, s, c->seq[s->L]);
        s->L++; s->wlen++;
        return;
    case K_T:
        card = s->t[e.si];
        s->t[e.si] = EMPTY;
        if (c->game == SIXES && s->wlen) {  /* the space refills from the waste */
            int w = waste_top(s);
            s->t[e.si] = c->seq[w];
            s->wb[w >> 6] &= ~(1ull << (w & 63));
            emb_pop(s);
            s->wlen--;
        } else if (s->L < c->nseq) {  /* from the stock */
            s->t[e.si] = c->seq[s->L]; s->L++;
        }
        break;
    case K_R: card = c->res[e.si][s->r[e.si] - 1]; s->r[e.si]--; break;
    case K_W: {
        int w = waste_top(s);
        card = c->seq[w];
        s->wb[w >> 6] &= ~(1ull << (w & 63));
        emb_pop(s);
        s->wlen--;
        break;
    }
    case K_F: card = ftop(c, e.si, s->h[e.si]); s->h[e.si]--; s->home--; break;
    }
    if (e.dk == K_F) { s->h[e.di]++; s->home++; }
    else s->t[e.di] = (uint8_t)card;
}

static void emit(const Ctx *c, Edge e, int32_t *out);

/* Sixes and Sevens' safe moves (SafeMoves._find_generic): once stock and waste are empty, a
 * tableau card goes home when both copies of the card before it are; the first such pile in
 * order, to the first foundation that takes it, until none is left. Writes the moves to out
 * (when not NULL); returns how many. */
static int close(const Ctx *c, State *s, int32_t *out) {
    if (c->game != SIXES || s->wlen || s->L < c->nseq) return 0;
    int n = 0;
    for (;;) {
        int found = 0;
        for (int t = 0; t < c->nt && !found; t++) {
            int card = s->t[t];
            if (card == EMPTY) continue;
            int f = -1;
            for (int g = 0; g < NF; g++)
                if (f_accepts(c, g, s->h[g]) == card) { f = g; break; }
            if (f < 0) continue;
            /* the other foundation of this suit and group has the card before it too */
            int ok = 1;
            for (int g = (f < 8 ? 0 : 8); g < (f < 8 ? 8 : 16); g++)
                if (g != f && c->fsuit[g] == c->fsuit[f] && s->h[g] < s->h[f]) ok = 0;
            if (!ok) continue;
            Edge e = { K_T, (uint8_t)t, K_F, (uint8_t)f };
            if (out) emit(c, e, out + 3 * n);
            move(c, s, e);
            n++; found = 1;
        }
        if (!found) return n;
    }
}

static inline void apply(const Ctx *c, State *s, Edge e) { move(c, s, e); close(c, s, NULL); }

/* An edge's engine moves from s (the edge, then its safe moves): how many. */
static int replay(const Ctx *c, State s, Edge e, int32_t *out) {
    emit(c, e, out);
    move(c, &s, e);
    return 1 + close(c, &s, out + 3);
}

static inline void sort8(uint8_t *a, int n) {
    for (int i = 1; i < n; i++) {
        uint8_t x = a[i]; int j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

/* The waste's cards as their leftmost embedding in seq[0..L) (State.eb), from word w0 of the
 * key on. */
static inline void waste_key(const State *s, Key *k, int w0) {
    for (int i = 0; w0 + i < 6 && i < 3; i++) k->w[w0 + i] |= s->eb[i];
}

static Key key_of(const Ctx *c, const State *s) {
    Key k; memset(&k, 0, sizeof k);
    uint8_t a[NT];
    if (c->game == SIXES) {  /* bytes: (suit, height) per group sorted, tableau sorted, L */
        uint8_t *b = (uint8_t *)k.w;
        for (int g = 0; g < 2; g++) {
            for (int i = 0; i < 8; i++) a[i] = (uint8_t)(c->fsuit[8 * g + i] << 4 | s->h[8 * g + i]);
            sort8(a, 8);
            memcpy(b + 8 * g, a, 8);
        }
        memcpy(a, s->t, NT); sort8(a, NT);
        memcpy(b + 16, a, NT);
        b[25] = s->L;
        waste_key(s, &k, 4);  /* at most 128 drawn cards (79 in a deal) */
        return k;
    }
    /* Double Aces and Kings: each multiset as counts, a nibble per value (at most 8 of
     * each), not sorted: the up foundations' heights (w0), the down ones' (w5), the tableau
     * ranks, 0 for a space (w1, with L above); the reserves (h, rep) sorted and the waste
     * embedding (w2..w4: nseq <= 148, so w4's bits 40.. are free) */
    uint64_t up = 0, down = 0, tab = 0;
    for (int f = 0; f < 8; f++) up += 1ull << (4 * s->h[f]);
    for (int f = 8; f < 16; f++) down += 1ull << (4 * s->h[f]);
    for (int t = 0; t < 8; t++) tab += 1ull << (4 * (s->t[t] == EMPTY ? 0 : s->t[t]));
    k.w[0] = up; k.w[5] = down;
    k.w[1] = tab | (uint64_t)s->L << 56;
    uint8_t rr[NR];
    for (int i = 0; i < NR; i++) {
        int h = s->r[i], rep = i;
        for (int j = 0; j < i; j++)
            if (c->lcp[i][j] >= h) { rep = j; break; }
        if (h == 0) rep = 0;
        rr[i] = (uint8_t)(h << 2 | rep);
    }
    sort8(rr, NR);
    uint64_t w = 0;
    for (int i = 0; i < NR; i++) w = (w << 6) | rr[i];
    k.w[4] = w << 40;
    waste_key(s, &k, 2);
    return k;
}

/* ---------------------------------------------------------------- dead ends */

/* Sixes and Sevens' pile-up test (docs/solver.md, "Dead ends in Sixes and Sevens"; the same
 * as deadends.py). A card's class is (chain, distance): the chain is its suit and direction
 * (down 5..A, up 8..K), the distance how far from the Six or Seven it lies (5 and 8 are 1).
 * Take a waste card X: X and every card below it cannot leave the waste while X is there. A
 * class is *held* when it cannot go home while X is in the waste: some distance p between
 * the foundation it must go on and it has every copy not home held, or below X. When X
 * leaves, every held card drawn by then is on the tableau (it has left the waste above X and
 * is not home), and the tableau holds 9 cards: more than 9 held cards on the tableau or above
 * X now (8 when X itself is held by the cards below it and so must go to the tableau too)
 * means X never leaves: the position is lost. Returns 1 when lost. */
static int cls_of(int card) {  /* chain * 8 + distance, -1 for a Six or Seven */
    int suit = card / 13, r = card % 13 + 1;
    if (r <= 5) return suit * 8 + 6 - r;
    if (r >= 8) return (4 + suit) * 8 + r - 7;
    return -1;
}

/* the held distances of each chain (bit p) given the distances whose copies are all out of
 * reach (full, bit p) and the chain's two foundation distances lo <= hi */
static inline unsigned held_mask(unsigned full, int lo, int hi) {
    unsigned out = 0;
    for (int q = lo + 1; q <= 6; q++) {
        int from = q > hi ? hi : lo;  /* the foundation q must go on */
        unsigned between = ((1u << q) - 1) & ~((2u << from) - 1);  /* bits from+1 .. q-1 */
        if (full & between) { out |= 1u << q; full |= 1u << q; }
    }
    return out;
}

static int pile_up(const Ctx *c, const State *s) {
    if (c->game != SIXES || !c->deadcheck || s->wlen == 0) return 0;
    int lo[8], hi[8];
    for (int ch = 0; ch < 8; ch++) { lo[ch] = 99; hi[ch] = -1; }
    for (int f = 0; f < NF; f++) {
        int ch = (f < 8 ? 0 : 4) + c->fsuit[f], d = s->h[f] - 1;
        if (d > hi[ch]) { lo[ch] = hi[ch] < 0 ? d : hi[ch]; hi[ch] = d; }
        else lo[ch] = d;
    }
    uint8_t rem[64], tw[64], base[64];
    memset(tw, 0, sizeof tw); memset(base, 0, sizeof base);
    for (int ch = 0; ch < 8; ch++)
        for (int p = 0; p < 8; p++)
            rem[ch * 8 + p] = (uint8_t)(p == 0 || p > (ch < 4 ? 5 : 6) ? 0
                                        : 2 - (lo[ch] >= p) - (hi[ch] >= p));
    for (int t = 0; t < c->nt; t++) if (s->t[t] != EMPTY) tw[cls_of(s->t[t])]++;
    for (int i = 0; i < 3; i++)
        for (uint64_t b = s->wb[i]; b; b &= b - 1) tw[cls_of(c->seq[i * 64 + __builtin_ctzll(b)])]++;
    unsigned full[8] = {0}, held[8] = {0};
    int count = 0;
    for (int i = 0; i < 3; i++)
        for (uint64_t b = s->wb[i]; b; b &= b - 1) {
            int x = cls_of(c->seq[i * 64 + __builtin_ctzll(b)]), ch = x >> 3, p = x & 7;
            int park = (held[ch] >> p) & 1;  /* held by the cards below X: X goes to the tableau */
            base[x]++;
            if (park) count--;  /* X was counted as a held card above the bottom part */
            if (base[x] == rem[x] && !((full[ch] >> p) & 1)) {
                full[ch] |= 1u << p;
                unsigned h = held_mask(full[ch], lo[ch], hi[ch]);
                if (h != held[ch]) {
                    held[ch] = h;
                    count = 0;
                    for (int k = 0; k < 8; k++)
                        for (unsigned m = held[k]; m; m &= m - 1) {
                            int y = k * 8 + __builtin_ctz(m);
                            count += tw[y] - base[y];
                        }
                }
            }
            if (count > 9 || (park && count > 8)) return 1;
        }
    return 0;
}

/* ---------------------------------------------------------------- table */

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static inline uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static inline uint64_t hash_key(const Key *k) {  /* six independent products, one final mix */
    uint64_t h = k->w[0] * 0x9e3779b97f4a7c15ull + rotl(k->w[1] * 0xc2b2ae3d27d4eb4full, 21)
               + rotl(k->w[2] * 0x165667b19e3779f9ull, 42) + k->w[3] * 0xd6e8feb86659fd93ull
               + rotl(k->w[4] * 0xff51afd7ed558ccdull, 13) + rotl(k->w[5] * 0xc4ceb9fe1a85ec53ull, 34);
    return mix(h);
}

static inline int key_empty(const Key *k) {  /* no real key is all zero: L or a height is set */
    return !(k->w[0] | k->w[1] | k->w[2] | k->w[3] | k->w[4] | k->w[5]);
}

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

/* 1: newly added, 0: already there, -1: out of memory. */
static int table_add(Ctx *c, const Key *k, uint64_t h) {  /* h: hash_key(k) */
    if (key_empty(k)) return -1;  /* cannot happen (see key_empty); refuse rather than lie */
    if (2 * (c->tabused + 1) > c->tabsize && !table_grow(c)) return -1;
    size_t m = c->tabsize - 1, j = h & m;
    while (!key_empty(&c->tab[j])) {
        if (!memcmp(&c->tab[j], k, sizeof(Key))) return 0;
        j = (j + 1) & m;
    }
    c->tab[j] = *k; c->tabused++;
    return 1;
}

/* ---------------------------------------------------------------- edges */

/* The edges out of s, in the Python search's order: Game._legal() (foundation moves from the
 * tableau, then from the reserves, the waste and the foundations; moves into empty piles; the
 * draw), filtered as MoveGen.edges() filters it: per source, one foundation per (group, top);
 * no move between foundations of one group; one empty pile per source; no pile into a space
 * (nothing refills while a space exists). Returns the count (at most 64). */
static int edges(const Ctx *c, const State *s, Edge *out) {
    int n = 0;
    int acc[NF];
    for (int f = 0; f < NF; f++) acc[f] = f_accepts(c, f, s->h[f]);
    int first_empty = -1;
    for (int t = 0; t < c->nt; t++) if (s->t[t] == EMPTY) { first_empty = t; break; }
#define TO_F(KIND, I, RANK, FROM_F)                                                  \
    do {                                                                             \
        uint32_t seen2_ = 0; /* bit g*16+h: (group, height) tried from the source */ \
        for (int d_ = 0; d_ < NF; d_++) {                                               \
            if (acc[d_] != (RANK)) continue;                                          \
            if (FROM_F && ((d_ < 8) == ((I) < 8) || s->h[d_] == 0)) continue;          \
            uint32_t bit = 1u << ((d_ >= 8) * 16 + s->h[d_]);                          \
            if (seen2_ & bit) continue;                                              \
            seen2_ |= bit;                                                           \
            out[n].sk = KIND; out[n].si = (uint8_t)(I);                              \
            out[n].dk = K_F; out[n].di = (uint8_t)d_; n++;                            \
        }                                                                            \
    } while (0)
    for (int t = 0; t < c->nt; t++)
        if (s->t[t] != EMPTY) TO_F(K_T, t, s->t[t], 0);
    for (int r = 0; r < NR; r++)
        if (s->r[r]) TO_F(K_R, r, c->res[r][s->r[r] - 1], 0);
    int w = waste_top(s);
    if (w >= 0) TO_F(K_W, 0, c->seq[w], 0);
    if (c->game == DAK)  /* foundation to foundation */
        for (int f = 0; f < NF; f++)
            if (s->h[f]) TO_F(K_F, f, ftop(c, f, s->h[f]), 1);
#undef TO_F
    if (first_empty >= 0) {
        if (w >= 0) {
            out[n].sk = K_W; out[n].si = 0; out[n].dk = K_T; out[n].di = (uint8_t)first_empty;
            n++;
        }
        if (c->r2s)
            for (int r = 0; r < NR; r++)
                if (s->r[r]) {
                    out[n].sk = K_R; out[n].si = (uint8_t)r; out[n].dk = K_T;
                    out[n].di = (uint8_t)first_empty; n++;
                }
    }
    if (s->L < c->nseq) {
        out[n].sk = K_S; out[n].si = 0; out[n].dk = K_W; out[n].di = 0; n++;
    }
    return n;
}

static int estimate(const Ctx *c, const State *s, int depth) {  /* Searcher.estimate + depth */
    int h = (c->total - s->home) * 4;
    for (int t = 0; t < c->nt; t++) if (s->t[t] == EMPTY) h -= 2;
    return h + s->wlen + depth;
}

static void emit(const Ctx *c, Edge e, int32_t *out) {  /* the engine triple of an edge */
    int src = e.sk == K_T ? c->tidx[e.si] : e.sk == K_R ? c->ridx[e.si]
            : e.sk == K_W ? c->W : e.sk == K_F ? c->fidx[e.si] : c->S;
    int dst = e.dk == K_F ? c->fidx[e.di] : e.dk == K_T ? c->tidx[e.di] : c->W;
    out[0] = src; out[1] = dst; out[2] = 1;
}

/* The budget check of Searcher: after a new key, before counting it. 1: stop. */
static inline int out_of_budget(Ctx *c) {
    if (c->max_nodes >= 0 && c->nodes >= c->max_nodes) return 1;
    if (c->deadline > 0 && c->nodes % 256 == 0 && now() > c->deadline) return 1;
    return 0;
}

/* ---------------------------------------------------------------- depth-first */

/* A shuffled depth-first member (op_solve's shuffle != 0, ``rdfs<k>``): each new node's edges
 * in a random order (Fisher-Yates over splitmix64, one draw per swap), a trailing draw kept
 * last: the permutation of Searcher._shuffled, draw for draw (the same generator as
 * fortyeight.c's shuffled members). Deterministic: nodes are expanded in the same order at
 * any budget, so the generator is at the same state at each of them. */
static inline uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void shuffle(Ctx *c, Edge *e, int n) {
    if (!c->shuffled) return;
    if (n && e[n - 1].sk == K_S) n--;
    for (int i = n; i > 1; i--) {
        int j = (int)(splitmix(&c->rng) % (uint64_t)i);
        Edge t = e[i - 1]; e[i - 1] = e[j]; e[j] = t;
    }
}

/* A node's children, made when it is expanded: each edge with its child's key and hash (none
 * when the child is the win), and the child's table slot prefetched. A probe of the table is
 * a cache miss, and a node has some seven children to look up (most of them met before:
 * moves that commute), so asking for all their slots at once lets the misses overlap instead
 * of following one another. Only the timing changes: each child is still looked up, counted
 * and expanded when the search reaches it, as before. */
typedef struct { Edge e; int won; uint64_t h; Key k; } Child;

static int children(Ctx *c, const State *s, Child *out) {
    Edge es[64];
    int n = edges(c, s, es);
    shuffle(c, es, n);
    for (int i = 0; i < n; i++) {
        State t = *s;
        apply(c, &t, es[i]);
        out[i].e = es[i];
        out[i].won = t.home == c->total;
        if (out[i].won) continue;
        out[i].k = key_of(c, &t);
        out[i].h = hash_key(&out[i].k);
        if (c->tabsize) {
            const char *slot = (const char *)&c->tab[out[i].h & (c->tabsize - 1)];
            __builtin_prefetch(slot);
            __builtin_prefetch(slot + sizeof(Key) - 1);
        }
    }
    return n;
}

typedef struct { State s; int first, count, next; Edge in; } Frame;

static int run_dfs(Ctx *c, const State *root) {
    size_t capf = 256, cape = 4096;
    Frame *fr = malloc(capf * sizeof(Frame));
    Child *pool = malloc(cape * sizeof(Child));
    int rc = 0;
    if (!fr || !pool) { rc = -1; goto done; }
    Key k = key_of(c, root);
    if (table_add(c, &k, hash_key(&k)) < 0) { rc = -1; goto done; }
    c->nodes = 1;
    size_t top = 0, npool = 0;
    fr[0].s = *root; fr[0].first = 0; fr[0].next = 0;
    fr[0].count = children(c, root, pool); npool = fr[0].count;
    for (;;) {
        Frame *f = &fr[top];
        if (f->next == f->count) {
            if (top == 0) { rc = 0; break; }
            npool = f->first; top--;
            continue;
        }
        Child *ch = &pool[f->first + f->next++];
        Edge e = ch->e;
        if (ch->won) {
            c->mv = malloc(3 * (MAXMV * (top + 1) + c->nprefix) * sizeof(int32_t));
            if (!c->mv) { rc = -1; break; }
            memcpy(c->mv, c->prefix, 3 * c->nprefix * sizeof(int32_t));
            size_t m = c->nprefix;
            for (size_t i = 1; i <= top; i++) m += replay(c, fr[i - 1].s, fr[i].in, c->mv + 3 * m);
            m += replay(c, f->s, e, c->mv + 3 * m);
            c->nmv = m;
            rc = 1; break;
        }
        int add = table_add(c, &ch->k, ch->h);
        if (add < 0) { rc = -1; break; }
        if (!add) continue;
        if (out_of_budget(c)) { rc = 2; break; }  /* Python counts the key, not the node */
        c->nodes++;
        State s = f->s;
        apply(c, &s, e);
        if (pile_up(c, &s)) continue;  /* a dead end: counted, never expanded */
        if (top + 1 >= capf) {
            Frame *g = realloc(fr, 2 * capf * sizeof(Frame));
            if (!g) { rc = -1; break; }
            fr = g; capf *= 2;
        }
        if (npool + 64 > cape) {
            Child *g = realloc(pool, 2 * cape * sizeof(Child));
            if (!g) { rc = -1; break; }
            pool = g; cape *= 2;
        }
        top++;
        fr[top].s = s; fr[top].in = e; fr[top].first = (int)npool; fr[top].next = 0;
        fr[top].count = children(c, &s, pool + npool);
        npool += fr[top].count;
    }
done:
    free(fr); free(pool);
    return rc;
}

/* ---------------------------------------------------------------- best-first */

typedef struct { int32_t score, idx; } HeapItem;

static inline int heap_less(HeapItem a, HeapItem b) {
    return a.score < b.score || (a.score == b.score && a.idx < b.idx);
}

typedef struct { State s; int32_t parent, depth; Edge in; } Node;

static int run_best(Ctx *c, const State *root) {
    size_t capn = 4096, caph = 4096, nh = 0, nn = 0;
    Node *nodes = malloc(capn * sizeof(Node));
    HeapItem *heap = malloc(caph * sizeof(HeapItem));
    int rc = 0;
    Child ch[64];
    if (!nodes || !heap) { rc = -1; goto done; }
    Key k = key_of(c, root);
    if (table_add(c, &k, hash_key(&k)) < 0) { rc = -1; goto done; }
    c->nodes = 1;
    nodes[0].s = *root; nodes[0].parent = -1; nodes[0].depth = 0; nn = 1;
    heap[0].score = 0; heap[0].idx = 0; nh = 1;
    while (nh) {
        HeapItem it = heap[0];
        HeapItem last = heap[--nh];
        size_t i = 0;
        for (;;) {  /* sift the last item down from the root */
            size_t l = 2 * i + 1, m = i;
            HeapItem best = last;
            if (l < nh && heap_less(heap[l], best)) { m = l; best = heap[l]; }
            if (l + 1 < nh && heap_less(heap[l + 1], best)) { m = l + 1; best = heap[l + 1]; }
            if (m == i) break;
            heap[i] = heap[m]; i = m;
        }
        if (nh) heap[i] = last;
        State base = nodes[it.idx].s;
        int d1 = nodes[it.idx].depth + 1;
        int ne = children(c, &base, ch);
        for (int j = 0; j < ne; j++) {
            if (ch[j].won) {
                size_t len = 1;
                for (int32_t p = it.idx; p > 0; p = nodes[p].parent) len++;
                int32_t *path = malloc(len * sizeof(int32_t));  /* node indexes, root last */
                c->mv = malloc(3 * (MAXMV * len + c->nprefix) * sizeof(int32_t));
                if (!path || !c->mv) { free(path); rc = -1; goto done; }
                size_t q = 0;
                for (int32_t p = it.idx; p > 0; p = nodes[p].parent) path[q++] = p;
                memcpy(c->mv, c->prefix, 3 * c->nprefix * sizeof(int32_t));
                size_t m = c->nprefix;
                while (q--) {
                    int32_t p = path[q];
                    m += replay(c, nodes[nodes[p].parent].s, nodes[p].in, c->mv + 3 * m);
                }
                m += replay(c, base, ch[j].e, c->mv + 3 * m);
                free(path);
                c->nmv = m;
                rc = 1; goto done;
            }
            int add = table_add(c, &ch[j].k, ch[j].h);
            if (add < 0) { rc = -1; goto done; }
            if (!add) continue;
            if (out_of_budget(c)) { rc = 2; goto done; }
            c->nodes++;
            State s = base;
            apply(c, &s, ch[j].e);
            if (pile_up(c, &s)) continue;  /* a dead end: counted, never expanded */
            if (nn == capn) {
                Node *g = realloc(nodes, 2 * capn * sizeof(Node));
                if (!g) { rc = -1; goto done; }
                nodes = g; capn *= 2;
            }
            nodes[nn].s = s; nodes[nn].parent = it.idx; nodes[nn].depth = d1; nodes[nn].in = ch[j].e;
            if (nh == caph) {
                HeapItem *g = realloc(heap, 2 * caph * sizeof(HeapItem));
                if (!g) { rc = -1; goto done; }
                heap = g; caph *= 2;
            }
            HeapItem x = { estimate(c, &s, d1), (int32_t)nn };
            size_t q = nh++;
            while (q > 0 && heap_less(x, heap[(q - 1) / 2])) {
                heap[q] = heap[(q - 1) / 2]; q = (q - 1) / 2;
            }
            heap[q] = x;
            nn++;
        }
    }
    rc = 0;
done:
    free(nodes); free(heap);
    return rc;
}

/* ---------------------------------------------------------------- interface */

void *op_new(void) { return calloc(1, sizeof(Ctx)); }

void op_free(void *h) {
    Ctx *c = h;
    if (!c) return;
    free(c->tab); free(c->mv); free(c);
}

long long op_nodes(void *h) { return ((Ctx *)h)->nodes; }
long long op_moves_len(void *h) { return (long long)((Ctx *)h)->nmv; }
void op_moves(void *h, int32_t *out) {
    Ctx *c = h;
    memcpy(out, c->mv, 3 * c->nmv * sizeof(int32_t));
}

/* cfg: game nt F[16] T[nt] R[4] S W reserve_to_space total.
 * pos: 16 foundation heights; Sixes and Sevens: their 16 suits; nt tableau cards (EMPTY:
 * empty); Double Aces and Kings: 4 reserves as height then cards bottom to top; then the waste
 * length k, nseq, and nseq cards (waste bottom-to-top, stock top-to-bottom). Cards are ranks
 * in Double Aces and Kings. Returns -1 for a position play cannot reach. */
static int setup(Ctx *c, State *sp, const int32_t *cfg, const int32_t *pos) {
    State s; memset(&s, 0, sizeof s);
    memset(s.t, EMPTY, sizeof s.t);
    int i = 0;
    c->game = cfg[i++]; c->nt = cfg[i++];
    int dak = c->game == DAK;
    if ((c->game != DAK && c->game != SIXES) || c->nt != (dak ? 8 : 9)) return -1;
    for (int f = 0; f < NF; f++) c->fidx[f] = cfg[i++];
    for (int t = 0; t < c->nt; t++) c->tidx[t] = cfg[i++];
    for (int r = 0; r < NR; r++) c->ridx[r] = cfg[i++];
    c->S = cfg[i++]; c->W = cfg[i++]; c->r2s = cfg[i++]; c->total = cfg[i++];
    int maxcard = dak ? 13 : 51;
    i = 0;
    for (int f = 0; f < NF; f++) {
        if (pos[i] < (dak ? 0 : 1) || pos[i] > (dak ? 13 : 7)) return -1;
        s.h[f] = (uint8_t)pos[i++]; s.home += s.h[f];
    }
    if (!dak)
        for (int f = 0; f < NF; f++) {
            if (pos[i] < 0 || pos[i] > 3) return -1;
            c->fsuit[f] = (uint8_t)pos[i++];
        }
    for (int t = 0; t < c->nt; t++) {
        int x = pos[i++];
        if (x != EMPTY && (x < (dak ? 1 : 0) || x > maxcard)) return -1;
        s.t[t] = (uint8_t)x;
    }
    if (dak)
        for (int r = 0; r < NR; r++) {
            int n = pos[i++];
            if (n < 0 || n > RH) return -1;
            s.r[r] = (uint8_t)n;
            for (int j = 0; j < n; j++) c->res[r][j] = (uint8_t)pos[i++];
        }
    int k = pos[i++];
    c->nseq = pos[i++];
    if (c->nseq > (dak ? 148 : 128) || k < 0 || k > c->nseq) return -1;  /* (the key's room) */
    for (int j = 0; j < c->nseq; j++) {
        if (pos[i] < 0 || pos[i] > maxcard) return -1;
        c->seq[j] = (uint8_t)pos[i++];
    }
    for (int j = 0; j < k; j++) s.wb[j >> 6] |= 1ull << (j & 63);
    s.L = (uint8_t)k; s.wlen = (uint8_t)k;
    for (int a = 0; a < NR; a++)
        for (int b = 0; b < NR; b++) {
            int n = 0;
            while (n < s.r[a] && n < s.r[b] && c->res[a][n] == c->res[b][n]) n++;
            c->lcp[a][b] = (uint8_t)n;
        }
    for (int x = 0; x < 53; x++) c->nxt[c->nseq][x] = (uint8_t)c->nseq;
    for (int p = c->nseq - 1; p >= 0; p--)
        for (int x = 0; x < 53; x++)
            c->nxt[p][x] = c->seq[p] == x ? (uint8_t)p : c->nxt[p + 1][x];
    for (int j = 0; j < k; j++) emb_push(c, &s, c->seq[j]);  /* seq[0..k) embeds as itself */
    /* a tableau pile is empty only once nothing can refill it: the positions play reaches */
    int refill = k < c->nseq || (!dak && k > 0);
    for (int t = 0; t < c->nt; t++) if (s.t[t] == EMPTY && refill) return -1;
    *sp = s;
    return 0;
}

int op_solve(void *h, const int32_t *cfg, const int32_t *pos, int mode, int dead,
             long long max_nodes, double seconds, unsigned shuffle_seed) {
    Ctx *c = h;
    State s;
    if (setup(c, &s, cfg, pos) < 0) return -1;
    c->nprefix = close(c, &s, c->prefix);  /* the root's safe moves */
    c->max_nodes = max_nodes;
    c->deadline = seconds > 0 ? now() + seconds : 0;
    c->nodes = 0;
    free(c->tab); c->tab = NULL; c->tabsize = c->tabused = 0;
    free(c->mv); c->mv = NULL; c->nmv = 0;
    if (s.home == c->total) {
        c->mv = malloc(3 * (c->nprefix + 1) * sizeof(int32_t));
        if (!c->mv) return -1;
        memcpy(c->mv, c->prefix, 3 * c->nprefix * sizeof(int32_t));
        c->nmv = c->nprefix;
        return 1;
    }
    c->deadcheck = dead;
    c->rng = shuffle_seed;
    c->shuffled = mode != 1 && shuffle_seed != 0;  /* depth-first only */
    if (pile_up(c, &s)) { c->nodes = 1; return 0; }  /* lost at the start */
    int rc = mode == 1 ? run_best(c, &s) : run_dfs(c, &s);
    if (c->oom) rc = -1;
    return rc;
}

/* The edges out of a position as engine triples (3 ints each, at most 64 edges), their count,
 * or -1: for the tests, which compare them with the Python search's. */
int op_edges(void *h, const int32_t *cfg, const int32_t *pos, int32_t *out) {
    Ctx *c = h;
    State s;
    Edge es[64];
    if (setup(c, &s, cfg, pos) < 0) return -1;
    int n = edges(c, &s, es);
    for (int i = 0; i < n; i++) emit(c, es[i], out + 3 * i);
    return n;
}
