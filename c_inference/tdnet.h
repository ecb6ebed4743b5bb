/* Standalone inference for networks exported by tools/export_weights.py.
 * File format: see tools/export_weights.py (magic "TDBGNET1", versions 1 and 2). */
#ifndef TDNET_H
#define TDNET_H
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define TDNET_MAX_LAYERS 64
#define TDNET_MAX_WIDTH 65536

enum { TDNET_PROBABILITY = 0, TDNET_EQUITY = 1, TDNET_PROB5 = 2 };
enum { TDNET_DMP = 0, TDNET_CUBELESS = 1, TDNET_CUBEFUL = 2 };
enum { TDNET_CUBE_CENTERED = 0, TDNET_CUBE_MINE = 1, TDNET_CUBE_THEIRS = 2 };
enum { TDNET_RELU = 0, TDNET_SIGMOID = 1, TDNET_TANH = 2, TDNET_LEAKY_RELU = 3 }; /* hidden units */

typedef struct {
    int output_mode, game_mode, jacoby, activation;
    int n_layers;                  /* hidden layers + head */
    int sizes[TDNET_MAX_LAYERS + 2]; /* inputs, hidden..., outputs */
    int max_width;
    float *blob;                   /* all weights and biases, one allocation */
    float *w[TDNET_MAX_LAYERS + 1];  /* transposed: in x out */
    float *b[TDNET_MAX_LAYERS + 1];
    float *panels;                 /* the weights again, in panels of 16 outputs (tdnet.c) */
    float *wp[TDNET_MAX_LAYERS + 1];
    float *rowwise;                /* layers of fewer than 16 outputs also row-major (out x in) */
    float *wr[TDNET_MAX_LAYERS + 1];
} tdnet_t;

/* Load a .bin file.  Returns 0, or -1 with a one-line reason in err; never reads
 * past the data it has checked the size of. */
int tdnet_load(const char *path, tdnet_t *net, char *err, size_t errlen);
/* An input file opened for reading, or NULL with a one-line reason in err ("PATH: what").
 * Only a regular file is opened: a folder, a FIFO, a socket or a device is refused before
 * anything is read from it (a FIFO is not waited on), as the Python scripts refuse them. */
FILE *tdnet_open_input(const char *path, const char *what, char *err, size_t errlen);
void tdnet_free(tdnet_t *net);

static inline int tdnet_inputs(const tdnet_t *net) { return net->sizes[0]; }
static inline int tdnet_outputs(const tdnet_t *net) { return net->sizes[net->n_layers]; }

/* n rows of encoded positions in, n rows of outputs out (side on roll's view).
 * scratch: at least tdnet_scratch_floats(net, n) floats. */
size_t tdnet_scratch_floats(const tdnet_t *net, int n);
int tdnet_forward(const tdnet_t *net, const float *in, int n, float *out, float *scratch); /* 0, or BG_ERR_NOMEM */

/* The number a player maximises (P(win) or equity) of one output row. */
float tdnet_scalar(const tdnet_t *net, const float *row);

typedef struct {
    int8_t after[50];    /* resulting board, mover still in row 1 */
    int8_t steps[8];     /* up to four (from, to) pairs, 25 = bar, 0 = off */
    int nsteps;
    float value;         /* mover's value of the result (P(win) or equity) */
    int candidates;
} tdnet_choice_t;

/* Best 0-ply move of board (gnubg order, row 1 on roll) for the roll, with the cube
 * owned by `owner` (mover's view; cubeful models only).  Returns 0 or an error code
 * from bgcore.h. */
int tdnet_best_move(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner,
                    tdnet_choice_t *choice);
/* The same choice without its steps (nsteps 0): one move generation less, for players. */
int tdnet_best_result(const tdnet_t *net, const int8_t *board, int d1, int d2, int owner,
                      tdnet_choice_t *choice);

/* gnubg Position ID (14 chars + NUL) and back (returns 0, or -1 if malformed). */
void tdnet_position_id(const int8_t *board, char out[15]);
int tdnet_board_from_id(const char *pid, int8_t *board);
#endif
