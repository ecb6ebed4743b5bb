"""CPU time of the turn loop in one process, for A/B runs of two checkouts on a loaded
machine (interleave them; process time is less sensitive to the load than wall time).

    for t in OLD_TREE NEW_TREE; do nice -n 19 .venv/bin/python experiments/identity/ab_speed.py $t selfplay dmp; done

The library is imported from TREE: the script runs itself again with PYTHONPATH=TREE, which
comes before the installed (editable) package.

``selfplay``: 256 episodes of a fresh [256,256,256] net, 128 games at a time;
``match``: 400 games of a fresh [256,256,256] TDAgent against a [128,128] one."""

from dataclasses import replace
import json
import os
import sys
import time

tree, kind, mode_name = sys.argv[1:4]
if os.environ.get("PYTHONPATH") != tree:
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONPATH": tree})

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tdbg.infra import threads  # noqa: E402
from tdbg.net.model import TDNetwork  # noqa: E402
from tdbg.game.modes import game_mode  # noqa: E402

threads.use()
mode = game_mode(mode_name)
torch.manual_seed(0)
big = TDNetwork(mode.n_inputs, [256, 256, 256], mode.outputs[0]).eval()
if kind == "selfplay":
    from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup

    sp = SelfPlay(
        big, SelfPlaySetup(mode, replace(FP32_COLLECTION, parallel_games=128), engine="c")
    )
    sp.collect(16, np.random.default_rng(0))  # warm-up
    t = time.process_time()
    sp.collect(256, np.random.default_rng(1))
    rate = {"episodes_per_cpu_s": round(256 / (time.process_time() - t), 2)}
else:
    from tdbg.play.match import play_games
    from tdbg.play.players import Player
    from tdbg.play.seating import evaluator

    a = evaluator(Player("big"), mode, model=big)
    b = evaluator(
        Player("small"), mode, model=TDNetwork(mode.n_inputs, [128, 128], mode.outputs[0])
    )
    play_games(a, b, range(20), mode, 0)  # warm-up
    t = time.process_time()
    play_games(a, b, range(400), mode, 1)
    rate = {"games_per_cpu_s": round(400 / (time.process_time() - t), 1)}
print(json.dumps({"tree": tree, "kind": kind, "mode": mode_name, **rate}))
