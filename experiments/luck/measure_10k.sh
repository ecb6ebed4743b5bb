#!/bin/sh
# Luck adjustment at 10,000 games (issue 17), with batched checkpoint references: gnubg-nn's
# 21 bestmove calls per position would cost about 3 CPU-hours per 10,000 DMP games here.
# Then the gnubg binary (its dice read back from the .mat it exports), cubeful, 1,000 games.
# Run from the repository root of a clean checkout; results in experiments/luck/.
set -e
G=${GAMES:-10000}
GX=${GAMES_EXT:-1000}
D=experiments/luck
run() { name=$1; shift; /usr/bin/time -f "wall %e s" -o $D/$name.time nice -n 10 .venv/bin/python play_models.py "$@" --workers 2 --quiet --json $D/$name.json > $D/$name.txt; }
run dmp_256x2_vs_gnubg-nn_10k_luck_1ply --model1 best_models/dmp_256x2.pt --gnubg-nn --seed 21 --games $G --luck best_models/dmp_256x2_1ply.pt
run cubeless_256x2_vs_pubeval_10k_luck_prob5 --model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 41 --games $G --luck best_models/prob5_128x2.pt
run cubeful_256x2_1ply_vs_gnubg-ext_luck --model1 best_models/cubeful_256x2_1ply.pt --model2 gnubg-ext --seed 808 --games $GX --luck --games-csv $D/cubeful_256x2_1ply_vs_gnubg-ext_luck.games.csv
