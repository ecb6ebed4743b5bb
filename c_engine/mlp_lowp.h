/* Reduced-precision forward of a ReLU MLP's layers after the first (self-play scoring:
 * the C engine already gives each candidate's first hidden layer), then a float32 head.
 * Also the cdef read by build_cffi.py: plain declarations only. */
#ifndef MLP_LOWP_H
#define MLP_LOWP_H
#include <stddef.h>

#define LP_FP32 0
#define LP_BF16 1
#define LP_INT8 2
#define LP_FP32_AVX512 3
#define LP_MAX_LAYERS 16
#define LP_ERR_ARGS -1
#define LP_ERR_PATH -2
#define LP_ERR_NOMEM -3

/* Bit (1 << path) set for each path this CPU (and OS) can run: LP_FP32 always, LP_BF16
 * with AVX512F/BW/VL + AVX512_BF16, LP_INT8 with AVX512F/BW/VL + AVX512_VNNI; bit 3 (1 << LP_FP32_AVX512)
 * when LP_FP32 runs on AVX-512 (else portable C loops; path LP_FP32_AVX512 asks for those loops). */
int lp_cpu_paths(void);

/* Bytes of the packed form of an (m x k) float32 weight matrix (row-major, out x in) for
 * `path`; sizes must be multiples of 16. */
size_t lp_packed_bytes(int path, int m, int k);

/* Pack W (m x k, row-major as torch's Linear.weight) for `path`: fp32 = W transposed (k x m);
 * bf16 = round-to-nearest-even bf16 in k-pairs ([k/2][m][2]); int8 = per-output-row scale
 * max|W[j,:]| / 127 into scales[j] and W / scale rounded into k-quads ([k/4][m][4]).  Plain C:
 * runs on any CPU.  Returns 0 or LP_ERR_ARGS. */
int lp_pack(int path, const float *w, int m, int k, void *out, float *scales);

/* out[i, :n_out] = head(relu(... relu(L2 relu(x_i)) ...)) for n rows of x (n x sizes[0], float32,
 * already the first hidden layer's activations): n_layers hidden layers, layer l mapping
 * sizes[l] -> sizes[l + 1] with packed[l] (lp_pack of the same path), scales[l] (int8) and
 * bias[l]; then the float32 head (n_out x sizes[n_layers], row-major) and head_b.  Activations
 * between layers are rounded to the path's type (bf16: round to nearest even; int8: unsigned
 * 8 bits per row, scale max / 255); sums in float32 (int8: int32).  The AVX-512 paths skip the
 * input steps that are zero in a whole register tile (the same bits: mlp_lowp.c's notes) unless
 * `every_step`.  Returns 0 or an error. */
int lp_forward(int path, const float *x, int n, int n_layers, const int *sizes, const void *const *packed,
               const float *const *scales, const float *const *bias, const float *head_w, const float *head_b,
               int n_out, float *out, int every_step);

/* Peak multiply-adds of `path`'s inner instruction (fp32 FMA, vdpbf16ps, vpdpbusd), 24
 * independent accumulators in registers, `iters` rounds: returns the multiply-adds done
 * (time it from the caller); < 0 if the path cannot run here. */
double lp_peak_loop(int path, long iters);
#endif
