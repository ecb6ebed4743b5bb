/* Reduced-precision forward passes for self-play collection (mlp_lowp.h).
 *
 * One micro-kernel shape for every path: a tile of 6 rows x up to 64 outputs held in 24
 * AVX-512 accumulators; each step broadcasts 4 bytes of a row (one float32, a pair of
 * bf16, four uint8) and multiplies them into 4 vectors of packed weights (64 bytes each:
 * 16 outputs x 4 bytes), so the weights of a 64-output panel stream from L1 while the six
 * rows stay in registers.  The instruction is the only difference:
 *   fp32  vfmadd231ps  (16 multiply-adds),
 *   bf16  vdpbf16ps    (32: pairs of bf16 products summed into float32),
 *   int8  vpdpbusd     (64: quads of uint8 x int8 products summed into int32).
 * Rows go through in blocks of NB so a block's activations stay in cache between layers.
 *
 * Zero steps: a ReLU layer's outputs are mostly zero (70-85% of a trained [256,256,256]'s
 * hidden units, on the candidates self-play scores), and a tile's rows are candidates of one
 * position, zero on mostly the same units.  A step whose 4 bytes are zero in all six rows of a
 * tile adds exactly +0 to every accumulator, so each tile first lists its steps with any
 * nonzero byte and runs only those (40-65% of the steps skipped on those nets).  The result is
 * the same to the bit: the accumulators start at +0 and, in round-to-nearest, a float sum is -0
 * only when both terms are, so adding a +-0 product never changes one (int8 sums are integers).
 * lp_forward's every_step runs all steps (tests, benchmarks).
 *
 * The AVX-512 functions carry target attributes and run only where cpuid says they can
 * (lp_cpu_paths), so the build needs no -march flags; elsewhere a portable float32 path. */
#include "mlp_lowp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NB 48 /* rows per block */
#define RG 6  /* rows per register tile */
#define LP_FP32_PORTABLE LP_FP32_AVX512 /* as a path: the portable loops (tests); as a bit: AVX-512 float32 runs */

static inline uint16_t bf16_round(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7F800000u) == 0)
        u &= 0x80000000u; /* denormals to zero, as vcvtneps2bf16 does */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

size_t lp_packed_bytes(int path, int m, int k) {
    if (m <= 0 || k <= 0 || m % 16 || k % 16)
        return 0;
    switch (path) {
    case LP_FP32:
    case LP_FP32_PORTABLE:
        return (size_t)m * k * 4;
    case LP_BF16:
        return (size_t)m * k * 2;
    case LP_INT8:
        return (size_t)m * k;
    }
    return 0;
}

int lp_pack(int path, const float *w, int m, int k, void *out, float *scales) {
    if (!lp_packed_bytes(path, m, k))
        return LP_ERR_ARGS;
    if (path == LP_FP32 || path == LP_FP32_PORTABLE) {
        float *o = (float *)out;
        for (int i = 0; i < k; i++)
            for (int j = 0; j < m; j++)
                o[(size_t)i * m + j] = w[(size_t)j * k + i];
    } else if (path == LP_BF16) {
        uint16_t *o = (uint16_t *)out;
        for (int p = 0; p < k / 2; p++)
            for (int j = 0; j < m; j++)
                for (int t = 0; t < 2; t++)
                    o[((size_t)p * m + j) * 2 + t] = bf16_round(w[(size_t)j * k + 2 * p + t]);
    } else {
        int8_t *o = (int8_t *)out;
        for (int j = 0; j < m; j++) {
            float mx = 0.0f;
            for (int i = 0; i < k; i++)
                mx = fmaxf(mx, fabsf(w[(size_t)j * k + i]));
            scales[j] = mx > 0.0f ? mx / 127.0f : 1.0f;
        }
        for (int q = 0; q < k / 4; q++)
            for (int j = 0; j < m; j++)
                for (int t = 0; t < 4; t++) {
                    float v = nearbyintf(w[(size_t)j * k + 4 * q + t] / scales[j]);
                    o[((size_t)q * m + j) * 4 + t] = (int8_t)fmaxf(-127.0f, fminf(127.0f, v));
                }
    }
    return 0;
}

