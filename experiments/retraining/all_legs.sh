#!/usr/bin/env bash
# The whole ladder in the order that gives usable models soonest: every sampled-target
# stage (DMP, cubeless, cubeful, prob5), then the slow 1-ply refinements.  Rerun to continue.
set -euo pipefail
cd "$(dirname "$0")"
./dmp_leg.sh 0ply
./money_legs.sh 0ply
./dmp_leg.sh 1ply
./money_legs.sh 1ply
./dmp_leg.sh s4   # the long DMP polish last: everything above is usable before it
