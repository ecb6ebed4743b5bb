/* Loader, forward pass and 0-ply move choice for exported networks. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include "tdnet.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bgcore.h"

static uint32_t rd_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int fail(char *err, size_t errlen, const char *path, const char *what) {
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

FILE *tdnet_open_input(const char *path, const char *what, char *err, size_t errlen) {
    char why[128];
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer; it is refused below */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, sizeof why, "cannot open %s", what);
        fail(err, errlen, path, why);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        fail(err, errlen, path, "not a regular file (a folder, a FIFO, a socket or a device)");
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *fh = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "rb");
    if (!fh) {
        close(fd);
        snprintf(why, sizeof why, "cannot open %s", what);
        fail(err, errlen, path, why);
    }
    return fh;
}

int tdnet_load(const char *path, tdnet_t *net, char *err, size_t errlen) {
    memset(net, 0, sizeof(*net));
    FILE *fh = tdnet_open_input(path, "weights file", err, errlen);
    if (!fh)
        return -1;
    if (fseek(fh, 0, SEEK_END) != 0) {
        fclose(fh);
        return fail(err, errlen, path, "cannot read weights file");
    }
    long size = ftell(fh);
    rewind(fh);
    if (size < 36) {
        fclose(fh);
        return fail(err, errlen, path, "too short to be a TDBGNET file");
    }
    unsigned char *buf = (unsigned char *)malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, fh) != (size_t)size) {
        free(buf);
        fclose(fh);
        return fail(err, errlen, path, "cannot read weights file");
    }
    fclose(fh);
    int rc = -1;
    if (memcmp(buf, "TDBGNET1", 8) != 0) {
        fail(err, errlen, path, "wrong magic (not a TDBGNET1 weights file)");
        goto out;
    }
    uint32_t version = rd_u32(buf + 8), out_mode = rd_u32(buf + 12), game = rd_u32(buf + 16);
    if (version != 1 && version != 2) {
        snprintf(err, errlen, "%s: format version %u is not supported (this reader knows versions 1 and 2)", path,
                 version);
        goto out;
    }
    /* version 2 has the hidden activation at offset 24 and everything after it 4 bytes on */
    const size_t at = version == 2 ? 4 : 0;
    uint32_t activation = version == 2 ? rd_u32(buf + 24) : TDNET_RELU;
    uint32_t flags = rd_u32(buf + 20), n_in = rd_u32(buf + 24 + at), n_hidden = rd_u32(buf + 28 + at);
    if (out_mode > 2 || game > 2 || activation > TDNET_LEAKY_RELU || (n_in != 196 && n_in != 200) || n_hidden < 1 ||
        n_hidden > TDNET_MAX_LAYERS) {
        fail(err, errlen, path, "header values out of range");
        goto out;
    }
    size_t header = 32 + at + 4 * (size_t)n_hidden + 4;
    if ((size_t)size < header) {
        fail(err, errlen, path, "truncated header");
        goto out;
    }
    net->sizes[0] = (int)n_in;
    for (uint32_t i = 0; i < n_hidden; i++) {
        uint32_t h = rd_u32(buf + 32 + at + 4 * i);
        if (h < 1 || h > TDNET_MAX_WIDTH) {
            fail(err, errlen, path, "hidden layer size out of range");
            goto out;
        }
        net->sizes[i + 1] = (int)h;
    }
    uint32_t n_out = rd_u32(buf + 32 + at + 4 * n_hidden);
    if (n_out != (out_mode == TDNET_PROB5 ? 5u : 1u)) {
        fail(err, errlen, path, "output count does not match the output mode");
        goto out;
    }
    net->n_layers = (int)n_hidden + 1;
    net->sizes[net->n_layers] = (int)n_out;
    size_t floats = 0;
    net->max_width = 0;
    for (int l = 0; l < net->n_layers; l++) {
        floats += (size_t)net->sizes[l] * (size_t)net->sizes[l + 1] + (size_t)net->sizes[l + 1];
        if (net->sizes[l + 1] > net->max_width)
            net->max_width = net->sizes[l + 1];
    }
    if ((size_t)size != header + 4 * floats) {
        snprintf(err, errlen, "%s: size %ld bytes, the header describes %zu", path, size, header + 4 * floats);
        goto out;
    }
    net->blob = (float *)malloc(4 * floats);
    if (!net->blob) {
        fail(err, errlen, path, "out of memory");
        goto out;
    }
    const unsigned char *p = buf + header;
    for (size_t k = 0; k < floats; k++) {
        uint32_t u = rd_u32(p + 4 * k);
        memcpy(&net->blob[k], &u, 4);
        if (!isfinite(net->blob[k])) {
            free(net->blob);
            net->blob = NULL;
            fail(err, errlen, path, "weights contain NaN or infinity");
            goto out;
        }
    }
    /* weights arrive row-major (out x in); keep them transposed (in x out) for layer() */
    float *q = net->blob;
    for (int l = 0; l < net->n_layers; l++) {
        int in = net->sizes[l], outn = net->sizes[l + 1];
        float *tmp = (float *)malloc((size_t)in * outn * sizeof(float));
        if (!tmp) {
            free(net->blob);
            net->blob = NULL;
            fail(err, errlen, path, "out of memory");
            goto out;
        }
        for (int j = 0; j < outn; j++)
            for (int i = 0; i < in; i++)
                tmp[(size_t)i * outn + j] = q[(size_t)j * in + i];
        memcpy(q, tmp, (size_t)in * outn * sizeof(float));
        free(tmp);
        net->w[l] = q;
        q += (size_t)in * outn;
        net->b[l] = q;
        q += outn;
    }
    /* and a copy in panels of 16 outputs (panel t: in rows of W^T[:, 16 t .. 16 t + 15]), so
     * the weights layer() reads for one tile of outputs are contiguous */
    size_t pfloats = 0;
    for (int l = 0; l < net->n_layers; l++)
        pfloats += (size_t)(net->sizes[l + 1] / 16) * 16 * net->sizes[l];
    /* 64-byte aligned: a panel row is one cache line, read whole by one AVX-512 load */
    void *mem = NULL;
    net->panels = posix_memalign(&mem, 64, (pfloats + 16) * sizeof(float)) == 0 ? (float *)mem : NULL;
    if (!net->panels) {
        free(net->blob);
        net->blob = NULL;
        fail(err, errlen, path, "out of memory");
        goto out;
    }
    q = net->panels;
    for (int l = 0; l < net->n_layers; l++) {
        int in = net->sizes[l], outn = net->sizes[l + 1];
        net->wp[l] = q;
        for (int t = 0; t < outn / 16; t++)
            for (int i = 0; i < in; i++, q += 16)
                memcpy(q, net->w[l] + (size_t)i * outn + 16 * t, 16 * sizeof(float));
    }
    /* layers of fewer than 16 outputs (the head) also row-major, as dot products read them */
    size_t rfloats = 0;
    for (int l = 0; l < net->n_layers; l++)
        rfloats += net->sizes[l + 1] < 16 ? (size_t)net->sizes[l + 1] * net->sizes[l] : 0;
    net->rowwise = (float *)malloc((rfloats + 1) * sizeof(float));
    if (!net->rowwise) {
        free(net->blob), free(net->panels);
        net->blob = net->panels = NULL;
        fail(err, errlen, path, "out of memory");
        goto out;
    }
    q = net->rowwise;
    for (int l = 0; l < net->n_layers; l++) {
        int in = net->sizes[l], outn = net->sizes[l + 1];
        net->wr[l] = outn < 16 ? q : NULL;
        for (int j = 0; j < outn && outn < 16; j++)
            for (int i = 0; i < in; i++)
                *q++ = net->w[l][(size_t)i * outn + j];
    }
    net->output_mode = (int)out_mode;
    net->game_mode = (int)game;
    net->jacoby = (int)(flags & 1);
    net->activation = (int)activation;
    rc = 0;