static int check_args(int n, int n_layers, const int *sizes, int n_out) {
    if (n < 0 || n_layers < 0 || n_layers >= LP_MAX_LAYERS || n_out < 1)
        return LP_ERR_ARGS;
    for (int l = 0; l <= n_layers; l++)
        if (sizes[l] <= 0 || sizes[l] % 16)
            return LP_ERR_ARGS;
    return 0;
}

static int max_width(int n_layers, const int *sizes) {
    int w = 0;
    for (int l = 0; l <= n_layers; l++)
        w = sizes[l] > w ? sizes[l] : w;
    return w;
}

/* ------------------------------------------------------------------ portable float32 */

static void head_portable(const float *h, int rows, int m, const float *hw, const float *hb, int n_out,
                          float *out) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < n_out; o++) {
            float s = hb[o];
            for (int j = 0; j < m; j++)
                s += h[(size_t)r * m + j] * hw[(size_t)o * m + j];
            out[(size_t)r * n_out + o] = s;
        }
}

/* y = relu(x W^T + b), W^T packed (k x m): a row's outputs accumulate over k, skipping the
 * zero inputs (about half of a ReLU layer's) */
static void layer_portable(const float *x, int rows, int k, const float *wt, const float *b, int m, float *y) {
    for (int r = 0; r < rows; r++) {
        float *yr = y + (size_t)r * m;
        memcpy(yr, b, sizeof(float) * (size_t)m);
        for (int i = 0; i < k; i++) {
            const float xv = x[(size_t)r * k + i];
            if (xv == 0.0f)
                continue;
            const float *w = wt + (size_t)i * m;
            for (int j = 0; j < m; j++)
                yr[j] += xv * w[j];
        }
        for (int j = 0; j < m; j++)
            yr[j] = yr[j] > 0.0f ? yr[j] : 0.0f;
    }
}

static int forward_portable(const float *x, int n, int n_layers, const int *sizes, const void *const *packed,
                            const float *const *bias, const float *hw, const float *hb, int n_out, float *out) {
    int mw = max_width(n_layers, sizes);
    float *a = (float *)malloc(sizeof(float) * NB * (size_t)mw), *b = (float *)malloc(sizeof(float) * NB * (size_t)mw);
    if (!a || !b) {
        free(a);
        free(b);
        return LP_ERR_NOMEM;
    }
    for (int i0 = 0; i0 < n; i0 += NB) {
        int rows = n - i0 < NB ? n - i0 : NB;
        const float *cur = x + (size_t)i0 * sizes[0];
        for (int l = 0; l < n_layers; l++) {
            float *nxt = cur == a ? b : a;
            layer_portable(cur, rows, sizes[l], (const float *)packed[l], bias[l], sizes[l + 1], nxt);
            cur = nxt;
        }
        head_portable(cur, rows, sizes[n_layers], hw, hb, n_out, out + (size_t)i0 * n_out);
    }
    free(a);
    free(b);
    return 0;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#define TGT_F32 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))
#define TGT_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,avx512bf16")))
#define TGT_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,avx512vnni")))
#define INLINE static inline __attribute__((always_inline))

static int cpu_paths(void) {
    unsigned a, b, c, d;
    int paths = 1 << LP_FP32;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
        return paths;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xE6u) != 0xE6u) /* the OS saves the x87/SSE/AVX/opmask/zmm state */
        return paths;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return paths;
    const unsigned base = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31); /* avx512 f, dq, bw, vl */
    if ((b & base) != base)
        return paths;
    paths |= 1 << LP_FP32_PORTABLE; /* bit 3: the AVX-512 float32 kernel runs */
    if (c & (1u << 11))
        paths |= 1 << LP_INT8; /* avx512_vnni */
    if (__get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)))
        paths |= 1 << LP_BF16; /* avx512_bf16 */
    return paths;
}

int lp_cpu_paths(void) {
    static int paths = -1; /* cpuid once: it is slow (and traps in some VMs) */
    if (paths < 0)
        paths = cpu_paths();
    return paths;
}

