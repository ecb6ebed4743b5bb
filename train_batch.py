#!/usr/bin/env python3
"""Batch TD(0) self-play training: rounds of games, then one epoch of minibatch training.

The documented chain (each stage warm-starts from the previous one):

  python train_batch.py --hidden 128,128 --num-episodes 20000 --save models/dmp.pt
  python train_batch.py --warm-start-equity models/dmp.pt --num-episodes 20000 --save models/cubeless.pt
  python train_batch.py --warm-start-cubeful models/cubeless.pt --warmup-cycles 20 --num-episodes 20000 --save models/cubeful.pt
  python train_batch.py --resume models/cubeful.pt --oneply --num-episodes 5000 --save models/cubeful_1ply.pt
"""
from __future__ import annotations


from tdbg.app import backend_flags, cli
from tdbg.game.modes import GAME_MODES
from tdbg.game.movegen import BACKENDS
from tdbg.infra import fileio, workers
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.filter_training import DEFAULT_WARMUP_EPISODES
from tdbg.learn.trainer import OPTIMIZERS
from tdbg.learn.training_loop import run_stage
from tdbg.net.model import ACTIVATIONS, parse_hidden
from tdbg.net.scoring import FIRST_LAYER_MODES
from tdbg.play.agents import REFERENCE_AGENTS


def hidden_arg(text: str) -> list[int]:
    try:
        return parse_hidden(text)
    except ValueError as exc:
        raise cli.argparse.ArgumentTypeError(str(exc)) from None


