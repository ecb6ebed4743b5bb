/* Loader, forward pass and 0-ply move choice for exported networks. */
#include "tdnet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgcore.h"

static uint32_t rd_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int fail(char *err, size_t errlen, const char *path, const char *what) {
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

int tdnet_load(const char *path, tdnet_t *net, char *err, size_t errlen) {
    memset(net, 0, sizeof(*net));
    FILE *fh = fopen(path, "rb");
    if (!fh)
        return fail(err, errlen, path, "cannot open weights file");
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
    uint32_t flags = rd_u32(buf + 20), n_in = rd_u32(buf + 24), n_hidden = rd_u32(buf + 28);
    if (version != 1) {
        snprintf(err, errlen, "%s: format version %u is not supported (this reader knows version 1)", path, version);
        goto out;
    }
    if (out_mode > 2 || game > 2 || (n_in != 196 && n_in != 200) || n_hidden < 1 || n_hidden > TDNET_MAX_LAYERS) {
        fail(err, errlen, path, "header values out of range");
        goto out;
    }
    size_t header = 32 + 4 * (size_t)n_hidden + 4;
    if ((size_t)size < header) {
        fail(err, errlen, path, "truncated header");
        goto out;
    }
    net->sizes[0] = (int)n_in;
    for (uint32_t i = 0; i < n_hidden; i++) {
        uint32_t h = rd_u32(buf + 32 + 4 * i);
        if (h < 1 || h > TDNET_MAX_WIDTH) {
            fail(err, errlen, path, "hidden layer size out of range");
            goto out;
        }
        net->sizes[i + 1] = (int)h;
    }
    uint32_t n_out = rd_u32(buf + 32 + 4 * n_hidden);
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
    net->output_mode = (int)out_mode;
    net->game_mode = (int)game;
    net->jacoby = (int)(flags & 1);
    rc = 0;
out:
    free(buf);
    return rc;
}

void tdnet_free(tdnet_t *net) {
    free(net->blob);
    memset(net, 0, sizeof(*net));
}

size_t tdnet_scratch_floats(const tdnet_t *net, int n) { return 2 * (size_t)n * (size_t)net->max_width; }

/* y = act(W x + b) for n rows.  W is stored transposed (in x out) so the inner loop is
 * an axpy over the outputs, which compilers vectorise without reassociating sums, and
 * zero inputs (most of the 196 encoded inputs, about half of the ReLU units) are skipped. */
static void layer(const float *x, int n, int in, int out, const float *wt, const float *b, float *y, int relu) {
    for (int r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * in;
        float *yr = y + (size_t)r * out;
        memcpy(yr, b, (size_t)out * sizeof(float));
        for (int i = 0; i < in; i++) {
            const float xi = xr[i];
            if (xi == 0.0f)
                continue;
            const float *wi = wt + (size_t)i * out;
            for (int j = 0; j < out; j++)
                yr[j] += xi * wi[j];
        }
        if (relu)
            for (int j = 0; j < out; j++)
                yr[j] = yr[j] < 0.0f ? 0.0f : yr[j];
    }
}

static inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

void tdnet_forward(const tdnet_t *net, const float *in, int n, float *out, float *scratch) {
    float *a = scratch, *c = scratch + (size_t)n * net->max_width;
    const float *x = in;
    for (int l = 0; l < net->n_layers; l++) {
        int last = l == net->n_layers - 1;
        float *y = last ? out : (x == a ? c : a);
        layer(x, n, net->sizes[l], net->sizes[l + 1], net->w[l], net->b[l], y, !last);
        x = y;
    }
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
}

float tdnet_scalar(const tdnet_t *net, const float *row) {
    if (net->output_mode == TDNET_PROB5)
        return 2 * row[0] + row[1] + row[2] - row[3] - row[4] - 1;
    return row[0];
}

/* Value for the mover of a position whose opponent is on roll (row values from the net). */
static float flipped_scalar(const tdnet_t *net, const float *row) {
    if (net->output_mode == TDNET_PROBABILITY)
        return 1.0f - row[0];
    return -tdnet_scalar(net, row);
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

static float terminal_value(const tdnet_t *net, const int8_t *after, int owner) {
    if (net->output_mode == TDNET_PROBABILITY)
        return 1.0f;
    int k = win_points(after);
    if (net->game_mode == TDNET_CUBEFUL && net->jacoby && owner == TDNET_CUBE_CENTERED)
        k = 1;
    return (float)k; /* equity; prob5 equity of [1, k>=2, k>=3, 0, 0] is k too */
}

int tdnet_best_move(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner, tdnet_choice_t *choice) {
    int8_t *boards = (int8_t *)malloc((size_t)BG_MAX_MOVES * 50);
    int8_t *steps = (int8_t *)malloc((size_t)BG_MAX_MOVES * 8);
    int8_t *nsteps = (int8_t *)malloc(BG_MAX_MOVES);
    int where = 0, rc = 0;
    if (!boards || !steps || !nsteps) {
        rc = BG_ERR_NOMEM;
        goto out;
    }
    int n = bg_legal_moves(board, d1, d2, boards, steps, nsteps, BG_MAX_MOVES, &where);
    if (n < 0) {
        rc = n;
        goto out;
    }
    int width = tdnet_inputs(net), outs = tdnet_outputs(net);
    float *feats = (float *)calloc((size_t)n * width, sizeof(float));
    float *vals = (float *)malloc((size_t)n * outs * sizeof(float));
    float *scratch = (float *)malloc(tdnet_scratch_floats(net, n) * sizeof(float));
    if (!feats || !vals || !scratch) {
        free(feats), free(vals), free(scratch);
        rc = BG_ERR_NOMEM;
        goto out;
    }
    bg_encode_batch(boards, n, feats, width, 0); /* the opponent is on roll after the move */
    if (width == 200) {
        /* cube seen by the opponent: mine <-> theirs; it may double when centred or its own */
        int opp_owner = owner == TDNET_CUBE_MINE ? TDNET_CUBE_THEIRS : owner == TDNET_CUBE_THEIRS ? TDNET_CUBE_MINE : 0;
        for (int k = 0; k < n; k++) {
            float *f = feats + (size_t)k * width;
            f[196 + opp_owner] = 1.0f;
            f[199] = opp_owner != TDNET_CUBE_THEIRS ? 1.0f : 0.0f;
        }
    }
    tdnet_forward(net, feats, n, vals, scratch);
    int best = 0;
    float best_v = -INFINITY;
    for (int k = 0; k < n; k++) {
        const int8_t *after = boards + 50 * k;
        int mover_left = 0;
        for (int i = 0; i < 25; i++)
            mover_left += after[25 + i];
        float v = mover_left == 0 ? terminal_value(net, after, owner) : flipped_scalar(net, vals + (size_t)k * outs);
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    memcpy(choice->after, boards + 50 * best, 50);
    memcpy(choice->steps, steps + 8 * best, 8);
    choice->nsteps = nsteps[best];
    choice->value = best_v;
    choice->candidates = n;
    free(feats), free(vals), free(scratch);
out:
    free(boards), free(steps), free(nsteps);
    return rc;
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
