"""The backgammon TD-learning library, in layers.

Each layer imports only from the layers listed before it (this order is the one place
it is written; tests/codebase/test_layers.py enforces it):

    infra   errors, files and the output policy, worker processes, backends, Ray, run logs,
            statistics, provenance, settings fields: no backgammon
    game    rules (engine, C move generator c_engine, dice), network inputs (encoding, features),
            position IDs, bear-off, cube state, output heads, the turn loop, game modes
            (modes/, one module per mode), match equity tables: numpy only
    net     the network and its checkpoints, growth, losses, batched scoring, search: torch
    play    agents (reference, TD, prob5, gnubg-nn), which agent plays a checkpoint
            (players), games and matches, luck, rollouts, decisions, analysis, .mat files,
            quick evaluations, result files, the series runner
    learn   self-play, lambda returns, trainers, batch and online TD, the stage runner,
            the stage settings
    gnubg   the GNU Backgammon binary: preflight, protocol, external player, analysis
    app     what the scripts share: command-line pieces, flags made from the settings
            dataclasses (below app settings are dataclasses, never argparse), backend
            flags, the training scripts' parsers, the play and eval commands, games against gnubg-ext,
            the plots (one unit per game mode)

learn and gnubg sit side by side: neither imports the other.  Imports inside functions
are only for optional dependencies (ray, gnubg_nn, tensorboard, the built C engine:
game.c_engine and its extension game._bgcore).
The scripts at the top level (train_*.py, play_models.py, gnubg_eval.py) and tools/
parse flags and call into this package.
"""

LAYERS = ("infra", "game", "net", "play", "learn", "gnubg", "app")
SIDE_BY_SIDE = (("learn", "gnubg"),)  # same rank: neither may import the other