/* The tile: rows r0..r0+5 of x (row stride xs bytes), steps s = act[0..n_act-1] (ascending)
 * each taking the 4 bytes at byte 4 s of a row, weights of step s at wp + s * m * 4 bytes +
 * output m0; NV vectors of 16 outputs.  OP(acc, w, x) is the instruction. */
#define DEFINE_TILE(NAME, TGT, ACC_T, ZERO, OP)                                                              \
    TGT INLINE void NAME(const uint8_t *x, size_t xs, const int16_t *act, int n_act, const uint8_t *wp,     \
                         int m, int m0, int nv, ACC_T acc[RG][4]) {                                          \
        for (int r = 0; r < RG; r++)                                                                         \
            for (int j = 0; j < 4; j++)                                                                      \
                acc[r][j] = ZERO;                                                                            \
        const uint8_t *w0 = wp + (size_t)m0 * 4;                                                             \
        for (int i = 0; i < n_act; i++) {                                                                    \
            const int s = act[i];                                                                            \
            const uint8_t *w = w0 + (size_t)s * m * 4;                                                       \
            __m512i wv[4];                                                                                   \
            for (int j = 0; j < nv; j++)                                                                     \
                wv[j] = _mm512_loadu_si512((const void *)(w + 64 * j));                                      \
            for (int r = 0; r < RG; r++) {                                                                   \
                int32_t xv;                                                                                  \
                memcpy(&xv, x + xs * r + 4 * (size_t)s, 4);                                                  \
                const __m512i xb = _mm512_set1_epi32(xv);                                                    \
                for (int j = 0; j < nv; j++)                                                                 \
                    acc[r][j] = OP(acc[r][j], wv[j], xb);                                                    \
            }                                                                                                \
        }                                                                                                    \
    }

#define OP_F32(acc, w, x) _mm512_fmadd_ps(_mm512_castsi512_ps(x), _mm512_castsi512_ps(w), acc)
#define OP_BF16(acc, w, x) _mm512_dpbf16_ps(acc, (__m512bh)(w), (__m512bh)(x))
#define OP_INT8(acc, w, x) _mm512_dpbusd_epi32(acc, x, w)
/* the int8 tile's instruction as inline asm (AT&T order: signed weights, unsigned activations,
 * accumulator): with the intrinsic GCC 12 copied and spilled all 24 accumulators on every step */
TGT_VNNI INLINE __m512 dpbusd_asm(__m512 acc, __m512i w, __m512i x) {
    __asm__("vpdpbusd %[w], %[x], %[acc]" : [acc] "+v"(acc) : [w] "v"(w), [x] "v"(x));
    return acc;
}
#define OP_INT8_F(acc, w, x) dpbusd_asm(acc, w, x)

DEFINE_TILE(tile_f32, TGT_F32, __m512, _mm512_setzero_ps(), OP_F32)
DEFINE_TILE(tile_bf16, TGT_BF16, __m512, _mm512_setzero_ps(), OP_BF16)
DEFINE_TILE(tile_int8, TGT_VNNI, __m512, _mm512_setzero_ps(), OP_INT8_F)

/* the head on float32 rows h (rows x m): n_out dot products per row, 16 lanes at a time */
TGT_F32 static void head_avx512(const float *h, int rows, int m, const float *hw, const float *hb, int n_out,
                                float *out) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < n_out; o++) {
            __m512 s = _mm512_setzero_ps();
            for (int j = 0; j < m; j += 16)
                s = _mm512_fmadd_ps(_mm512_loadu_ps(h + (size_t)r * m + j), _mm512_loadu_ps(hw + (size_t)o * m + j), s);
            out[(size_t)r * n_out + o] = hb[o] + _mm512_reduce_add_ps(s);
        }
}

