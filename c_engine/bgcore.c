/* Backgammon move generation and Tesauro encoding in C.
 *
 * Same rules and board convention as backgammon_engine.py (gnubg's): a board is
 * int8[2][25]; row 1 is the side on roll, row 0 its opponent; index 0..23 is
 * that side's own point 1..24, index 24 its bar.  All scratch memory belongs to
 * one call (heap or caller buffers): nothing static, so calls from several
 * threads never share state.
 */
#include "bgcore.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BITS 13
#define HASH_SIZE (1 << HASH_BITS)

typedef struct {
    int8_t me[25];
    int8_t opp[25];
} pos_t;

/* Per-call generator state; results live here until copied out. */
typedef struct {
    pos_t res[BG_MAX_MOVES];
    int8_t steps[BG_MAX_MOVES][8];
    int8_t nsteps[BG_MAX_MOVES];
    int8_t first_die[BG_MAX_MOVES];
    uint32_t table[HASH_SIZE]; /* (stamp << 13) | index; stamp 0 never used */
    uint32_t stamp;
    int n;
    int best;
    int overflow;
    int8_t cur_steps[8];
} gen_t;

static gen_t *gen_new(void) {
    gen_t *g = (gen_t *)malloc(sizeof(gen_t));
    if (g) {
        memset(g->table, 0, sizeof(g->table));
        g->stamp = 0;
    }
    return g;
}

/* Forget all results: a new stamp invalidates every hash slot in O(1). */
static void gen_reset(gen_t *g) {
    g->n = 0;
    g->stamp++;
    if (g->stamp >= (1u << (32 - HASH_BITS))) {
        memset(g->table, 0, sizeof(g->table));
        g->stamp = 1;
    }
}

