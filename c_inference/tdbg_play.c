/* tdbg_play: two exported networks play N games at 0-ply, no Python needed.
 *
 *   tdbg_play A.bin B.bin --dice FILE [--games N]     play_models.py's games (tools/dice_file.py)
 *   tdbg_play A.bin B.bin --seed S --games N          built-in dice (not numpy's stream)
 *
 * Games follow match.play_games: game g starts from the initial position with model A
 * on roll in the even games and model B in the odd ones; roll i of the game is the
 * dice of its i-th move (roll 0 is the opening roll, never a double).  With duplicate
 * dice (the default) games 2k and 2k+1 replay the same rolls with the seats swapped.
 * A game still going after 3000 moves is abandoned with 0 points, as in match.py.
 * Points are from A's side: DMP +-1, cubeless money +-1/2/3.  Cubeful models are
 * refused (no cube decisions here). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgcore.h"
#include "tdnet.h"

#define MAX_PLIES 3000 /* turns.MAX_PLIES */
#define MAX_GAMES 100000000L

static const char *USAGE =
    "usage: tdbg_play A.bin B.bin (--dice FILE | --seed S) [--games N] [--no-duplicate] [--per-game] [--trace]\n"
    "  Two networks exported by tools/export_weights.py (DMP or cubeless money; both the same\n"
    "  game mode) play N games at 0-ply; model A is on roll first in the even games.\n"
    "  --dice FILE     one line per game, its rolls in order ('31 64 22 ...'): tools/dice_file.py\n"
    "                  writes play_models.py's dice for a --seed, so the games are play_models.py's\n"
    "                  (default N: every line of the file)\n"
    "  --seed S        built-in dice generator instead (its own stream, not play_models.py's);\n"
    "                  default N 1000\n"
    "  --no-duplicate  with --seed: every game its own dice (default: games 2k and 2k+1 share\n"
    "                  their rolls with the seats swapped; with --dice the file decides)\n"
    "  --per-game      print one line per game: game, first (0 = A), points for A, result\n"
    "                  (1/2/3 single/gammon/backgammon, -1 abandoned), moves\n"
    "  --trace         print every move: game, move number, mover (0 = A), dice, Position ID of\n"
    "                  the result from the next side on roll, mover's value of the chosen move\n"
    "Prints a summary: games, wins, points per game for A, and the mean over duplicate pairs\n"
    "with its standard error.\n";

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tdbg_play: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* ------------------------------------------------------------------ built-in dice */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int die_face(uint64_t *s) {
    for (;;) { /* unbiased: reject the top of the range */
        uint64_t x = splitmix64(s);
        if (x < 0xFFFFFFFFFFFFFFFCull)
            return 1 + (int)(x % 6);
    }
}

/* Rolls of one game (or pair) from (seed, stream): the first is never a double. */
static void seeded_rolls(long seed, long stream, int8_t *rolls, int n) {
    uint64_t s = (uint64_t)seed * 0xD1B54A32D192ED03ull ^ ((uint64_t)stream + 1) * 0x8CB92BA72F3D8DD7ull;
    for (int i = 0; i < n; i++) {
        do {
            rolls[2 * i] = (int8_t)die_face(&s);
            rolls[2 * i + 1] = (int8_t)die_face(&s);
        } while (i == 0 && rolls[0] == rolls[1]);
    }
}

/* One line of a dice file into rolls; returns the number of rolls, or -1 with a reason. */
static int parse_dice_line(char *line, int8_t *rolls, int cap, const char **why) {
    int n = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        if (strlen(t) != 2 || t[0] < '1' || t[0] > '6' || t[1] < '1' || t[1] > '6') {
            *why = "rolls must be two digits from 1 to 6 ('31 64 ...')";
            return -1;
        }
        if (n >= cap) {
            *why = "more rolls than a game can use (3000)";
            return -1;
        }
        rolls[2 * n] = (int8_t)(t[0] - '0');
        rolls[2 * n + 1] = (int8_t)(t[1] - '0');
        n++;
    }
    if (n == 0)
        *why = "no rolls";
    else if (rolls[0] == rolls[1])
        *why = "the opening roll (the first) cannot be a double";
    else
        return n;
    return -1;
}

/* Line g (0-based) of the dice file into rolls: the number of rolls, 0 at the end of
 * the file; a bad line stops the program with one error line.  The line is read byte by
 * byte, not as a C string: a NUL byte in it is refused, where fgets and strtok would end
 * the line there and leave the rest unread. */