/* epilogue of a float tile: relu(acc * scale + b) (scale NULL: 1) into y (float32) or yb (bf16) */
#define DEFINE_STORE(NAME, TGT, BF)                                                                          \
    TGT INLINE void NAME(__m512 acc[RG][4], int r0, int m0, int nv, int m, const float *b, float *y,        \
                         uint16_t *yb) {                                                                     \
        for (int r = 0; r < RG; r++)                                                                         \
            for (int j = 0; j < nv; j++) {                                                                   \
                __m512 v = _mm512_max_ps(_mm512_add_ps(acc[r][j], _mm512_loadu_ps(b + m0 + 16 * j)),         \
                                         _mm512_setzero_ps());                                               \
                size_t at = (size_t)(r0 + r) * m + m0 + 16 * j;                                              \
                if (BF && yb)                                                                                \
                    BF_STORE(yb + at, v);                                                                    \
                else                                                                                         \
                    _mm512_storeu_ps(y + at, v);                                                             \
            }                                                                                                \
    }
#define BF_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (__m256i)_mm512_cvtneps_pbh(v))
DEFINE_STORE(store_bf16, TGT_BF16, 1)
#undef BF_STORE
#define BF_STORE(p, v) ((void)(p), (void)(v))
DEFINE_STORE(store_f32, TGT_F32, 0)
#undef BF_STORE

/* one layer over a block: rows_pad (a multiple of RG) rows of x, m outputs, in panels of 64;
 * tile t runs the steps acts[t][0..n_acts[t]-1] */
#define DEFINE_LAYER(NAME, TGT, TILE, STORE, ELEM, STEP_ELEMS)                                               \
    TGT static void NAME(const void *x, int rows_pad, int k, const void *wp, int m, const float *b, float *y, \
                         uint16_t *yb, const int16_t *acts, const int *n_acts) {                             \
        const size_t xs = (size_t)k * ELEM;                                                                  \
        for (int m0 = 0; m0 < m; m0 += 64) {                                                                 \
            int nv = (m - m0) / 16 < 4 ? (m - m0) / 16 : 4;                                                  \
            for (int r0 = 0; r0 < rows_pad; r0 += RG) {                                                      \
                __m512 acc[RG][4];                                                                           \
                const uint8_t *xr = (const uint8_t *)x + xs * r0;                                            \
                const int16_t *act = acts + (size_t)(r0 / RG) * (k / STEP_ELEMS);                            \
                const int na = n_acts[r0 / RG];                                                              \
                switch (nv) {                                                                                \
                case 4: TILE(xr, xs, act, na, wp, m, m0, 4, acc); STORE(acc, r0, m0, 4, m, b, y, yb); break; \
                case 3: TILE(xr, xs, act, na, wp, m, m0, 3, acc); STORE(acc, r0, m0, 3, m, b, y, yb); break; \
                case 2: TILE(xr, xs, act, na, wp, m, m0, 2, acc); STORE(acc, r0, m0, 2, m, b, y, yb); break; \
                default: TILE(xr, xs, act, na, wp, m, m0, 1, acc); STORE(acc, r0, m0, 1, m, b, y, yb); break; \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }
DEFINE_LAYER(layer_f32, TGT_F32, tile_f32, store_f32, 4, 1)
DEFINE_LAYER(layer_bf16, TGT_BF16, tile_bf16, store_bf16, 2, 2)

/* int8 epilogue: relu(acc * (row scale x column scale) + b), float32 into y */
TGT_VNNI INLINE void store_int8(__m512 acc[RG][4], int r0, int m0, int nv, int m, const float *xscale,
                                const float *wscale, const float *b, float *y) {
    for (int r = 0; r < RG; r++) {
        const __m512 rs = _mm512_set1_ps(xscale[r0 + r]);
        for (int j = 0; j < nv; j++) {
            const __m512 sc = _mm512_mul_ps(rs, _mm512_loadu_ps(wscale + m0 + 16 * j));
            __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_castps_si512(acc[r][j])), sc, _mm512_loadu_ps(b + m0 + 16 * j));
            _mm512_storeu_ps(y + (size_t)(r0 + r) * m + m0 + 16 * j, _mm512_max_ps(v, _mm512_setzero_ps()));
        }
    }
}

/* one int8 layer over a block (the tile and its epilogue inlined with a constant width, so
 * the 24 accumulators stay in registers) */
TGT_VNNI static void layer_int8(const uint8_t *x, const float *xscale, int rows_pad, int k, const int8_t *wp,
                                const float *wscale, int m, const float *b, float *y, const int16_t *acts,
                                const int *n_acts) {
    const uint8_t *w8 = (const uint8_t *)wp;
    for (int m0 = 0; m0 < m; m0 += 64) {
        int nv = (m - m0) / 16 < 4 ? (m - m0) / 16 : 4;
        for (int r0 = 0; r0 < rows_pad; r0 += RG) {
            __m512 acc[RG][4];
            const uint8_t *xr = x + (size_t)k * r0;
            const int16_t *act = acts + (size_t)(r0 / RG) * (k / 4);
            const int na = n_acts[r0 / RG];
#define INT8_CASE(NV)                                                                                        \
    tile_int8(xr, k, act, na, w8, m, m0, NV, acc);                                                           \
    store_int8(acc, r0, m0, NV, m, xscale, wscale, b, y);                                                    \
    break;
            switch (nv) {
            case 4: INT8_CASE(4)
            case 3: INT8_CASE(3)
            case 2: INT8_CASE(2)
            default: INT8_CASE(1)
            }
#undef INT8_CASE
        }
    }
}

/* rows of non-negative floats (rows x k) to uint8 with a per-row scale max / 255 (round to
 * nearest even; negatives, which a ReLU layer never gives, clamp to 0) */
TGT_VNNI static void quantize_rows(const float *y, int rows, int k, uint8_t *q, float *scale) {
    for (int r = 0; r < rows; r++) {
        const float *yr = y + (size_t)r * k;
        __m512 mx = _mm512_setzero_ps();
        for (int j = 0; j < k; j += 16)
            mx = _mm512_max_ps(mx, _mm512_loadu_ps(yr + j));
        float top = _mm512_reduce_max_ps(mx);
        scale[r] = top > 0.0f ? top / 255.0f : 0.0f;
        const __m512 inv = _mm512_set1_ps(top > 0.0f ? 255.0f / top : 0.0f);
        for (int j = 0; j < k; j += 16) {
            __m512i v = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(yr + j), inv));
            v = _mm512_max_epi32(v, _mm512_setzero_si512());
            _mm_storeu_si128((__m128i *)(q + (size_t)r * k + j), _mm512_cvtusepi32_epi8(v));
        }
    }
}

