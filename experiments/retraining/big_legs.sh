#!/usr/bin/env bash
# Money and match legs rebuilt on the best DMP net, [512,512,256] (best_models/dmp_512x2x256.pt,
# 47.70% against gnubg-nn in DMP where the 256x2 legs' base has 45.42%).  Why: the match model's
# cube play is no longer what limits it most (match leg s10); its chequer play is, and that comes
# from the base net.  Rerun to continue (each stage resumes where it stopped).
#  b1: cubeless money, DMP trunk + fresh equity head (--warm-start-equity), warm-up 20 rounds;
#      planned for 400k episodes, ended at 203,800: its 1,000-game checks were flat (-0.138,
#      -0.166, -0.151, -0.135 at rounds 250-1000), and the match leg needs the time more
#  b2: cubeful money (--warm-start-cubeful), 150k
#  b3: match play, mwc-outcomes head (--warm-start-match), lambda-returns, greedy cube, turned starts;
#      released at 336,800 (best_models/match_512x2x256.pt), continued to its planned 600,000
#  b5: b3 at 600,000 continued with --cube-hold 0.4 (roll on in 40% of the positions the rule
#      doubles in, so keeping the cube is valued where greedy play never looks: b3's early doubles
#      cost about as much as its chequer play in gnubg's analysis) and --take-explore 0.4 (take 40%
#      of the doubles the rule drops: b3 drops 47% of gnubg's correct takes), Adam 4e-5 -> 1e-5
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=experiments/retraining/big
mkdir -p $D
DMP=${DMP:-best_models/dmp_512x2x256.pt}
W=${WORKERS:-2}
COMMON="--workers $W --quiet --episodes-per-round 200 --parallel-games 100 --eval-every 250 --eval-opponent gnubg-nn --eval-games 1000"
$R train_batch.py $D/cubeless_512x2x256.pt - --warm-start-equity $DMP --num-episodes 203800 \
   --lr 2e-4 --end-lr 5e-5 --warmup-cycles 20 --seed 21 $COMMON
$R train_batch.py $D/cubeful_512x2x256.pt - --warm-start-cubeful $D/cubeless_512x2x256.pt --num-episodes 150000 \
   --lr 1e-4 --end-lr 3e-5 --warmup-cycles 20 --seed 22 $COMMON
$R train_batch.py $D/match_512x2x256.pt - --warm-start-match $D/cubeful_512x2x256.pt --match-head mwc-outcomes \
   --game-mode match --cube-start 0.3 --td-lambda 0.7 --num-episodes 600000 --lr 1e-4 --end-lr 2e-5 \
   --warmup-cycles 20 --seed 23 --workers $W --quiet --episodes-per-round 200 --parallel-games 100 \
   --eval-every 250 --eval-opponent gnubg-nn --eval-games 500
$R train_batch.py $D/match_512x2x256_hold.pt $D/match_512x2x256.pt --new-stage --game-mode match --cube-hold 0.4 \
   --take-explore 0.4 --cube-start 0.3 --td-lambda 0.7 --num-episodes 300000 --lr 4e-5 --end-lr 1e-5 --seed 25 --workers ${W5:-1} \
   --quiet --episodes-per-round 200 --parallel-games 100 --save-every 250 --eval-every 250 \
   --eval-opponent gnubg-nn --eval-games 500
#  b6: b5 continued for 300k more with --cube-hold 0.5 (b5 still doubled below gnubg's doubling point in
#      599 of 1,066 doubles) and --take-explore 0.4, Adam 2e-5 -> 1e-5; finished (1.38 CPU-hours):
#      38.90% [36.10, 41.90] against gnubg-ext over 1,000 7-point matches (b5: 44.50%, 40.10% on fresh dice), though gnubg's
#      analysis rates its play no worse than b5's (experiments/retraining/README.md, "b6 and b7")
$R train_batch.py $D/match_512x2x256_hold2.pt $D/match_512x2x256_hold.pt --new-stage --game-mode match --cube-hold 0.5 \
   --take-explore 0.4 --cube-start 0.3 --td-lambda 0.7 --num-episodes 300000 --lr 2e-5 --end-lr 1e-5 --seed 26 --workers ${W6:-1} \
   --quiet --episodes-per-round 200 --parallel-games 100 --save-every 250 --eval-every 250 \
   --eval-opponent gnubg-nn --eval-games 500
#  b7: b5 refined with exact 1-ply targets (--oneply, as the DMP and cubeful legs' 1-ply stages, which
#      gained there) for 12,000 episodes, with b5's cube exploration; about 4.4 episodes/s on one core;
#      finished (0.79 CPU-hours): 43.30% [40.10, 46.30] against gnubg-ext, chequer 7.07 in self-play (b5: 7.46)
$R train_batch.py $D/match_512x2x256_1ply.pt $D/match_512x2x256_hold.pt --new-stage --game-mode match --oneply \
   --cube-hold 0.4 --take-explore 0.4 --cube-start 0.3 --num-episodes 12000 --lr 2e-5 --end-lr 1e-5 --seed 27 \
   --workers ${W7:-1} --quiet --episodes-per-round 40 --parallel-games 20 --save-every 50 --eval-every 0