static int read_dice_line(FILE *fh, const char *path, long g, char *line, size_t cap, int8_t *rolls) {
    size_t n = 0;
    int c;
    while ((c = getc(fh)) != EOF && c != '\n') {
        if (c == '\0')
            die("%s line %ld: holds a NUL byte (a dice file is text: '31 64 ...')", path, g + 1);
        if (n + 1 >= cap)
            die("%s line %ld: too long (a game has at most 3000 rolls)", path, g + 1);
        line[n++] = (char)c;
    }
    if (ferror(fh))
        die("%s: cannot read the dice file", path);
    if (n == 0 && c == EOF)
        return 0;
    line[n] = '\0';
    const char *why = NULL;
    int got = parse_dice_line(line, rolls, MAX_PLIES, &why);
    if (got < 0)
        die("%s line %ld: %s", path, g + 1, why);
    return got;
}

/* ------------------------------------------------------------------ one game */

typedef struct {
    int first;     /* 0: A moved first */
    int points;    /* for A */
    int result;    /* 1/2/3, -1 abandoned */
    int moves;
} game_t;

static const int8_t INITIAL_ROW[25] = {0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0};

static int win_result(const int8_t *after) { /* the mover (row 1) has borne off everything */
    int sum = 0, deep = 0;
    for (int i = 0; i < 25; i++)
        sum += after[i];
    for (int i = 18; i < 25; i++)
        deep += after[i];
    return sum < 15 ? 1 : deep ? 3 : 2;
}

/* Plays game `g`; returns 0, or -1 with *need set when the rolls ran out. */
static int play_game(const tdnet_t *nets[2], long g, const int8_t *rolls, int nrolls, int dmp, int trace,
                     game_t *out) {
    int8_t board[50];
    memcpy(board, INITIAL_ROW, 25);
    memcpy(board + 25, INITIAL_ROW, 25);
    out->first = (int)(g % 2);
    for (int ply = 0; ply < MAX_PLIES; ply++) {
        if (ply >= nrolls)
            return -1;
        int mover = (out->first + ply) % 2;
        tdnet_choice_t c;
        int rc = tdnet_best_result(nets[mover], board, rolls[2 * ply], rolls[2 * ply + 1], TDNET_CUBE_CENTERED, &c);
        if (rc != 0)
            die("game %ld move %d: move generation failed (code %d)", g, ply, rc);
        int8_t next[50];
        memcpy(next, c.after + 25, 25);
        memcpy(next + 25, c.after, 25);
        if (trace) {
            char pid[15];
            tdnet_position_id(next, pid);
            printf("move\t%ld\t%d\t%d\t%d%d\t%s\t%.8f\n", g, ply, mover, rolls[2 * ply], rolls[2 * ply + 1], pid,
                   (double)c.value);
        }
        int left = 0;
        for (int i = 0; i < 25; i++)
            left += c.after[25 + i];
        if (left == 0) {
            out->result = win_result(c.after);
            int pts = dmp ? 1 : out->result;
            out->points = mover == 0 ? pts : -pts;
            out->moves = ply + 1;
            return 0;
        }
        memcpy(board, next, 50);
    }
    out->result = -1;
    out->points = 0;
    out->moves = MAX_PLIES;
    return 0;
}

/* ------------------------------------------------------------------ main */

static long parse_long(const char *flag, const char *v, long lo, long hi) {
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        fprintf(stderr, "tdbg_play: error: %s takes a whole number from %ld to %ld, not '%s'\n", flag, lo, hi, v);
        exit(2);
    }
    return x;
}

static const char *MODE_NAMES[] = {"dmp", "cubeless-money", "cubeful-money"};