MAX_EPISODES_PER_ROUND = 20_000  # a round's samples are held in memory: about 90 kB per episode


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game-mode", choices=GAME_MODES, default=None,
                   help="default: the checkpoint's mode, or dmp from scratch")
    p.add_argument("--hidden", type=hidden_arg, default="80", help="hidden layer sizes (from scratch)")
    p.add_argument("--expand", type=hidden_arg, default=None,
                   help="grow the loaded/new net to these hidden sizes (Net2Net, function-preserving; "
                        "added layers as for --expand-depth-size)")
    p.add_argument("--expand-depth-size", type=cli.positive_int, default=None, metavar="N",
                   help="append a hidden layer of N units (after any --expand), function-preserving: as wide "
                        "as the last one or wider: identity weights; narrower: its units carry the head's "
                        "positive and negative parts (N >= 2 x outputs); ReLU nets only")
    p.add_argument("--board-features", action="store_true",
                   help="the network also reads the 20 hand-made board features of features.py (hitting "
                        "chances, escapes, primes...): a new one from the start, a loaded one that lacks them "
                        "gets them with zero weights (function-preserving)")
    p.add_argument("--activation", choices=ACTIVATIONS, default=None,
                   help="hidden units of a new network (default relu; Tesauro used sigmoid; leaky_relu has "
                        "slope 0.01); a loaded one keeps its own")
    p.add_argument("--resume", metavar="CKPT", help="continue from a checkpoint (its unfinished stage, given the "
                   "same settings; otherwise a new stage on its weights)")
    p.add_argument("--new-stage", action="store_true",
                   help="with --resume of an unfinished stage: start a new stage on its weights instead")
    p.add_argument("--warm-start-equity", metavar="DMP_CKPT", help="DMP trunk + fresh equity head -> cubeless money")
    p.add_argument("--warm-start-cubeful", metavar="CUBELESS_CKPT", help="196 -> 200 inputs -> cubeful money")
    p.add_argument("--warm-start-match", metavar="CUBEFUL_CKPT", help="200 -> 208 inputs, MWC head -> match play")
    p.add_argument("--match-head", choices=("mwc", "mwc-outcomes"), default=None,
                   help="with --warm-start-match: mwc (one sigmoid, the default) or mwc-outcomes (outcome "
                        "probabilities weighted by the score's payoffs; also converts an mwc match model)")
    p.add_argument("--keep-output-layer", action="store_true",
                   help="with --warm-start-equity: keep the DMP head (halved: equity 2 P(win) - 1 ~ logit / 2) "
                        "instead of a fresh small random one")
    p.add_argument("--match-length", type=cli.match_length_arg, default=None,
                   help="match play: self-play games start from the scores of N-point matches "
                        "(default: a spread up to 25 away, mostly within 11)")
    p.add_argument("--met", metavar="XML", help="match play: match equity table in GNU Backgammon's XML format "
                   "(default: the shipped Kazaross-XG2, data/met/)")
    p.add_argument("--num-episodes", type=cli.positive_int, default=10000, help="episodes in this stage")
    p.add_argument("--episodes-per-round", type=cli.count_arg(MAX_EPISODES_PER_ROUND, "(a round is held in memory)"),
                   default=500, help="self-play episodes collected before each training pass")
    p.add_argument("--oneply", action="store_true", help="exact 1-ply targets (all 21 rolls)")
    p.add_argument("--oneply-filter", type=cli.non_negative_int, default=0, metavar="K",
                   help="with --oneply: value only the K best candidates of each roll by the checkpoint's small "
                        "move filter (a [64] net trained alongside on the network's own values) with the full "
                        "network; the roll actually thrown is valued in full. 0: exact 1-ply")
    p.add_argument("--filter-warmup", type=cli.positive_int, default=DEFAULT_WARMUP_EPISODES, metavar="N",
                   help="with --oneply-filter, at the start of a new stage: fit the filter (a new one when the "
                        "checkpoint has none, else its own, which may be stale) on N episodes of 0-ply self-play "
                        "(not trained on by the network); a continued stage skips it")
    p.add_argument("--cube-explore", type=cli.probability_arg, default=0.0, metavar="P",
                   help="cube modes: with this chance a mover doubles although its rule says not to, and a "
                        "double is taken although the rule would drop it, so the branches greedy play avoids "
                        "are visited and learned; cube-node targets stay the greedy rule's value (0: greedy)")
    p.add_argument("--cube-hold", type=cli.probability_arg, default=0.0, metavar="P",
                   help="cube modes: with this chance a mover rolls on where its rule says double, so the "
                        "value of keeping the cube is learned in the positions the rule doubles in (greedy "
                        "play never visits them); cube-node targets stay the greedy rule's value (0: greedy)")
    p.add_argument("--take-explore", type=cli.probability_arg, default=0.0, metavar="P",
                   help="cube modes: with this chance a double the rule would drop is taken, so the value after "
                        "a take is learned where greedy play never takes; targets stay greedy (0: greedy)")
    p.add_argument("--cube-start", type=cli.probability_arg, default=0.0, metavar="P",
                   help="match play: with this chance a self-play game starts with the cube already turned "
                        "(2 or 4, owned by the side that took it) at its score, so positions after a take are "
                        "learned at every score, also where greedy self-play would drop (0: all centred)")
    p.add_argument("--cube-targets-1ply", action="store_true",
                   help="cubeful/match: exact 1-ply values (all 21 rolls) at cube nodes only, for their targets "
                        "and the cube decisions played")
    p.add_argument("--boltzmann-temp", type=cli.non_negative_float, default=0.0, metavar="T",
                   help="self-play plays a roll's candidate i with probability ~ exp(s_i / T), s the mover's "
                        "P(win) or equity (0: greedy). Targets stay greedy: the best candidate's value (or "
                        "the 1-ply mean of each roll's best), whatever move is played")
    p.add_argument("--td-lambda", type=cli.probability_arg, default=0.0, metavar="L",
                   help="targets are lambda-returns over each self-play game (0: one-step TD(0) targets, 1: the "
                        "game's outcome), cut where exploration played a non-greedy action")
    p.add_argument("--oneply-acting", action="store_true",
                   help="self-play picks moves (or, with --boltzmann-temp, weighs them) by their 1-ply value; "
                        "the targets are still set by --oneply alone")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adam", help="optimizer")
    p.add_argument("--momentum", type=cli.momentum_arg, default=0.0, help="SGD momentum, 0..1 (with --optimizer sgd)")
    p.add_argument("--grad-clip", type=cli.positive_float, default=None, metavar="NORM",
                   help="scale each minibatch's gradient down to at most this global L2 norm (default: off)")
    p.add_argument("--lr", type=cli.learning_rate, default=1e-3, help="learning rate (start of the schedule)")
    p.add_argument("--end-lr", type=cli.learning_rate, default=None,
                   help="linear anneal target (default: none, a constant --lr)")
    p.add_argument("--warmup-cycles", type=cli.non_negative_int, default=0, help="rounds ramping 0.1x -> 1x")
    p.add_argument("--batch-size", type=cli.positive_int, default=256, help="minibatch size")
    p.add_argument("--epochs", type=cli.positive_int, default=1, help="training passes over each round's samples")
    p.add_argument("--workers", type=cli.workers_arg, default=1,
                   help=f"self-play processes (at most {workers.MAX_WORKERS_PER_CORE} per core)")
    p.add_argument("--overlap", action="store_true",
                   help="with --workers > 1: collect the next round while training on this one (for machines "
                        "with cores or a GPU to spare: on 2 cores with 2 workers it measured 2x slower)")
    p.add_argument("--parallel-games", type=cli.positive_int, default=128, help="games advanced together per process")
    p.add_argument("--engine", choices=BACKENDS, default="auto", help="move generator")
    p.add_argument("--scoring", choices=FIRST_LAYER_MODES, default="auto",
                   help="candidates' first layer: incremental (from the pre-move sums, C engine) or dense; "
                        "auto: incremental on the CPU")
    p.add_argument("--collect-precision", choices=("fp32", "bf16", "int8"), default="fp32",
                   help="self-play's candidate scoring after the first layer: fp32 (torch), or C kernels in bf16 "
                        "(AVX512_BF16) or int8 (AVX512_VNNI), float32 C where the CPU lacks them (lowp.py); "
                        "training, export and evaluation stay float32")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where training runs")
    p.add_argument("--jacoby", action=cli.argparse.BooleanOptionalAction, default=True, help="cubeful: Jacoby rule")
    p.add_argument("--seed", type=int, default=0, help="random seed (dice and exploration; also weights and "
                   "minibatch order unless --torch-seed)")
    p.add_argument("--torch-seed", type=int, default=None,
                   help="seed of weight initialisation, growth and minibatch order (default: --seed)")
    p.add_argument("--save", required=True, help="checkpoint path (written atomically after every round)")
    p.add_argument("--save-every", type=cli.non_negative_int, default=0, metavar="N",
                   help="also keep a snapshot every N rounds beside --save, named STEM_rNNNNNN.pt (the round "
                        "count of the stage); 0: none")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing existing output files of the same kind (--save, the log, --json)")
    p.add_argument("--log", help="CSV log path (default: --save with .csv)")
    p.add_argument("--tensorboard", metavar="DIR", help="also log the CSV's numbers for TensorBoard here "
                   "(needs the tensorboard package)")
    p.add_argument("--eval-every", type=cli.non_negative_int, default=0, help="rounds between quick evals (0: off)")
    p.add_argument("--eval-games", type=cli.count_arg(1_000_000, "games"), default=200, help="games per quick eval")
    p.add_argument("--eval-opponent", choices=REFERENCE_AGENTS, default="pubeval", help="quick-eval opponent")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", metavar="PATH", help="write the run summary here")
    backend_flags.add_backend_args(p, "self-play")
    return p


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    args.hidden_given = any(a == "--hidden" or a.startswith("--hidden=") for a in cli.sys.argv[1:])
    backend_flags.start(args)
    summary = run_stage(args, BatchLearner)
    if args.json:
        fileio.write_json(args.json, summary)
    print(fileio.json_text(summary))
    if summary["interrupted"]:
        cli.sys.exit(130)


if __name__ == "__main__":
    cli.run_main(main)