out:
    free(buf);
    return rc;
}

void tdnet_free(tdnet_t *net) {
    free(net->blob);
    free(net->panels);
    free(net->rowwise);
    memset(net, 0, sizeof(*net));
}

size_t tdnet_scratch_floats(const tdnet_t *net, int n) { return 2 * (size_t)n * (size_t)net->max_width; }

/* ------------------------------------------------------------------ layers as small matrices
 *
 * y = act(x W^T + b) for all n rows at once (the candidates of one decision).  The rows go
 * in blocks of ROWS; a block skips the inputs that are zero in all of its rows (most
 * encoded inputs, and the ReLU units its candidates share as zero).  Outputs go in tiles
 * of 16; a tile's weights (a panel: 64 contiguous bytes per input, see tdnet_load) are
 * read for every block while they sit in cache, so each layer's weights come from memory
 * once per decision, and the tile's 4 x 16 sums stay in registers.  Every sum runs
 * b + x_i w_i over ascending i, the order of the one-row loop this replaced, so the result
 * has the same bits whatever the vector width, block or tile (no FMA: ISO C mode keeps
 * mul and add apart).  The head (fewer than 16 outputs) is one dot product per row. */

#define ROWS 4

#pragma GCC diagnostic ignored "-Wpsabi"
/* sixteen floats (GCC/clang vector extensions): one AVX-512 register, two AVX2 ones or four
 * SSE ones, whatever the clone of layer() has */
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16si __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) v16f load16(const float *p) {
    v16f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void store16(float *p, v16f v) { memcpy(p, &v, sizeof v); }

static inline __attribute__((always_inline)) v16f relu16(v16f a) {
    const v16f zero = {0};
    return (v16f)((v16si)a & (a > zero));
}

/* The inputs non-zero in any of `rows` rows of x (in floats each): their indices go to idx
 * in ascending order; returns how many.  any (in bytes) is scratch.  Inlined into the
 * vector clones of layer(), where the first two loops vectorise. */
static inline __attribute__((always_inline)) int nonzero_union(const float *x, int rows, int in, int *idx,
                                                               unsigned char *any) {
    for (int i = 0; i < in; i++)
        any[i] = x[i] != 0.0f;
    for (int r = 1; r < rows; r++) {
        const float *xr = x + (size_t)r * in;
        for (int i = 0; i < in; i++)
            any[i] |= xr[i] != 0.0f;
    }
    int m = 0;
    for (int i = 0; i < in; i++) { /* no branch: every index written, kept when non-zero */
        idx[m] = i;
        m += any[i];
    }
    return m;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define TDNET_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TDNET_VECTOR_CLONES
#endif

/* One layer for n rows.  Scratch: idx (ceil(n / ROWS) * in ints), cnt (ceil(n / ROWS)),
 * any (in bytes), zero (in floats, all 0: the rows a last block lacks).  wr: the weights
 * row-major (out x in), for layers of fewer than 16 outputs (the head). */
TDNET_VECTOR_CLONES
static void layer(const float *x, int n, int in, int out, const float *wt, const float *wp, const float *wr,
                  const float *b, float *y, int relu, int *idx, int *cnt, unsigned char *any, const float *zero) {
    if (out < 16) {
        /* the head: one dot product per row and output, 16 partial sums then added lane by
         * lane (a fixed order, so every clone gives the same bits) */
        for (int r = 0; r < n; r++) {
            const float *xr = x + (size_t)r * in;
            for (int j = 0; j < out; j++) {
                const float *w = wr + (size_t)j * in;
                v16f acc = {0};
                int i = 0;
                for (; i + 16 <= in; i += 16)
                    acc += load16(xr + i) * load16(w + i);
                float sum = 0.0f;
                for (int lane = 0; lane < 16; lane++)
                    sum += acc[lane];
                for (; i < in; i++)
                    sum += xr[i] * w[i];
                sum += b[j];
                y[(size_t)r * out + j] = relu && !(sum > 0.0f) ? 0.0f : sum;
            }
        }
        return;
    }
    const int nb = (n + ROWS - 1) / ROWS;
    for (int k = 0; k < nb; k++) {
        int rows = n - k * ROWS < ROWS ? n - k * ROWS : ROWS;
        cnt[k] = nonzero_union(x + (size_t)k * ROWS * in, rows, in, idx + (size_t)k * in, any);
    }
    int j0 = 0;
    for (; j0 + 16 <= out; j0 += 16) {
        const v16f bias = load16(b + j0);
        const float *panel = wp + (size_t)(j0 / 16) * in * 16;
        for (int k = 0; k < nb; k++) {
            const int *ib = idx + (size_t)k * in;
            const int m = cnt[k], rows = n - k * ROWS < ROWS ? n - k * ROWS : ROWS;
            const float *x0 = x + (size_t)k * ROWS * in, *x1 = rows > 1 ? x0 + in : zero;
            const float *x2 = rows > 2 ? x0 + 2 * (size_t)in : zero, *x3 = rows > 3 ? x0 + 3 * (size_t)in : zero;
            v16f a0 = bias, a1 = bias, a2 = bias, a3 = bias;
            for (int t = 0; t < m; t++) {
                const int i = ib[t];
                const v16f w = load16(panel + (size_t)i * 16);
                a0 += x0[i] * w, a1 += x1[i] * w, a2 += x2[i] * w, a3 += x3[i] * w;
            }
            v16f acc[ROWS] = {a0, a1, a2, a3};
            for (int r = 0; r < rows; r++)
                store16(y + (size_t)(k * ROWS + r) * out + j0, relu ? relu16(acc[r]) : acc[r]);
        }
    }
    /* the last out % 16 columns, one at a time */
    for (; j0 < out; j0++) {
        for (int k = 0; k < nb; k++) {
            const int *ib = idx + (size_t)k * in;
            const int m = cnt[k], rows = n - k * ROWS < ROWS ? n - k * ROWS : ROWS;
            for (int r = 0; r < rows; r++) {
                const float *xr = x + (size_t)(k * ROWS + r) * in;
                float acc = b[j0];
                for (int t = 0; t < m; t++)
                    acc += xr[ib[t]] * wt[(size_t)ib[t] * out + j0];
                y[(size_t)(k * ROWS + r) * out + j0] = relu && !(acc > 0.0f) ? 0.0f : acc;
            }
        }
    }
}

static inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* A hidden activation other than ReLU (which layer() and the C engine apply themselves)
 * on count floats; leaky ReLU's slope below zero is 0.01, as torch's default. */
static void activate(int activation, float *y, size_t count) {
    for (size_t i = 0; i < count; i++) {
        float v = y[i];
        y[i] = activation == TDNET_SIGMOID ? sigmoid(v)
             : activation == TDNET_TANH    ? tanhf(v)
             : activation == TDNET_LEAKY_RELU && v < 0.0f ? 0.01f * v
                                                          : v;
    }
}

/* Layers from `first` on: x holds n rows of layer `first`'s inputs; out gets the outputs. */
static int forward_from(const tdnet_t *net, int first, const float *in, int n, float *out, float *scratch) {
    int max_in = 0;
    for (int l = first; l < net->n_layers; l++)
        max_in = net->sizes[l] > max_in ? net->sizes[l] : max_in;
    size_t nb = (size_t)(n + ROWS - 1) / ROWS;
    int *idx = (int *)malloc(nb * max_in * sizeof(int));
    int *cnt = (int *)malloc(nb * sizeof(int));
    unsigned char *any = (unsigned char *)malloc((size_t)max_in);
    float *zero = (float *)calloc((size_t)max_in, sizeof(float));
    if (!idx || !cnt || !any || !zero) {
        free(idx), free(cnt), free(any), free(zero);
        return BG_ERR_NOMEM;
    }
    float *a = scratch, *c = scratch + (size_t)n * net->max_width;
    const float *x = in;
    for (int l = first; l < net->n_layers; l++) {
        int last = l == net->n_layers - 1;
        float *y = last ? out : (x == a ? c : a);
        int relu = !last && net->activation == TDNET_RELU;
        layer(x, n, net->sizes[l], net->sizes[l + 1], net->w[l], net->wp[l], net->wr[l], net->b[l], y, relu, idx, cnt,
              any, zero);
        if (!last && !relu)
            activate(net->activation, y, (size_t)n * net->sizes[l + 1]);
        x = y;
    }
    free(idx), free(cnt), free(any), free(zero);
    if (net->output_mode == TDNET_PROBABILITY) {
        for (int r = 0; r < n; r++)
            out[r] = sigmoid(out[r]);
    } else if (net->output_mode == TDNET_PROB5) {
        for (int r = 0; r < n; r++) {
            float *o = out + 5 * r;
            float win = sigmoid(o[0]), wg = win * sigmoid(o[1]), lg = (1.0f - win) * sigmoid(o[3]);
            float wbg = wg * sigmoid(o[2]), lbg = lg * sigmoid(o[4]);
            o[0] = win, o[1] = wg, o[2] = wbg, o[3] = lg, o[4] = lbg;
        }
    }
    return 0;
}

int tdnet_forward(const tdnet_t *net, const float *in, int n, float *out, float *scratch) {
    return forward_from(net, 0, in, n, out, scratch);
}

float tdnet_scalar(const tdnet_t *net, const float *row) {
    if (net->output_mode == TDNET_PROB5)
        return 2 * row[0] + row[1] + row[2] - row[3] - row[4] - 1;
    return row[0];
}

/* Value for the mover of a position whose opponent is on roll (row values from the net),
 * in double as scoring.py's Values.flip and .scalar (float64): 1 - p is exact there, and
 * rounding it to float could turn two different values into a tie. */
static double flipped_scalar(const tdnet_t *net, const float *row) {
    if (net->output_mode == TDNET_PROBABILITY)
        return 1.0 - (double)row[0];
    if (net->output_mode == TDNET_EQUITY)
        return -(double)row[0];
    /* prob5 flipped: (1 - win, lg, lbg, wg, wbg); equity 2 v0 + v1 + v2 - v3 - v4 - 1 */
    return 2 * (1.0 - (double)row[0]) + row[3] + row[4] - row[1] - row[2] - 1;
}

/* Points won by the mover whose row 1 is empty (1/2/3), as in backgammon_engine.game_result. */
static int win_points(const int8_t *after) {
    const int8_t *loser = after; /* row 0 */
    int sum = 0, deep = 0;
    for (int i = 0; i < 25; i++)
        sum += loser[i];
    for (int i = 18; i < 25; i++)
        deep += loser[i];
    if (sum < 15)
        return 1;
    return deep ? 3 : 2;
}

static double terminal_value(const tdnet_t *net, const int8_t *after, int owner) {
    if (net->output_mode == TDNET_PROBABILITY)
        return 1.0;
    int k = win_points(after);
    if (net->game_mode == TDNET_CUBEFUL && net->jacoby && owner == TDNET_CUBE_CENTERED)
        k = 1;
    return (double)k; /* equity; prob5 equity of [1, k>=2, k>=3, 0, 0] is k too */
}

/* The first hidden layer of every candidate comes from bg_expand_first_layer (the pre-move
 * board's W1 x + b1 plus the weight columns of the few inputs each move changes, as
 * scoring.py's incremental path), the other layers from layer() over all candidates. */
static int best_move(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner, tdnet_choice_t *choice,
                     int with_steps) {
    const int hidden1 = net->sizes[1], outs = tdnet_outputs(net), n_extra = tdnet_inputs(net) - BG_NUM_FEATURES;
    float extra[BG_MAX_EXTRA] = {0};
    if (n_extra) {
        /* cube seen by the opponent: mine <-> theirs; it may double when centred or its own */
        int opp_owner = owner == TDNET_CUBE_MINE ? TDNET_CUBE_THEIRS : owner == TDNET_CUBE_THEIRS ? TDNET_CUBE_MINE : 0;
        extra[opp_owner] = 1.0f;
        extra[3] = opp_owner != TDNET_CUBE_THEIRS ? 1.0f : 0.0f;
    }
    const int8_t dice[2] = {(int8_t)d1, (int8_t)d2};
    int cap = 128, rc = 0, n = 0, where = 0;
    int8_t *boards = NULL;
    float *act = NULL, *vals = NULL, *scratch = NULL;
    for (;;) { /* most rolls have fewer than 128 results; a double may have up to BG_MAX_MOVES */
        boards = (int8_t *)malloc((size_t)cap * 50);
        act = (float *)malloc((size_t)cap * hidden1 * sizeof(float));
        if (!boards || !act) {
            rc = BG_ERR_NOMEM;
            goto out;
        }
        int32_t offsets[2] = {0, 0};
        int relu = net->activation == TDNET_RELU;
        int done = bg_expand_first_layer_ex(board, dice, 1, extra, n_extra, net->w[0], net->b[0], hidden1, boards,
                                            act, 0, offsets, cap, &where, relu);
        if (done == 1 && !relu)
            activate(net->activation, act, (size_t)offsets[1] * hidden1);
        if (done < 0) {
            rc = done;
            goto out;
        }
        if (done == 1) {
            n = offsets[1];
            break;
        }
        free(boards), free(act);
        boards = NULL, act = NULL;
        cap = BG_MAX_MOVES;
    }
    vals = (float *)malloc((size_t)n * outs * sizeof(float));
    void *mem = NULL; /* 64-byte aligned, so are the rows layer() stores 16 floats at a time */
    scratch = posix_memalign(&mem, 64, (tdnet_scratch_floats(net, n) + 16) * sizeof(float)) == 0 ? (float *)mem : NULL;
    if (!vals || !scratch || (rc = forward_from(net, 1, act, n, vals, scratch)) != 0) {
        rc = rc ? rc : BG_ERR_NOMEM;
        goto out;
    }
    int best = 0;
    double best_v = -INFINITY;
    for (int k = 0; k < n; k++) {
        const int8_t *after = boards + 50 * k;
        int mover_left = 0;
        for (int i = 0; i < 25; i++)
            mover_left += after[25 + i];
        double v = mover_left == 0 ? terminal_value(net, after, owner) : flipped_scalar(net, vals + (size_t)k * outs);
        if (v > best_v) { /* the first of equal values, as scoring.segment_argmax */
            best_v = v;
            best = k;
        }
    }
    memcpy(choice->after, boards + 50 * best, 50);
    choice->value = (float)best_v;
    choice->candidates = n;
    choice->nsteps = 0;
    memset(choice->steps, 0, 8);
    if (with_steps) { /* the same generator again, for the steps of the chosen result */
        int8_t *all = (int8_t *)malloc((size_t)n * 50), *steps = (int8_t *)malloc((size_t)n * 8);
        int8_t *nsteps = (int8_t *)malloc((size_t)n);
        int m = all && steps && nsteps ? bg_legal_moves(board, d1, d2, all, steps, nsteps, n, &where) : BG_ERR_NOMEM;
        int k = 0;
        while (k < m && memcmp(all + 50 * k, choice->after, 50) != 0)
            k++;
        if (m < 0 || k == m)
            rc = m < 0 ? m : BG_ERR_ARGS;
        else {
            memcpy(choice->steps, steps + 8 * k, 8);
            choice->nsteps = nsteps[k];
        }
        free(all), free(steps), free(nsteps);
    }
out:
    free(boards), free(act), free(vals), free(scratch);
    return rc;
}

int tdnet_best_move(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner, tdnet_choice_t *choice) {
    return best_move(net, board, d1, d2, owner, choice, 1);
}

int tdnet_best_result(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner, tdnet_choice_t *choice) {
    return best_move(net, board, d1, d2, owner, choice, 0);
}

/* ------------------------------------------------------------------ Position IDs */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void tdnet_position_id(const int8_t *board, char out[15]) {
    unsigned char key[10] = {0};
    int bit = 0;
    for (int i = 0; i < 50; i++) {
        for (int k = 0; k < board[i]; k++, bit++)
            key[bit / 8] |= (unsigned char)(1u << (bit % 8));
        bit++;
    }
    int o = 0;
    for (int i = 0; i < 10; i += 3) {
        uint32_t v = (uint32_t)key[i] << 16;
        if (i + 1 < 10)
            v |= (uint32_t)key[i + 1] << 8;
        if (i + 2 < 10)
            v |= key[i + 2];
        for (int j = 0; j < 4 && o < 14; j++)
            out[o++] = B64[(v >> (18 - 6 * j)) & 63];
    }
    out[14] = '\0';
}

int tdnet_board_from_id(const char *pid, int8_t *board) {
    if (strlen(pid) != 14)
        return -1;
    unsigned char key[12] = {0};
    uint32_t acc = 0;
    int nbits = 0, o = 0;
    for (int i = 0; i < 14; i++) {
        const char *p = strchr(B64, pid[i]);
        if (!p || !pid[i])
            return -1;
        acc = (acc << 6) | (uint32_t)(p - B64);
        nbits += 6;
        if (nbits >= 8) {
            nbits -= 8;
            key[o++] = (unsigned char)((acc >> nbits) & 0xff);
        }
    }
    memset(board, 0, 50);
    int slot = 0;
    for (int bit = 0; bit < 80 && slot < 50; bit++) {
        if ((key[bit / 8] >> (bit % 8)) & 1) {
            if (board[slot] >= 15)
                return -1;
            board[slot]++;
        } else {
            slot++;
        }
    }
    int where;
    return bg_check_board(board, &where) == 0 ? 0 : -1;
}