static inline uint64_t load64(const int8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t hash_pos(const pos_t *p) {
    const int8_t *b = (const int8_t *)p;
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 48; i += 8) {
        h ^= load64(b + i);
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    h ^= (uint64_t)(uint8_t)b[48] | ((uint64_t)(uint8_t)b[49] << 8);
    h *= 0x94D049BB133111EBull;
    h ^= h >> 32;
    return (uint32_t)h;
}

static void record(gen_t *g, const pos_t *p, int depth, int first_die) {
    if (depth < g->best)
        return;
    if (depth > g->best) {
        g->best = depth;
        gen_reset(g);
    }
    uint32_t slot = hash_pos(p) & (HASH_SIZE - 1);
    const uint32_t mask = HASH_SIZE - 1;
    for (;;) {
        uint32_t e = g->table[slot];
        if ((e >> HASH_BITS) != g->stamp)
            break;
        if (memcmp(&g->res[e & mask], p, sizeof(pos_t)) == 0)
            return;
        slot = (slot + 1) & mask;
    }
    if (g->n >= BG_MAX_MOVES) {
        g->overflow = 1;
        return;
    }
    int k = g->n++;
    g->table[slot] = (g->stamp << HASH_BITS) | (uint32_t)k;
    g->res[k] = *p;
    memcpy(g->steps[k], g->cur_steps, 8);
    g->nsteps[k] = (int8_t)depth;
    g->first_die[k] = (int8_t)first_die;
}

static inline int any_checkers(const int8_t *row, int from, int to) {
    for (int i = from; i < to; i++)
        if (row[i])
            return 1;
    return 0;
}

/* Depth-first over dice[depth..nd); for doubles only non-increasing sources are
 * tried (any set of equal steps can be played in that order), which removes
 * most duplicate paths without losing a result. */
static void search(gen_t *g, pos_t *p, const int *dice, int nd, int depth, int max_src, int is_double) {
    if (depth == nd) {
        record(g, p, depth, dice[0]);
        return;
    }
    const int die = dice[depth];
    int moved = 0;
    int src_hi = p->me[24] ? 24 : (is_double ? max_src : 23);
    int src_lo = p->me[24] ? 24 : 0;
    int all_home = !any_checkers(p->me, 6, 25);
    for (int src = src_hi; src >= src_lo; src--) {
        if (!p->me[src])
            continue;
        int dst = src - die;
        int hit = 0;
        if (dst < 0) {
            if (!all_home)
                continue;
            if (dst < -1 && any_checkers(p->me, src + 1, 6))
                continue;
            p->me[src]--;
        } else {
            int oi = 23 - dst;
            if (p->opp[oi] >= 2)
                continue;
            hit = p->opp[oi] == 1;
            p->me[src]--;
            p->me[dst]++;
            if (hit) {
                p->opp[oi] = 0;
                p->opp[24]++;
            }
        }
        moved = 1;
        g->cur_steps[2 * depth] = (int8_t)(src + 1);
        g->cur_steps[2 * depth + 1] = (int8_t)(dst < 0 ? 0 : dst + 1);
        search(g, p, dice, nd, depth + 1, src, is_double);
        /* undo */
        p->me[src]++;
        if (dst >= 0) {
            p->me[dst]--;
            if (hit) {
                p->opp[23 - dst] = 1;
                p->opp[24]--;
            }
        }
    }
    if (!moved)
        record(g, p, depth, depth ? dice[0] : 0);
}

/* All distinct results of one roll into g (g->n of them). */
static void generate(gen_t *g, const int8_t *board, int d1, int d2) {
    pos_t p;
    memcpy(p.opp, board, 25);
    memcpy(p.me, board + 25, 25);
    g->best = -1;
    g->overflow = 0;
    gen_reset(g);
    memset(g->cur_steps, 0, 8);
    if (d1 == d2) {
        int dice[4] = {d1, d1, d1, d1};
        search(g, &p, dice, 4, 0, 23, 1);
        return;
    }
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    int a[2] = {hi, lo}, b[2] = {lo, hi};
    search(g, &p, a, 2, 0, 23, 0);
    search(g, &p, b, 2, 0, 23, 0);
    if (g->best == 1) {
        /* only one die can be played: keep the larger die's plays if there are any */
        int any_hi = 0;
        for (int k = 0; k < g->n; k++)
            any_hi |= g->first_die[k] == hi;
        if (any_hi) {
            int m = 0;
            for (int k = 0; k < g->n; k++) {
                if (g->first_die[k] != hi)
                    continue;
                if (m != k) {
                    g->res[m] = g->res[k];
                    memcpy(g->steps[m], g->steps[k], 8);
                    g->nsteps[m] = g->nsteps[k];
                    g->first_die[m] = g->first_die[k];
                }
                m++;
            }
            g->n = m;
        }
    }
}

int bg_check_board(const int8_t *board, int *where) {
    for (int s = 0; s < 2; s++) {
        int total = 0;
        for (int i = 0; i < 25; i++) {
            int v = board[25 * s + i];
            if (v < 0) {
                *where = 25 * s + i;
                return BG_ERR_NEGATIVE;
            }
            total += v;
        }
        if (total > 15) {
            *where = s;
            return BG_ERR_TOO_MANY;
        }
    }
    for (int i = 0; i < 24; i++) {
        if (board[25 + i] > 0 && board[23 - i] > 0) {
            *where = i;
            return BG_ERR_SAME_POINT;
        }
    }
    return 0;
}

static inline int check_dice(int d1, int d2) {
    return (d1 >= 1 && d1 <= 6 && d2 >= 1 && d2 <= 6) ? 0 : BG_ERR_DICE;
}

/* The four Tesauro units of a point holding n checkers (n = 0..15). */
static const float POINT_UNITS[16][4] = {
    {0, 0, 0, 0},   {1, 0, 0, 0},   {1, 1, 0, 0},   {1, 1, 1, 0},   {1, 1, 1, 0.5f}, {1, 1, 1, 1},
    {1, 1, 1, 1.5f}, {1, 1, 1, 2},   {1, 1, 1, 2.5f}, {1, 1, 1, 3},   {1, 1, 1, 3.5f}, {1, 1, 1, 4},
    {1, 1, 1, 4.5f}, {1, 1, 1, 5},   {1, 1, 1, 5.5f}, {1, 1, 1, 6}};

/* Table copies instead of branches: every unit is written, so no memset is needed.
 * Counts are validated to 0..15 before any board gets here. */
static inline void encode_row(const int8_t *row, float *out) {
    for (int i = 0; i < 24; i++)
        memcpy(out + 4 * i, POINT_UNITS[row[i] & 15], 4 * sizeof(float));
}

static inline int row_sum(const int8_t *row) {
    int s = 0;
    for (int i = 0; i < 25; i++)
        s += row[i];
    return s;
}

/* 196 Tesauro inputs from the side on roll ("me"). */
static inline void encode_sides(const int8_t *me, const int8_t *opp, float *out) {
    encode_row(me, out);
    encode_row(opp, out + 96);
    out[192] = (float)me[24] * 0.5f;
    out[193] = (float)(15 - row_sum(me)) / 15.0f;
    out[194] = (float)opp[24] * 0.5f;
    out[195] = (float)(15 - row_sum(opp)) / 15.0f;
}

void bg_encode_batch(const int8_t *boards, int n, float *out, int stride, int on_roll_row) {
    for (int k = 0; k < n; k++) {
        const int8_t *b = boards + 50 * k;
        const int8_t *me = on_roll_row ? b + 25 : b;
        const int8_t *opp = on_roll_row ? b : b + 25;
        encode_sides(me, opp, out + (size_t)stride * k);
    }
}

int bg_legal_moves(const int8_t *board, int d1, int d2, int8_t *out_boards, int8_t *out_steps,
                   int8_t *out_nsteps, int cap, int *where) {
    int err = bg_check_board(board, where);
    if (err)
        return err;
    if (check_dice(d1, d2))
        return BG_ERR_DICE;
    gen_t *g = gen_new();
    if (!g)
        return BG_ERR_NOMEM;
    generate(g, board, d1, d2);
    int n = g->n;
    if (g->overflow || n > cap) {
        free(g);
        return BG_ERR_CAPACITY;
    }
    for (int k = 0; k < n; k++) {
        memcpy(out_boards + 50 * k, g->res[k].opp, 25);
        memcpy(out_boards + 50 * k + 25, g->res[k].me, 25);
        memcpy(out_steps + 8 * k, g->steps[k], 8);
        out_nsteps[k] = g->nsteps[k];
    }
    free(g);
    return n;
}

int bg_expand_batch(const int8_t *boards, const int8_t *dice, int n, int8_t *out_boards,
                    float *out_feats, int feat_stride, int on_roll_row, int32_t *offsets,
                    int out_cap, int *where) {
    gen_t *g = gen_new();
    if (!g)
        return BG_ERR_NOMEM;
    int total = offsets[0];
    int done = 0;
    for (; done < n; done++) {
        const int8_t *b = boards + 50 * done;
        int d1 = dice[2 * done], d2 = dice[2 * done + 1];
        int err = bg_check_board(b, where);
        if (!err && check_dice(d1, d2))
            err = BG_ERR_DICE;
        if (err) {
            *where = done;
            free(g);
            return err;
        }
        generate(g, b, d1, d2);
        if (g->overflow) {
            *where = done;
            free(g);
            return BG_ERR_CAPACITY;
        }
        if (total + g->n > out_cap)
            break; /* caller grows the buffers and resumes at `done` */
        for (int k = 0; k < g->n; k++) {
            int8_t *ob = out_boards + 50 * (size_t)(total + k);
            memcpy(ob, g->res[k].opp, 25);
            memcpy(ob + 25, g->res[k].me, 25);
            if (out_feats) {
                float *of = out_feats + (size_t)feat_stride * (total + k);
                if (on_roll_row)
                    encode_sides(g->res[k].me, g->res[k].opp, of);
                else
                    encode_sides(g->res[k].opp, g->res[k].me, of);
            }
        }
        total += g->n;
        offsets[done + 1] = total;
    }
    free(g);
    return done;
}

/* ------------------------------------------------------------------ first layer by deltas
 *
 * A candidate differs from the pre-move board on a few points only, so its first-layer
 * pre-activation W1 x + b1 is the pre-move board's (computed once per input) plus the
 * columns of W1 for the inputs that changed, times the change: about 5 columns instead
 * of 196.  Each candidate's row then gets the ReLU (cheaper here than a torch pass).  Both boards are read from the side that will be on roll after the move,
 * exactly as the candidates are encoded for the dense path.  The extra inputs (cube,
 * columns 196..) are the same for every candidate of an input and go into the base. */

#define BG_MAX_TERMS (BG_NUM_FEATURES + BG_MAX_EXTRA)

#define BG_INLINE static inline __attribute__((always_inline))

/* Eight floats (GCC/clang vector extensions), lowered to whatever width the clone
 * has; the helpers are always inlined, so the ABI note for SSE-only code is moot. */
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8si __attribute__((vector_size(32)));
#pragma GCC diagnostic ignored "-Wpsabi"

/* A sparse input vector: sum of d[k] times column col[k] of W1. */
typedef struct {
    int n;
    int col[BG_MAX_TERMS];
    float d[BG_MAX_TERMS];
} terms_t;

/* Adds the term unless d is 0, without a branch (which of a point's units change is
 * hard to predict, and mispredictions were most of the bookkeeping's cost). */
BG_INLINE void push(terms_t *t, int col, float d) {
    t->col[t->n] = col;
    t->d[t->n] = d;
    t->n += d != 0.0f;
}

/* The point units that differ between `old` and `now` checkers on the 24 points; the
 * rows are compared eight points at a time, since a move changes only a few. */
BG_INLINE void point_terms(const int8_t *old, const int8_t *now, int unit0, terms_t *t) {
    for (int w = 0; w < 24; w += 8) {
        uint64_t x = load64(old + w) ^ load64(now + w);
        while (x) {
            int byte = __builtin_ctzll(x) >> 3;
            x &= ~(0xFFull << (8 * byte));
            int i = w + byte;
            const float *a = POINT_UNITS[old[i] & 15], *b = POINT_UNITS[now[i] & 15];
            for (int u = 0; u < 4; u++)
                push(t, unit0 + 4 * i + u, b[u] - a[u]);
        }
    }
}

BG_INLINE void scalar_term(float old, float now, int col, terms_t *t) {
    push(t, col, now - old);
}


BG_INLINE v8f load8(const float *p) {
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}

BG_INLINE void store8(float *p, v8f v) {
    memcpy(p, &v, sizeof v);
}

/* max(0, v) as a bit mask: (a > 0) is all ones where true */
BG_INLINE v8f relu8(v8f a) {
    const v8f zero = {0};
    return (v8f)((v8si)a & (a > zero));
}

/* out = start + sum_k d[k] W1[:, col[k]] (then max(0, .) if `relu`), 64 floats at a
 * time in eight vector accumulators (enough independent sums to hide the adds'
 * latency), so each column is read once and every sum runs in the order of k (the same
 * bits for every vector width and for the scalar tail). */
BG_INLINE void apply_terms(float *restrict out, const float *restrict start, const float *restrict w1t,
                           const terms_t *t, int hidden, int relu) {
    const int n = t->n;
    const int *col = t->col;
    const float *d = t->d;
    int h0 = 0;
    for (; h0 + 64 <= hidden; h0 += 64) {
        v8f a[8];
        for (int j = 0; j < 8; j++)
            a[j] = load8(start + h0 + 8 * j);
        for (int k = 0; k < n; k++) {
            const float *c = w1t + (size_t)hidden * col[k] + h0;
            const float dk = d[k];
            for (int j = 0; j < 8; j++)
                a[j] += dk * load8(c + 8 * j);
        }
        for (int j = 0; j < 8; j++)
            store8(out + h0 + 8 * j, relu ? relu8(a[j]) : a[j]);
    }
    for (; h0 + 8 <= hidden; h0 += 8) {
        v8f a0 = load8(start + h0);
        for (int k = 0; k < n; k++)
            a0 += d[k] * load8(w1t + (size_t)hidden * col[k] + h0);
        store8(out + h0, relu ? relu8(a0) : a0);
    }
    for (; h0 < hidden; h0++) {
        float a = start[h0];
        for (int k = 0; k < n; k++)
            a += d[k] * w1t[(size_t)hidden * col[k] + h0];
        out[h0] = relu && !(a > 0.0f) ? 0.0f : a;
    }
}

/* Pre-activation of one board seen with `me` on roll, plus extra inputs. */
BG_INLINE void base_pre(const int8_t *me, const int8_t *opp, const float *extra, int n_extra,
                        const float *w1t, const float *b1, int hidden, terms_t *t, float *out) {
    static const int8_t empty[25] = {0};
    t->n = 0;
    point_terms(empty, me, 0, t);
    point_terms(empty, opp, 96, t);
    scalar_term(0.0f, (float)me[24] * 0.5f, 192, t);
    scalar_term(0.0f, (float)(15 - row_sum(me)) / 15.0f, 193, t);
    scalar_term(0.0f, (float)opp[24] * 0.5f, 194, t);
    scalar_term(0.0f, (float)(15 - row_sum(opp)) / 15.0f, 195, t);
    for (int j = 0; j < n_extra; j++)
        scalar_term(0.0f, extra[j], BG_NUM_FEATURES + j, t);
    apply_terms(out, b1, w1t, t, hidden, 0);
}

/* The arithmetic is all sums of weight columns over `hidden` floats: compiled once per
 * vector width and picked at load time by the CPU (GCC function multi-versioning), as
 * the build stays portable (no -march=native) and SSE2 alone is several times slower.
 * Without FMA contraction (ISO C mode) every version gives the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BG_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define BG_VECTOR_CLONES
#endif

int bg_expand_first_layer(const int8_t *boards, const int8_t *dice, int n, const float *extra, int n_extra,
                          const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                          float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where) {
    return bg_expand_first_layer_ex(boards, dice, n, extra, n_extra, w1t, b1, hidden, out_boards, out_act,
                                    on_roll_row, offsets, out_cap, where, 1);
}

int bg_expand_first_layer_ex(const int8_t *boards, const int8_t *dice, int n, const float *extra, int n_extra,
                             const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                             float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where,
                             int relu) {
    return bg_expand_first_layer_distinct(boards, dice, n, extra, n_extra, w1t, b1, hidden, out_boards, out_act,
                                          on_roll_row, offsets, out_cap, where, relu, NULL, NULL);
}

/* The after-states already given a hidden row in the current run of identical inputs (the
 * 21 rolls of one position): open addressing on hash_pos, a slot live when its stamp is the
 * run's; it holds the result row whose board is the key. */
#define SEEN_BITS 13
#define SEEN_SIZE (1 << SEEN_BITS)
typedef struct {
    uint32_t stamp[SEEN_SIZE];
    int32_t row[SEEN_SIZE];
    uint32_t now; /* the current run's stamp (0 is never one) */
    int used;
} seen_t;

/* The slot of board `ob` (50 bytes, written at result row ob's place in out_boards): found
 * (*found = 1) or the empty one where it goes.  -1 when the table is half full (no more
 * sharing in this run: still correct, only less saved). */
static int seen_slot(const seen_t *t, const pos_t *p, const int8_t *ob, const int8_t *out_boards, int *found) {
    *found = 0;
    if (t->used >= SEEN_SIZE / 2)
        return -1;
    uint32_t slot = hash_pos(p) & (SEEN_SIZE - 1);
    while (t->stamp[slot] == t->now) {
        if (memcmp(out_boards + 50 * (size_t)t->row[slot], ob, 50) == 0) {
            *found = 1;
            return (int)slot;
        }
        slot = (slot + 1) & (SEEN_SIZE - 1);
    }
    return (int)slot;
}

BG_VECTOR_CLONES
int bg_expand_first_layer_distinct(const int8_t *boards, const int8_t *dice, int n, const float *extra,
                                   int n_extra, const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                                   float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where,
                                   int relu, int32_t *out_src, int *n_rows) {
    if (n_extra < 0 || n_extra > BG_MAX_EXTRA)
        return BG_ERR_ARGS;
    gen_t *g = gen_new();
    float *base = (float *)malloc(sizeof(float) * (size_t)hidden);
    terms_t *t = (terms_t *)malloc(sizeof(terms_t));
    seen_t *seen = out_src ? (seen_t *)calloc(1, sizeof(seen_t)) : NULL;
    if (!g || !base || !t || (out_src && !seen)) {
        free(g);
        free(base);
        free(t);
        free(seen);
        return BG_ERR_NOMEM;
    }
    int total = offsets[0];
    int done = 0, err = 0;
    const int8_t *prev = NULL; /* 1-ply repeats each position for 21 rolls: reuse its base */
    for (; done < n; done++) {
        const int8_t *b = boards + 50 * done;
        const float *ex = extra + (size_t)n_extra * done;
        int d1 = dice[2 * done], d2 = dice[2 * done + 1];
        err = bg_check_board(b, where);
        if (!err && check_dice(d1, d2))
            err = BG_ERR_DICE;
        if (err)
            break;
        generate(g, b, d1, d2);
        if (g->overflow) {
            err = BG_ERR_CAPACITY;
            break;
        }
        if (total + g->n > out_cap)
            break; /* caller grows the buffers and resumes at `done` */
        /* the pre-move board as the next side on roll sees it (row 1 is the mover) */
        const int8_t *me0 = on_roll_row ? b + 25 : b, *opp0 = on_roll_row ? b : b + 25;
        const int fresh = !prev || memcmp(prev, b, 50) != 0 ||
                          (n_extra && memcmp(ex - n_extra, ex, sizeof(float) * (size_t)n_extra) != 0);
        if (fresh) {
            base_pre(me0, opp0, ex, n_extra, w1t, b1, hidden, t, base);
            if (seen) {
                seen->now++; /* a new run: forget the last one's after-states */
                seen->used = 0;
            }
        }
        prev = b;
        /* remember this input's after-states only when the run goes on (an input alike follows or
         * precedes): 0-ply's inputs all differ and pay nothing */
        const int share = seen && (!fresh || (done + 1 < n && memcmp(b, b + 50, 50) == 0 &&
                                              (!n_extra || memcmp(ex, ex + n_extra, sizeof(float) * (size_t)n_extra) == 0)));
        float me_off0 = (float)(15 - row_sum(me0)) / 15.0f, opp_off0 = (float)(15 - row_sum(opp0)) / 15.0f;
        for (int k = 0; k < g->n; k++) {
            const int row = total + k;
            int8_t *ob = out_boards + 50 * (size_t)row;
            memcpy(ob, g->res[k].opp, 25);
            memcpy(ob + 25, g->res[k].me, 25);
            int out_row = row;
            if (out_src) {
                int found = 0, slot = share ? seen_slot(seen, &g->res[k], ob, out_boards, &found) : -1;
                if (found) { /* the same after-state from an earlier roll: the same inputs, the same row */
                    out_src[row] = out_src[seen->row[slot]];
                    continue;
                }
                if (slot >= 0) {
                    seen->stamp[slot] = seen->now;
                    seen->row[slot] = row;
                    seen->used++;
                }
                out_row = (*n_rows)++;
                out_src[row] = out_row;
            }
            const int8_t *me = on_roll_row ? g->res[k].me : g->res[k].opp;
            const int8_t *opp = on_roll_row ? g->res[k].opp : g->res[k].me;
            t->n = 0;
            point_terms(me0, me, 0, t);
            point_terms(opp0, opp, 96, t);
            scalar_term((float)me0[24] * 0.5f, (float)me[24] * 0.5f, 192, t);
            scalar_term(me_off0, (float)(15 - row_sum(me)) / 15.0f, 193, t);
            scalar_term((float)opp0[24] * 0.5f, (float)opp[24] * 0.5f, 194, t);
            scalar_term(opp_off0, (float)(15 - row_sum(opp)) / 15.0f, 195, t);
            apply_terms(out_act + (size_t)hidden * out_row, base, w1t, t, hidden, relu);
        }
        total += g->n;
        offsets[done + 1] = total;
    }
    free(g);
    free(base);
    free(t);
    free(seen);
    if (err) {
        *where = done;
        return err;
    }
    return done;
}

/* ------------------------------------------------------------------ board features
 * The hand-made inputs of features.py, computed the same way (features.py is the
 * reference and documents each; tests hold the two equal).  Each side in its own
 * numbering: own[i] = its checkers on point i + 1, own[24] = its bar. */

#define BF_PER_SIDE 10

static void bf_hits(const int8_t *own, const int8_t *opp, double *hit_p, double *pip_loss) {
    /* Bit y of a mask: the side's point y (1..24).  The opponent's checkers sit at
     * x = 25 - (their point) and move up from x = 0 (their bar), so a die d shifts by d. */
    uint32_t blot = 0, open = 0x3ffffffu, src_board = 0;
    for (int y = 1; y <= 24; y++) {
        if (own[y - 1] == 1)
            blot |= 1u << y;
        if (own[y - 1] >= 2)
            open &= ~(1u << y);
        if (opp[24 - y] > 0)
            src_board |= 1u << y;
    }
    int bar = opp[24];
    uint32_t src = src_board | (bar > 0 ? 1u : 0u);
    double hp = 0.0, loss = 0.0;
    for (int d1 = 1; d1 <= 6; d1++) {
        for (int d2 = d1; d2 <= 6; d2++) {
            uint32_t reach = 0;
            if (d1 != d2) {
                int o1 = (open >> d1) & 1, o2 = (open >> d2) & 1;
                if (bar == 0)
                    reach = (src << d1) | (src << d2) | ((src << (d1 + d2)) & ((open << d2) | (open << d1)));
                else if (bar == 1)  /* the entering checker may go on; another uses the die left */
                    reach = (1u << d1) | (1u << d2) | ((o1 || o2) ? 1u << (d1 + d2) : 0u)
                            | (o2 ? src_board << d1 : 0u) | (o1 ? src_board << d2 : 0u);
                else
                    reach = (1u << d1) | (1u << d2);
            } else {
                int d = d1, entered = (open >> d) & 1;
                int free_dice = bar > 0 ? (entered ? 4 - bar : 0) : 4;
                if (free_dice < 0)
                    free_dice = 0;
                uint32_t path = src_board;  /* checkers on the board: k steps through open points */
                for (int k = 1; k <= free_dice; k++) {
                    path <<= d;
                    reach |= path;
                    path &= open;
                }
                path = (bar > 0 && entered) ? 1u : 0u;  /* the entering checker: up to free + 1 steps */
                for (int k = 1; k <= free_dice + 1 && k <= 4; k++) {
                    path <<= d;
                    reach |= path;
                    path &= open;
                }
            }
            uint32_t hit = reach & blot;
            if (hit) {
                double w = (d1 == d2 ? 1.0 : 2.0) / 36.0;
                hp += w;
                loss += w * (25 - __builtin_ctz(hit));  /* the rearmost blot hit costs most */
            }
        }
    }
    *hit_p = hp;
    *pip_loss = loss / 24.0;
}

static double bf_escape(const int8_t *opp, int back) {
    int blocked[26] = {0};
    for (int y = 1; y <= 24; y++)
        blocked[y] = opp[24 - y] >= 2;
    int wall = 0;
    for (int y = back - 12 > 1 ? back - 12 : 1; y < back; y++) {
        if (blocked[y]) {
            wall = y;
            break;
        }
    }
    if (wall == 0)
        return 1.0;
    double out = 0.0;
    for (int d1 = 1; d1 <= 6; d1++) {
        for (int d2 = d1; d2 <= 6; d2++) {
            int steps[4] = {d1, d2, d1, d1}, nsteps = d1 == d2 ? 4 : 2, ok = 0;
            for (int order = 0; order < (d1 == d2 ? 1 : 2) && !ok; order++) {
                int pos = back, alive = 1;
                for (int s = 0; s < nsteps; s++) {
                    pos -= (d1 == d2) ? d1 : steps[order ? 1 - s : s];
                    alive = alive && pos >= 1 && !blocked[pos];
                    if (alive && pos < wall)
                        ok = 1;
                }
            }
            out += (d1 == d2 ? 1.0 : 2.0) / 36.0 * ok;
        }
    }
    return out;
}

static void bf_side(const int8_t *own, const int8_t *opp, float *out) {
    int pips = 0, back = 0, anchor = 0, opp_back = 0, blots = 0, home = 0, run = 0, best = 0;
    for (int i = 0; i < 25; i++) {
        pips += own[i] * (i + 1);
        if (own[i] > 0)
            back = i + 1;
        if (opp[i] > 0)
            opp_back = i + 1;
    }
    for (int i = 0; i < 24; i++) {
        int made = own[i] >= 2;
        if (made)
            anchor = i + 1;
        if (made && i < 6)
            home++;
        blots += own[i] == 1;
        run = made ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    int front = 25 - opp_back, contact = 0;
    for (int i = 0; i < 25; i++)
        if (i + 1 > front)
            contact += own[i] * (i + 1 - front);
    double hit_p, pip_loss;
    bf_hits(own, opp, &hit_p, &pip_loss);
    out[0] = (float)(pips / 167.0);
    out[1] = (float)hit_p;
    out[2] = (float)pip_loss;
    out[3] = (float)(back / 25.0);
    out[4] = (float)(anchor / 24.0);
    out[5] = (float)(contact / 152.0);
    out[6] = (float)((best < 6 ? best : 6) / 6.0);
    out[7] = (float)(home / 6.0);
    out[8] = (float)bf_escape(opp, back);
    out[9] = (float)(blots / 15.0);
}

void bg_board_features_batch(const int8_t *boards, int n, float *out, int stride, int on_roll_row) {
    for (int k = 0; k < n; k++) {
        const int8_t *b = boards + 50 * k;
        const int8_t *me = on_roll_row ? b + 25 : b;
        const int8_t *opp = on_roll_row ? b : b + 25;
        float *o = out + (size_t)stride * k;
        bf_side(me, opp, o);
        bf_side(opp, me, o + BF_PER_SIDE);
    }
}
