/* tdbg_move: best 0-ply move of a trained network, no Python needed.
 *
 *   tdbg_move WEIGHTS.bin PID D1 D2          one decision
 *   tdbg_move WEIGHTS.bin < lines            one "PID D1 D2" (or "PID D1D2") per line
 *   tdbg_move WEIGHTS.bin --eval < lines     raw network outputs of one PID per line
 *   options: --cube centered|mine|theirs (cubeful models; the mover's view), --cube-action (with --eval)
 *
 * Move output, tab-separated: PID, dice, move, value (mover's P(win) or equity), and the
 * Position ID of the result from the opponent's side (the next position to roll). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgcore.h"
#include "tdnet.h"

static void format_move(const int8_t *board, const tdnet_choice_t *c, char *out, size_t len) {
    int src[4], dst[4], hit[4], n = c->nsteps;
    int8_t opp[25];
    memcpy(opp, board, 25);
    for (int k = 0; k < n; k++) {
        src[k] = c->steps[2 * k], dst[k] = c->steps[2 * k + 1];
        hit[k] = dst[k] >= 1 && dst[k] <= 24 && opp[24 - dst[k]] == 1;
        if (hit[k])
            opp[24 - dst[k]] = 0;
    }
    /* highest point first, as backgammon_engine.format_move */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (src[j] > src[i] || (src[j] == src[i] && dst[j] > dst[i])) {
                int t;
                t = src[i], src[i] = src[j], src[j] = t;
                t = dst[i], dst[i] = dst[j], dst[j] = t;
                t = hit[i], hit[i] = hit[j], hit[j] = t;
            }
    out[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && src[j] == src[i] && dst[j] == dst[i] && hit[j] == hit[i])
            j++;
        char a[8], b[8];
        snprintf(a, sizeof a, "%d", src[i]);
        snprintf(b, sizeof b, "%d", dst[i]);
        used += (size_t)snprintf(out + used, len - used, "%s%s/%s%s", used ? " " : "", src[i] == 25 ? "bar" : a,
                                 dst[i] == 0 ? "off" : b, hit[i] ? "*" : "");
        if (j - i > 1)
            used += (size_t)snprintf(out + used, len - used, "(%d)", j - i);
        i = j;
    }
    if (n == 0)
        snprintf(out, len, "(no move)");
}

static int parse_dice(const char *a, const char *b, int *d1, int *d2) {
    if (b == NULL) { /* "31" form */
        if (strlen(a) != 2)
            return -1;
        *d1 = a[0] - '0', *d2 = a[1] - '0';
    } else {
        char *e1, *e2;
        long x = strtol(a, &e1, 10), y = strtol(b, &e2, 10);
        if (*e1 || *e2)
            return -1;
        *d1 = (int)x, *d2 = (int)y;
    }
    return (*d1 >= 1 && *d1 <= 6 && *d2 >= 1 && *d2 <= 6) ? 0 : -1;
}

/* The board of a Position ID (0), or 2 after one error line: not an ID, or a finished game
   (a side with no checkers left has borne off: there is no move to choose or value to give). */
static int read_board(const char *pid, int8_t *board, long line) {
    if (tdnet_board_from_id(pid, board) != 0) {
        fprintf(stderr, "tdbg_move: error: line %ld: %s is not a valid Position ID\n", line, pid);
        return 2;
    }
    for (int row = 0; row < 2; row++) {
        int n = 0;
        for (int i = 0; i < 25; i++)
            n += board[25 * row + i];
        if (n == 0) {
            fprintf(stderr, "tdbg_move: error: line %ld: %s: %s has no checkers left: the game is over\n", line, pid,
                    row ? "the side on roll" : "the opponent");
            return 2;
        }
    }
    return 0;
}

static int decide(const tdnet_t *net, const char *pid, const char *da, const char *db, int owner, long line) {
    int8_t board[50];
    int d1, d2;
    if (read_board(pid, board, line) != 0)
        return 2;
    if (parse_dice(da, db, &d1, &d2) != 0) {
        fprintf(stderr, "tdbg_move: error: line %ld: dice must be two numbers from 1 to 6\n", line);
        return 2;
    }
    tdnet_choice_t c;
    int rc = tdnet_best_move(net, board, d1, d2, owner, &c);
    if (rc != 0) {
        fprintf(stderr, "tdbg_move: error: line %ld: move generation failed (code %d)\n", line, rc);
        return 2;
    }
    char text[96], next[15];
    int8_t swapped[50];
    memcpy(swapped, c.after + 25, 25);
    memcpy(swapped + 25, c.after, 25);
    tdnet_position_id(swapped, next);
    format_move(board, &c, text, sizeof text);
    printf("%s\t%d%d\t%s\t%.6f\t%s\n", pid, d1, d2, text, c.value, next);
    return 0;
}

