/* Public C interface of the move generator; also the cdef read by build_cffi.py,
 * so keep it to plain declarations cffi can parse. */
#ifndef BGCORE_H
#define BGCORE_H
#include <stdint.h>

#define BG_MAX_MOVES 4096
#define BG_NUM_FEATURES 196
#define BG_MAX_EXTRA 16

#define BG_ERR_NEGATIVE -1
#define BG_ERR_TOO_MANY -2
#define BG_ERR_SAME_POINT -3
#define BG_ERR_DICE -4
#define BG_ERR_NOMEM -5
#define BG_ERR_CAPACITY -6
#define BG_ERR_ARGS -7

/* 0 if the (2,25) board is valid, else an error code with *where set
 * (flat index for a negative count, row for too many, mover's index for a shared point). */
int bg_check_board(const int8_t *board, int *where);

/* Tesauro inputs for n boards; row `on_roll_row` (1 = row 1, 0 = row 0) is the side on roll.
 * Writes BG_NUM_FEATURES floats per board, `stride` floats apart. */
void bg_encode_batch(const int8_t *boards, int n, float *out, int stride, int on_roll_row);

/* The 20 board features of features.py (the side on roll's ten, then the opponent's) for
 * n boards, row `on_roll_row` on roll; 20 floats per board, `stride` floats apart. */
void bg_board_features_batch(const int8_t *boards, int n, float *out, int stride, int on_roll_row);

/* Legal results of one roll: boards (n x 50, gnubg row order, mover still in row 1),
 * steps (n x 8: up to four (from, to) pairs, 1-based, 25 = bar, 0 = off), step counts.
 * Returns n, or an error code. */
int bg_legal_moves(const int8_t *board, int d1, int d2, int8_t *out_boards, int8_t *out_steps,
                   int8_t *out_nsteps, int cap, int *where);

/* Results of many (board, dice) inputs.  Input i's results occupy rows
 * offsets[i] .. offsets[i+1]-1 of out_boards (50 int8 each) and, when out_feats is
 * not NULL, of out_feats (feat_stride floats each, encoded with row `on_roll_row`
 * on roll).  offsets[0] must be set by the caller (the first free row).
 * Returns how many inputs were done (fewer than n when out_cap rows ran out: grow
 * the buffers and call again from there), or an error code with *where = input index. */
int bg_expand_batch(const int8_t *boards, const int8_t *dice, int n, int8_t *out_boards,
                    float *out_feats, int feat_stride, int on_roll_row, int32_t *offsets,
                    int out_cap, int *where);

/* bg_expand_batch, but instead of the inputs each result gets its first hidden layer's
 * activations max(0, W1 x + b1) (hidden floats per row of out_act), with W1 x + b1
 * computed from the pre-move board's plus the weight columns of the inputs the move changed.  w1t is
 * W1 transposed, row-major ((196 + n_extra) x hidden); extra holds n_extra inputs per
 * input (columns 196..: the cube; at most BG_MAX_EXTRA), the same for all of its results. */
int bg_expand_first_layer(const int8_t *boards, const int8_t *dice, int n, const float *extra, int n_extra,
                          const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                          float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where);
/* The same with relu 0: the pre-activations W1 x + b1 (for hidden units other than ReLU,
 * which the caller applies); relu 1 is bg_expand_first_layer. */
int bg_expand_first_layer_ex(const int8_t *boards, const int8_t *dice, int n, const float *extra, int n_extra,
                             const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                             float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where,
                             int relu);
/* bg_expand_first_layer_ex where a run of identical inputs (board and extra: 1-ply's 21 rolls of
 * one position) reaches the same after-state more than once: each distinct after-state of the
 * run gets one hidden row (the same bits every copy would get), rows counted in *n_rows (in: rows
 * already used, e.g. 0; out: after this call), and out_src[r] (per result row r, like
 * out_boards) says which.  Results and offsets are as bg_expand_first_layer_ex's. */
int bg_expand_first_layer_distinct(const int8_t *boards, const int8_t *dice, int n, const float *extra,
                                   int n_extra, const float *w1t, const float *b1, int hidden, int8_t *out_boards,
                                   float *out_act, int on_roll_row, int32_t *offsets, int out_cap, int *where,
                                   int relu, int32_t *out_src, int *n_rows);
#endif