/* Each tile's steps (4-byte words of its rows, `steps` a row) that are nonzero in any of its
 * RG rows, ascending, into acts[t * steps ...] and their count into n_acts[t]; every step
 * when `every_step` (the module notes: skipping the others changes no bit) */
TGT_F32 static void list_steps(const uint8_t *x, int rows_pad, int steps, int every_step, int16_t *acts,
                               int *n_acts) {
    const size_t xs = (size_t)steps * 4;
    for (int t = 0; t < rows_pad / RG; t++) {
        int16_t *act = acts + (size_t)t * steps;
        int n = 0;
        if (every_step) {
            for (; n < steps; n++)
                act[n] = (int16_t)n;
        } else {
            const uint8_t *xt = x + xs * RG * t;
            for (int s0 = 0; s0 < steps; s0 += 16) {
                const __mmask16 lm = steps - s0 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (steps - s0)) - 1);
                __m512i v = _mm512_maskz_loadu_epi32(lm, xt + 4 * (size_t)s0);
                for (int r = 1; r < RG; r++)
                    v = _mm512_or_si512(v, _mm512_maskz_loadu_epi32(lm, xt + xs * r + 4 * (size_t)s0));
                unsigned bits = _mm512_test_epi32_mask(v, v);
                while (bits) {
                    act[n++] = (int16_t)(s0 + __builtin_ctz(bits));
                    bits &= bits - 1;
                }
            }
        }
        n_acts[t] = n;
    }
}

