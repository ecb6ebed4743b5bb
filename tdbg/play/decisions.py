"""A per-decision benchmark: (position, roll) decisions from gnubg-nn self-play whose
candidate moves are rolled out by gnubg-nn, and the equity a model's choice loses.

Drawing (``draw_chunk``, one deterministic chunk of decisions per (seed, chunk)):

* gnubg-nn plays cubeless money games against itself at 0-ply (its ``bestmove``, the
  cubeless-equity maximiser); each game's decisions are visited in a random order and
  at most one decision of each class is taken per game, until the chunk holds its
  quota of each class (``mix``);
* the class is gnubg's own (``gnubg_nn.classify``: contact, crashed, race); bear-off
  positions are left out (gnubg-nn plays them from its exact database);
* every legal move gets gnubg-nn's 1-ply cubeless equity; the candidates are the
  ``top`` best by it within ``window`` of the best, and a decision is kept only when
  at least two moves are candidates (a real choice, not a forced or obvious one);
* the candidates are rolled out by gnubg-nn (agents.GnubgNNAgent, rollout.py): the
  same stratified dice for every candidate (paired), luck-adjusted, truncated after
  ``truncate`` plies and scored by gnubg-nn 0-ply at the horizon.

Scoring (``losses``): a choice among the candidates loses the rolled-out difference
from the best candidate; a legal move outside them (worse than every candidate at
gnubg-nn 1-ply, by construction) is scored by its 1-ply equity shifted by the mean
rollout-minus-1-ply offset of that decision's candidates, so it loses at least the
candidates' mean gap and more as gnubg-nn 1-ply thinks it worse.  Equities are cubeless
money from the mover's side after the move.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np
from tqdm import tqdm

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import roll_dice
from tdbg.game.heads import prob5_equity
from tdbg.game.modes import game_mode
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import MAX_TEXT, atomic_write, check_input, json_text
from tdbg.infra.stats import bootstrap_ci, no_interval_reason
from tdbg.infra.workers import WorkerPool
from tdbg.play.agents import mover_probabilities
from tdbg.play.analysis import gnubg_move_text
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.play.rollout import RolloutSettings, _stats, after_outcomes, summarize

CLASSES = ("contact", "crashed", "race")
FORMAT = "tdbg-decisions-1"
OTHERS_FIELDS = ["move", "after_id", "ply1"]
MAX_PLIES = 1000  # a self-play game this long is a bug; stop it
ROLLOUT_MODEL, ROLLOUT_MODE = (
    "gnubg-nn",
    "cubeless-money",
)  # who rolls out the candidates, in which mode


@dataclass(frozen=True)
class Settings:
    seed: int = 0
    trials: int = 72  # per candidate, a multiple of 36: every first roll equally often
    truncate: int = 7  # plies of the rollout before gnubg-nn 0-ply scores the position
    top: int = 5  # candidates at most
    window: float = 0.08  # candidates within this 1-ply equity of the best
    mix: dict = field(default_factory=lambda: {"contact": 6, "crashed": 2, "race": 2})  # per chunk

    @property
    def chunk_size(self) -> int:
        return sum(self.mix.values())

    def rollout(self, seed: int) -> RolloutSettings:
        """The rollout of one decision's candidates, on its own dice ``seed``."""
        return RolloutSettings(
            ROLLOUT_MODEL, self.trials, game_mode=ROLLOUT_MODE, truncate=self.truncate, seed=seed
        )

    def check(self) -> None:
        if self.trials < 1 or self.truncate < 0 or self.top < 2 or not self.window > 0:
            raise InputError("need trials >= 1, truncate >= 0, top >= 2 and window > 0")
        if (
            not self.mix
            or set(self.mix) - set(CLASSES)
            or min(self.mix.values()) < 0
            or self.chunk_size < 1
        ):
            raise InputError(
                f"class mix {self.mix}: counts >= 0 of {', '.join(CLASSES)}, at least one decision"
            )
        if self.chunk_size >= 1000:
            raise InputError("at most 999 decisions per chunk")


# --------------------------------------------------------------------------- drawing


def class_names() -> dict:
    import gnubg_nn

    return {gnubg_nn.c_contact: "contact", gnubg_nn.c_crashed: "crashed", gnubg_nn.c_race: "race"}


def after_id(after) -> str:
    """Position ID of an after-state (mover in row 1) as the opponent, now on roll, sees it."""
    return be.position_id(np.asarray(after)[::-1])