int main(int argc, char **argv) {
    const char *paths[2] = {0}, *dice_path = NULL;
    long games = -1, seed = 0;
    int have_seed = 0, duplicate = 1, per_game = 0, trace = 0, npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else if (!strcmp(a, "--dice") || !strcmp(a, "--seed") || !strcmp(a, "--games")) {
            if (i + 1 >= argc)
                die("%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--dice"))
                dice_path = v;
            else if (!strcmp(a, "--seed"))
                seed = parse_long(a, v, 0, 0x7FFFFFFFL), have_seed = 1;
            else
                games = parse_long(a, v, 1, MAX_GAMES);
        } else if (!strcmp(a, "--no-duplicate"))
            duplicate = 0;
        else if (!strcmp(a, "--per-game"))
            per_game = 1;
        else if (!strcmp(a, "--trace"))
            trace = 1;
        else if (a[0] == '-' && a[1])
            die("unknown option %s (see --help)", a);
        else if (npaths < 2)
            paths[npaths++] = a;
        else
            die("too many arguments: %s (see --help)", a);
    }
    if (npaths < 2)
        die("give two weights files, A.bin and B.bin (see --help)");
    if (!!dice_path == have_seed)
        die("give exactly one of --dice FILE and --seed S");
    if (dice_path && !duplicate)
        die("--no-duplicate applies to --seed only (with --dice the file decides)");

    tdnet_t nets[2];
    char err[512];
    for (int k = 0; k < 2; k++) {
        if (tdnet_load(paths[k], &nets[k], err, sizeof err) != 0)
            die("%s", err);
        if (nets[k].game_mode == TDNET_CUBEFUL)
            die("%s is a cubeful model: tdbg_play plays DMP and cubeless money only (no cube decisions); "
                "use play_models.py", paths[k]);
    }
    if (nets[0].game_mode != nets[1].game_mode) {
        fprintf(stderr, "tdbg_play: error: the models play different games: %s is %s, %s is %s\n", paths[0],
                MODE_NAMES[nets[0].game_mode], paths[1], MODE_NAMES[nets[1].game_mode]);
        return 2;
    }
    int dmp = nets[0].game_mode == TDNET_DMP;

    FILE *dice = NULL;
    if (dice_path) {
        dice = tdnet_open_input(dice_path, "the dice file", err, sizeof err);
        if (!dice)
            die("%s", err);
    } else if (games < 0)
        games = 1000;

    const tdnet_t *order[2] = {&nets[0], &nets[1]};
    int8_t *rolls = (int8_t *)malloc(2 * MAX_PLIES);
    size_t cap = 8 * MAX_PLIES;
    char *line = (char *)malloc(cap);
    if (!rolls || !line)
        die("out of memory");
    if (dice) { /* check every line before the first game: bad input stops the run before any output */
        long lines = 0;
        while (games < 0 || lines < games) {
            int got = read_dice_line(dice, dice_path, lines, line, cap, rolls);
            if (got == 0)
                break;
            lines++;
        }
        if (lines == 0)
            die("%s holds no games", dice_path);
        if (games >= 0 && lines < games)
            die("%s has %ld lines (games), fewer than --games %ld", dice_path, lines, games);
        games = lines;
        rewind(dice);
    }
    long played = 0, wins[2] = {0, 0}, abandoned = 0, gammons = 0, backgammons = 0, pairs = 0;
    double total = 0, pair_sum = 0, pair_sq = 0;
    int prev_points = 0, nrolls = 0;
    for (long g = 0; g < games; g++) {
        if (dice) {
            nrolls = read_dice_line(dice, dice_path, g, line, cap, rolls);
        } else if (!duplicate || g % 2 == 0) {
            nrolls = MAX_PLIES;
            seeded_rolls(seed, duplicate ? g / 2 : g, rolls, nrolls);
        }
        game_t r;
        if (play_game(order, g, rolls, nrolls, dmp, trace, &r) != 0) {
            fprintf(stderr, "tdbg_play: error: %s line %ld: game %ld needs more than its %d rolls "
                    "(write more with tools/dice_file.py --rolls)\n", dice_path, g + 1, g, nrolls);
            return 2;
        }
        if (per_game)
            printf("game\t%ld\t%d\t%d\t%d\t%d\n", g, r.first, r.points, r.result, r.moves);
        played++;
        total += r.points;
        if (r.result < 0)
            abandoned++;
        else {
            wins[r.points > 0 ? 0 : 1]++;
            gammons += r.result == 2, backgammons += r.result == 3;
        }
        if (g % 2 == 1) { /* the pair (g-1, g) is complete */
            double m = 0.5 * (prev_points + r.points);
            pairs++, pair_sum += m, pair_sq += m * m;
        }
        prev_points = r.points;
    }
    const int paired = dice || duplicate;
    printf("tdbg_play: %ld games, %s, A = %s, B = %s, dice: ", played, MODE_NAMES[nets[0].game_mode], paths[0],
           paths[1]);
    if (dice)
        printf("%s\n", dice_path);
    else
        printf("built-in, seed %ld%s\n", seed, duplicate ? ", duplicate pairs" : "");
    printf("A wins %ld (%.2f%%), B wins %ld, abandoned %ld; gammons %ld, backgammons %ld\n", wins[0],
           100.0 * wins[0] / played, wins[1], abandoned, gammons, backgammons);
    printf("A points per game %+.4f (total %+.0f)\n", total / played, total);
    if (paired && pairs > 0) {
        double mean = pair_sum / pairs, var = pairs > 1 ? (pair_sq - pairs * mean * mean) / (pairs - 1) : 0;
        printf("%ld %s pairs (games 2k, 2k+1): A points per game %+.4f, standard error %.4f\n", pairs,
               dice ? "game" : "duplicate", mean, var > 0 ? sqrt(var / pairs) : 0.0);
    }
    if (dice)
        fclose(dice);
    free(rolls), free(line);
    tdnet_free(&nets[0]), tdnet_free(&nets[1]);
    return 0;
}