static int evaluate(const tdnet_t *net, const char *pid, int owner, int cube_action, long line) {
    int8_t board[50];
    if (read_board(pid, board, line) != 0)
        return 2;
    int width = tdnet_inputs(net), outs = tdnet_outputs(net);
    float feats[200] = {0}, out[5], scratch[2 * TDNET_MAX_WIDTH];
    bg_encode_batch(board, 1, feats, width, 1);
    if (width == 200) {
        feats[196 + owner] = 1.0f;
        feats[199] = (float)cube_action;
    }
    if (tdnet_forward(net, feats, 1, out, scratch) != 0) {
        fprintf(stderr, "tdbg_move: error: out of memory\n");
        return 2;
    }
    printf("%s", pid);
    for (int k = 0; k < outs; k++)
        printf(" %.8f", out[k]);
    printf("\n");
    return 0;
}

int main(int argc, char **argv) {
    const char *weights = NULL, *pos[3] = {0};
    int npos = 0, eval_mode = 0, owner = TDNET_CUBE_CENTERED, cube_action = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--eval"))
            eval_mode = 1;
        else if (!strcmp(argv[i], "--cube-action"))
            cube_action = 1;
        else if (!strcmp(argv[i], "--cube") && i + 1 < argc) {
            const char *v = argv[++i];
            owner = !strcmp(v, "centered") ? 0 : !strcmp(v, "mine") ? 1 : !strcmp(v, "theirs") ? 2 : -1;
            if (owner < 0) {
                fprintf(stderr, "tdbg_move: error: --cube takes centered, mine or theirs\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: tdbg_move WEIGHTS.bin [PID D1 D2] [--eval] [--cube centered|mine|theirs] [--cube-action]\n"
                   "  without PID: reads 'PID D1 D2' lines (or PID lines with --eval) from stdin\n");
            return 0;
        } else if (!weights)
            weights = argv[i];
        else if (npos < 3)
            pos[npos++] = argv[i];
        else {
            fprintf(stderr, "tdbg_move: error: too many arguments\n");
            return 2;
        }
    }
    if (!weights) {
        fprintf(stderr, "tdbg_move: error: usage: tdbg_move WEIGHTS.bin [PID D1 D2] [--eval]\n");
        return 2;
    }
    tdnet_t net;
    char err[512];
    if (tdnet_load(weights, &net, err, sizeof err) != 0) {
        fprintf(stderr, "tdbg_move: error: %s\n", err);
        return 2;
    }
    int rc = 0;
    if (npos > 0) {
        if (eval_mode)
            rc = evaluate(&net, pos[0], owner, cube_action, 0);
        else if (npos == 3 || npos == 2)
            rc = decide(&net, pos[0], pos[1], npos == 3 ? pos[2] : NULL, owner, 0);
        else {
            fprintf(stderr, "tdbg_move: error: give a Position ID and two dice\n");
            rc = 2;
        }
    } else {
        char buf[256];
        long line = 0;
        while (rc == 0 && fgets(buf, sizeof buf, stdin)) {
            line++;
            char *tok[3] = {0};
            int nt = 0;
            for (char *t = strtok(buf, " \t\r\n"); t && nt < 3; t = strtok(NULL, " \t\r\n"))
                tok[nt++] = t;
            if (nt == 0)
                continue;
            if (eval_mode)
                rc = evaluate(&net, tok[0], owner, cube_action, line);
            else if (nt >= 2)
                rc = decide(&net, tok[0], tok[1], nt == 3 ? tok[2] : NULL, owner, line);
            else {
                fprintf(stderr, "tdbg_move: error: line %ld: expected 'PID D1 D2'\n", line);
                rc = 2;
            }
        }
    }
    tdnet_free(&net);
    return rc;
}