def oneply_equities(afters) -> np.ndarray:
    """gnubg-nn's 1-ply cubeless equity of each after-state (mover in row 1) for the mover;
    a finished game is worth its result."""
    import gnubg_nn

    out = np.empty(len(afters))
    for k, a in enumerate(np.asarray(afters).tolist()):
        result = be.game_result(np.asarray(a))
        if result:
            out[k] = float(result)
        else:
            out[k] = prob5_equity(mover_probabilities([gnubg_nn.probabilities([a[1], a[0]], 1)]))[0]
    return out


def self_play_game(rng: np.random.Generator, agent) -> list[tuple[np.ndarray, tuple]]:
    """(board, dice) of every turn of one game of ``agent`` against itself (cubeless)."""
    board, out = be.initial_board(), []
    for ply in range(MAX_PLIES):
        d1, d2 = (int(x) for x in roll_dice(rng, 1, np.array([ply == 0]))[0])
        out.append((board, (d1, d2)))
        after = agent.choose_moves(board[None], np.array([[d1, d2]]))[0]
        if be.game_result(after):
            return out
        board = after[::-1].copy()
    raise RuntimeError(f"a self-play game went past {MAX_PLIES} plies")


def select_candidates(ply1: np.ndarray, settings: Settings) -> list[int]:
    """Indices of the candidates: the ``top`` best by 1-ply within ``window`` of the best."""
    order = np.argsort(-ply1, kind="stable")[: settings.top]
    return [int(k) for k in order if ply1[k] >= ply1[order[0]] - settings.window]


def draw_chunk(settings: Settings, chunk: int) -> list[dict]:
    """The decisions of one chunk (see the module notes), before their rollouts."""
    import gnubg_nn

    rng = np.random.default_rng([settings.seed, chunk])
    agent = evaluator(Player("gnubg-nn"), game_mode("cubeless-money"))
    names = class_names()
    need = dict(settings.mix)
    out: list[dict] = []
    game = 0
    while sum(need.values()):
        turns = self_play_game(rng, agent)
        taken = set()
        for i in rng.permutation(len(turns)):
            board, dice = turns[i]
            cls = names.get(gnubg_nn.classify(board.tolist()))
            if cls is None or need.get(cls, 0) == 0 or cls in taken:
                continue
            legal = be.legal_moves(board, *dice)
            if len(legal) < 2:
                continue
            afters = np.array([a for _, a in legal])
            ply1 = oneply_equities(afters)
            cands = select_candidates(ply1, settings)
            if len(cands) < 2:
                continue
            taken.add(cls)
            need[cls] -= 1
            moves = [
                (gnubg_move_text(board, m), after_id(a), float(v))
                for (m, a), v in zip(legal, ply1, strict=True)
            ]
            out.append(
                {
                    "position_id": be.position_id(board),
                    "dice": list(dice),
                    "class": cls,
                    "chunk": chunk,
                    "game": game,
                    "ply": int(i),
                    "rollout_seed": settings.seed * 1_000_000 + chunk * 1000 + len(out),
                    "moves": moves,
                    "candidates": cands,
                    "_afters": afters,
                }
            )
        game += 1
    return out


def roll_out(decision: dict, settings: Settings, roller) -> dict:
    """Roll out a drawn decision's candidates (paired, luck-adjusted, truncated) and turn it
    into its stored form: candidates best first by rollout, the other legal moves by 1-ply."""
    cands = decision.pop("candidates")
    afters = decision.pop("_afters")
    moves = decision.pop("moves")
    outcomes = after_outcomes(settings.rollout(decision["rollout_seed"]), roller, afters[cands])
    order = sorted(range(len(cands)), key=lambda j: -outcomes[j].adjusted.mean())
    best = outcomes[order[0]]
    rows = []
    for j in order:
        s = summarize(outcomes[j], roller.mode)
        diff, diff_se = _stats(outcomes[j].adjusted - best.adjusted)
        text, aid, ply1 = moves[cands[j]]
        rows.append(
            {
                "move": text,
                "after_id": aid,
                "equity": s["value_adjusted"],
                "se": s["se_adjusted"],
                "diff": diff,
                "diff_se": diff_se,
                "equity_plain": s["value"],
                "se_plain": s["se"],
                "ply1": ply1,
            }
        )
    others = sorted((list(m) for k, m in enumerate(moves) if k not in cands), key=lambda m: -m[2])
    return {**decision, "candidates": rows, "others": others}


_ROLLER = None