TGT_BF16 static void to_bf16_rows(const float *x, int rows, int k, uint16_t *out) {
    for (size_t i = 0; i < (size_t)rows * k; i += 16)
        _mm256_storeu_si256((__m256i *)(out + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
}

/* the AVX-512 paths: one block of NB rows at a time through every layer */
static int forward_avx512(int path, const float *x, int n, int n_layers, const int *sizes,
                          const void *const *packed, const float *const *scales, const float *const *bias,
                          const float *hw, const float *hb, int n_out, float *out, int every_step) {
    const int mw = max_width(n_layers, sizes);
    const size_t cells = (size_t)NB * mw;
    float *yf = (float *)malloc(cells * 4);
    float *yf2 = (float *)malloc(cells * 4);
    uint8_t *qa = (uint8_t *)malloc(cells * 2), *qb = (uint8_t *)malloc(cells * 2);
    int16_t *acts = (int16_t *)malloc(sizeof(int16_t) * (size_t)(NB / RG) * mw); /* each tile's steps */
    int n_acts[NB / RG];
    float sa[NB], sb[NB];
    int err = 0;
    if (!yf || !yf2 || !qa || !qb || !acts) {
        err = LP_ERR_NOMEM;
        goto done;
    }
    for (int i0 = 0; i0 < n; i0 += NB) {
        const int rows = n - i0 < NB ? n - i0 : NB, rows_pad = (rows + RG - 1) / RG * RG;
        const float *xin = x + (size_t)i0 * sizes[0];
        const float *h = xin; /* float32 input of the head */
        if (n_layers > 0) {
            const size_t pad = (size_t)(rows_pad - rows) * sizes[0];
            if (path == LP_BF16) {
                to_bf16_rows(xin, rows, sizes[0], (uint16_t *)qa);
                memset((uint16_t *)qa + (size_t)rows * sizes[0], 0, pad * 2);
            } else if (path == LP_INT8) {
                quantize_rows(xin, rows, sizes[0], qa, sa);
                memset(qa + (size_t)rows * sizes[0], 0, pad);
                for (int r = rows; r < rows_pad; r++)
                    sa[r] = 0.0f;
            } else {
                memcpy(yf2, xin, sizeof(float) * (size_t)rows * sizes[0]);
                memset(yf2 + (size_t)rows * sizes[0], 0, pad * 4);
            }
        }
        uint8_t *cur = qa, *nxt = qb;
        float *scur = sa, *snxt = sb;
        const float *fcur = yf2;
        float *fnxt = yf;
        for (int l = 0; l < n_layers; l++) {
            const int k = sizes[l], m = sizes[l + 1], last = l == n_layers - 1;
            if (path == LP_BF16) {
                list_steps(cur, rows_pad, k / 2, every_step, acts, n_acts);
                layer_bf16(cur, rows_pad, k, packed[l], m, bias[l], yf, last ? NULL : (uint16_t *)nxt, acts, n_acts);
            } else if (path == LP_INT8) {
                list_steps(cur, rows_pad, k / 4, every_step, acts, n_acts);
                layer_int8(cur, scur, rows_pad, k, (const int8_t *)packed[l], scales[l], m, bias[l], yf, acts,
                           n_acts);
                if (!last)
                    quantize_rows(yf, rows_pad, m, nxt, snxt);
            } else {
                list_steps((const uint8_t *)fcur, rows_pad, k, every_step, acts, n_acts);
                layer_f32(fcur, rows_pad, k, packed[l], m, bias[l], fnxt, NULL, acts, n_acts);
                const float *t = fcur;
                fcur = fnxt;
                fnxt = (float *)t;
            }
            uint8_t *t = cur;
            cur = nxt;
            nxt = t;
            float *ts = scur;
            scur = snxt;
            snxt = ts;
            h = path == LP_FP32 ? fcur : yf;
        }
        head_avx512(h, rows, sizes[n_layers], hw, hb, n_out, out + (size_t)i0 * n_out);
    }
done:
    free(yf);
    free(yf2);
    free(qa);
    free(qb);
    free(acts);
    return err;
}

#define R24(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define DEFINE_PEAK(NAME, TGT, ACC_T, ZERO, OP, SUM)                                                         \
    TGT static double NAME(long iters, double *sink) {                                                      \
        __m512i w = _mm512_set1_epi32(0x3f803f80), x = _mm512_set1_epi32(0x01010101);                        \
        typedef ACC_T acc_t;                                                                                 \
        const acc_t zero = ZERO;                                                                             \
        R24(PEAK_DECL)                                                                                       \
        for (long it = 0; it < iters; it++) {                                                                \
            __asm__ volatile("" : "+v"(w), "+v"(x));                                                         \
            R24(PEAK_STEP)                                                                                   \
        }                                                                                                    \
        double s = 0;                                                                                        \
        R24(PEAK_SUM)                                                                                        \
        *sink = s;                                                                                           \
        return (double)iters * 24;                                                                           \
    }
#define PEAK_DECL(i) acc_t a##i = zero; __asm__ volatile("" : "+v"(a##i)); /* 24 chains, not one */
#define PEAK_STEP(i) a##i = CUR_OP(a##i, w, x);
#define PEAK_SUM(i) s += CUR_SUM(a##i);
#define CUR_OP OP_F32
#define CUR_SUM _mm512_reduce_add_ps
DEFINE_PEAK(peak_f32, TGT_F32, __m512, _mm512_setzero_ps(), OP_F32, _mm512_reduce_add_ps)
#undef CUR_OP
#define CUR_OP OP_BF16
DEFINE_PEAK(peak_bf16, TGT_BF16, __m512, _mm512_setzero_ps(), OP_BF16, _mm512_reduce_add_ps)
#undef CUR_OP
#undef CUR_SUM
#define CUR_OP OP_INT8
#define CUR_SUM _mm512_reduce_add_epi32
DEFINE_PEAK(peak_int8, TGT_VNNI, __m512i, _mm512_setzero_si512(), OP_INT8, _mm512_reduce_add_epi32)
#undef CUR_OP
#undef CUR_SUM

static volatile double lp_sink; /* keeps the peak loops' sums alive */

double lp_peak_loop(int path, long iters) {
    int ok = lp_cpu_paths();
    double s = 0;
    if (path == LP_FP32 && (ok & (1 << LP_FP32_PORTABLE)))
        s = peak_f32(iters, (double *)&lp_sink) * 16;
    else if (path == LP_BF16 && (ok & (1 << LP_BF16)))
        s = peak_bf16(iters, (double *)&lp_sink) * 32;
    else if (path == LP_INT8 && (ok & (1 << LP_INT8)))
        s = peak_int8(iters, (double *)&lp_sink) * 64;
    else
        return -1;
    return s;
}

#else /* not x86-64 GCC/clang: the portable float32 path only */
int lp_cpu_paths(void) { return 1 << LP_FP32; }
double lp_peak_loop(int path, long iters) {
    (void)path;
    (void)iters;
    return -1;
}
static int forward_avx512(int path, const float *x, int n, int n_layers, const int *sizes,
                          const void *const *packed, const float *const *scales, const float *const *bias,
                          const float *hw, const float *hb, int n_out, float *out, int every_step) {
    (void)path, (void)x, (void)n, (void)n_layers, (void)sizes, (void)packed, (void)scales, (void)bias;
    (void)hw, (void)hb, (void)n_out, (void)out, (void)every_step;
    return LP_ERR_PATH;
}
#endif

int lp_forward(int path, const float *x, int n, int n_layers, const int *sizes, const void *const *packed,
               const float *const *scales, const float *const *bias, const float *head_w, const float *head_b,
               int n_out, float *out, int every_step) {
    int err = check_args(n, n_layers, sizes, n_out);
    if (err)
        return err;
    if (n == 0)
        return 0;
    const int ok = lp_cpu_paths();
    if (path == LP_FP32_PORTABLE || (path == LP_FP32 && !(ok & (1 << LP_FP32_PORTABLE))))
        return forward_portable(x, n, n_layers, sizes, packed, bias, head_w, head_b, n_out, out);
    if (path != LP_FP32 && path != LP_BF16 && path != LP_INT8)
        return LP_ERR_ARGS;
    if (!(ok & (1 << path)))
        return LP_ERR_PATH;
    return forward_avx512(path, x, n, n_layers, sizes, packed, scales, bias, head_w, head_b, n_out, out,
                          every_step);
}
