#!/bin/sh
# Luck-adjusted results (issue 17): the same games with and without --luck, timed.
# Run from the repository root; each pair of lines plays identical dice (same seed).
set -e
G=${GAMES:-1000}
D=experiments/luck
run() { name=$1; shift; /usr/bin/time -f "wall %e s" -o $D/$name.time nice -n 10 .venv/bin/python play_models.py "$@" --games $G --workers 2 --quiet --json $D/$name.json > $D/$name.txt; }
run dmp_256x2_vs_gnubg-nn_luck --model1 best_models/dmp_256x2.pt --gnubg-nn --seed 21 --luck
run dmp_256x2_vs_gnubg-nn --model1 best_models/dmp_256x2.pt --gnubg-nn --seed 21
run cubeless_256x2_vs_pubeval_luck --model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 41 --luck
run cubeless_256x2_vs_pubeval --model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 41
run cubeless_256x2_vs_pubeval_luck_prob5 --model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 41 --luck best_models/prob5_128x2.pt