def run_chunk(job: dict) -> dict:
    """Draw and roll out one chunk; ``expired`` instead if ``job['deadline']`` (epoch
    seconds) passes before it is done (a hard stop: the caller keeps finished chunks)."""
    global _ROLLER
    settings = Settings(**job["settings"])
    t0 = time.process_time()
    _ROLLER = _ROLLER or settings.rollout(0).roller()
    drawn = draw_chunk(settings, job["chunk"])
    out = []
    for d in drawn:
        if job.get("deadline") and time.time() > job["deadline"]:
            return {"chunk": job["chunk"], "expired": True}
        out.append(roll_out(d, settings, _ROLLER))
    return {
        "chunk": job["chunk"],
        "settings": asdict(settings),
        "cpu_seconds": time.process_time() - t0,
        "decisions": out,
    }


# --------------------------------------------------------------------------- chunks on disk


def chunk_path(folder: str, chunk: int) -> str:
    return os.path.join(folder, f"chunk_{chunk:05d}.json")


def read_chunk(path: str, settings: Settings | None = None) -> dict:
    try:
        with open(path) as fh:
            data = json.load(fh)
        stored = Settings(**data["settings"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a decision chunk ({exc})") from None
    if settings is not None and stored != settings:
        raise InputError(
            f"{path} was made with other settings ({asdict(stored)}); use another chunk folder"
        )
    return data


def write_chunk(folder: str, result: dict) -> None:
    with atomic_write(chunk_path(folder, result["chunk"])) as fh:
        fh.write(json_text(result))


def generate(
    settings: Settings,
    chunks: list[int],
    folder: str,
    workers: int,
    deadline: float | None = None,
    progress: bool = True,
) -> dict:
    """Run the chunks not already in ``folder`` over ``workers`` processes, each written
    (atomically) as it finishes.  With ``deadline`` (epoch seconds) no chunk starts that
    the slowest chunk so far would not finish in time, and a chunk still running at the
    deadline is dropped.  Returns counts of chunks done, skipped (already there), dropped."""
    os.makedirs(folder, exist_ok=True)
    todo = [c for c in chunks if not os.path.exists(chunk_path(folder, c))]
    for c in set(chunks) - set(todo):
        read_chunk(chunk_path(folder, c), settings)
    stats = {"done": 0, "skipped": len(chunks) - len(todo), "dropped": 0, "not_started": 0}
    slowest = 0.0
    job = lambda c: {"chunk": c, "settings": asdict(settings), "deadline": deadline}  # noqa: E731
    with (
        WorkerPool(max(1, min(workers, len(todo))), what="decision worker") as pool,
        tqdm(total=len(todo), unit="chunk", disable=not progress, dynamic_ncols=True) as bar,
    ):
        started = {}
        inflight = []
        for c in todo[:workers]:
            inflight.append(pool.submit(run_chunk, job(c)))
            started[id(inflight[-1])] = time.time()
        queue = todo[workers:]
        while inflight:
            task, result = next(pool.as_completed(inflight))
            inflight.remove(task)
            slowest = max(slowest, time.time() - started.pop(id(task)))
            bar.update(1)
            if result.get("expired"):
                stats["dropped"] += 1
            else:
                write_chunk(folder, result)
                stats["done"] += 1
            while queue and len(inflight) < workers:
                if deadline and time.time() + 1.2 * slowest > deadline:
                    stats["not_started"] += len(queue)
                    queue = []
                    break
                inflight.append(pool.submit(run_chunk, job(queue.pop(0))))
                started[id(inflight[-1])] = time.time()
    return stats


def merge(folder: str, settings: Settings) -> tuple[list[dict], dict]:
    """All chunk files in ``folder`` made with ``settings``: (decisions in chunk order,
    {"chunks": [...], "cpu_seconds": total})."""
    names = sorted(n for n in os.listdir(folder) if n.startswith("chunk_") and n.endswith(".json"))
    decisions, chunks, cpu = [], [], 0.0
    for n in names:
        data = read_chunk(os.path.join(folder, n), settings)
        decisions += data["decisions"]
        chunks.append(data["chunk"])
        cpu += data["cpu_seconds"]
    return decisions, {"chunks": chunks, "cpu_seconds": cpu}


def summary(decisions: list[dict]) -> dict:
    """Counts per class, mean candidates and the standard errors the rollouts reached (mEq)."""
    diff_se = [c["diff_se"] for d in decisions for c in d["candidates"][1:]]
    se = [c["se"] for d in decisions for c in d["candidates"]]
    plain = [c["se_plain"] for d in decisions for c in d["candidates"]]
    return {
        "decisions": len(decisions),
        "by_class": {c: sum(d["class"] == c for d in decisions) for c in CLASSES},
        "mean_candidates": float(np.mean([len(d["candidates"]) for d in decisions]))
        if decisions
        else 0.0,
        "median_diff_se_meq": 1000 * float(np.median(diff_se)) if diff_se else None,
        "mean_diff_se_meq": 1000 * float(np.mean(diff_se)) if diff_se else None,
        "mean_se_meq": 1000 * float(np.mean(se)) if se else None,
        "mean_se_plain_meq": 1000 * float(np.mean(plain)) if plain else None,
    }


# --------------------------------------------------------------------------- the benchmark


def load(path: str) -> tuple[dict, list[dict]]:
    """(provenance, decisions) of a decision file; InputError if it is not one."""
    check_input(path, "a decision file", MAX_TEXT)  # (read whole)
    try:
        with open(path) as fh:
            data = json.load(fh)
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
        decisions = data["decisions"]
        for d in decisions:
            d["board"] = be.board_from_position_id(d["position_id"])
            if d["class"] not in CLASSES or len(d["candidates"]) < 2:
                raise ValueError(
                    f"decision {d['position_id']}: bad class or fewer than two candidates"
                )
        if not decisions:
            raise ValueError("no decisions")
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{path}: not a decision file ({exc})") from None
    return data["provenance"], decisions


def loss(decision: dict, chosen_id: str) -> tuple[float, str]:
    """Equity the move leading to ``chosen_id`` loses against the best rolled-out candidate,
    and where it was: 'best', 'candidate' or 'outside' (scored as in the module notes)."""
    cands = decision["candidates"]
    for k, c in enumerate(cands):
        if c["after_id"] == chosen_id:
            return cands[0]["equity"] - c["equity"], ("best" if k == 0 else "candidate")
    for _move, aid, ply1 in decision["others"]:
        if aid == chosen_id:
            offset = np.mean([c["equity"] - c["ply1"] for c in cands])
            return cands[0]["equity"] - (ply1 + offset), "outside"
    raise InputError(
        f"decision {decision['position_id']} dice {decision['dice']}: the chosen move "
        f"(to {chosen_id}) is not a legal move"
    )


def losses(decisions: list[dict], chosen_ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(mEq lost per decision, where each choice was: best / candidate / outside)."""
    scored = [loss(d, c) for d, c in zip(decisions, chosen_ids, strict=True)]
    return 1000 * np.array([x for x, _ in scored]), np.array([w for _, w in scored])


def _by_class(decisions: list[dict], block) -> dict:
    classes = np.array([d["class"] for d in decisions])
    return {
        "overall": block(np.ones(len(decisions), bool)),
        "by_class": {c: block(classes == c) for c in CLASSES},
    }


def _ci(low, high, units: int) -> dict:
    """A block's "ci" [low, high] rounded, or null and "ci_reason" with one decision (no interval)."""
    if low is None or high is None:
        return {"ci": None, "ci_reason": no_interval_reason(units)}
    return {"ci": [round(low, 2), round(high, 2)]}


def evaluate(
    decisions: list[dict], chosen_ids: list[str], n_boot: int = 2000, seed: int = 0
) -> dict:
    """Mean equity lost per decision (mEq) with a bootstrap 95% CI over decisions, overall
    and per class, and how often the choice was the best candidate, another candidate, or
    a move outside the candidates."""
    lost, where = losses(decisions, chosen_ids)

    def block(mask) -> dict:
        if not mask.any():
            return {"decisions": 0}
        mean, low, high = bootstrap_ci(lost[mask], n_boot, seed=seed)
        return {
            "decisions": int(mask.sum()),
            "meq": round(mean, 2),
            **_ci(low, high, int(mask.sum())),
            "best": round(float(np.mean(where[mask] == "best")), 4),
            "outside": round(float(np.mean(where[mask] == "outside")), 4),
        }

    return {
        **_by_class(decisions, block),
        "outside_meq": round(float(lost[where == "outside"].sum() / len(lost)), 2),
    }


def paired(
    decisions: list[dict], ids_a: list[str], ids_b: list[str], n_boot: int = 2000, seed: int = 0
) -> dict:
    """Mean of (A's loss - B's loss) over the same decisions (mEq), with a bootstrap 95% CI,
    overall and per class, and how often the two chose differently."""
    diff = losses(decisions, ids_a)[0] - losses(decisions, ids_b)[0]
    differ = np.array([a != b for a, b in zip(ids_a, ids_b, strict=True)])

    def block(mask) -> dict:
        if not mask.any():
            return {"decisions": 0}
        mean, low, high = bootstrap_ci(diff[mask], n_boot, seed=seed)
        return {
            "decisions": int(mask.sum()),
            "meq_diff": round(mean, 2),
            **_ci(low, high, int(mask.sum())),
            "differ": round(float(differ[mask].mean()), 4),
        }

    return _by_class(decisions, block)
