"""A checkpoint whose lineage or trainer state holds values of the wrong kind (a crafted or
damaged file: a string of episodes, segments that are not dicts, a trainer state that is
not a dict, settings of None, an optimizer state or generator state that cannot be
restored): describe_model and train_batch --resume refuse it in one line, exit 2."""

import pytest
import torch

from helpers import QUICK_TRAIN, assert_one_line_error, run, stopped_stage


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A stage of 60 episodes stopped at 20 (its trainer state: optimizer, minibatch
    generator, the stage's counts)."""
    return stopped_stage(tmp_path_factory.mktemp("stopped") / "s.pt")


def _damaged(stopped, tmp_path, change) -> str:
    payload = torch.load(stopped, weights_only=True)
    change(payload)
    path = tmp_path / "d.pt"
    torch.save(payload, path)
    (tmp_path / "d.csv").write_bytes(stopped.with_suffix(".csv").read_bytes())
    return str(path)


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def change(payload):
        where = payload
        for k in keys[:-1]:
            where = where[k]
        where[keys[-1]] = value

    return change


LINEAGE_AND_STATE = {
    "episodes as text": (_set("meta", "lineage", 0, "episodes", "20"), "'episodes' is str"),
    "segments not dicts": (
        _set("meta", "lineage", 0, "segments", [3]),
        "'segments' holds entries that are not dicts",
    ),
    "segments not a list": (_set("meta", "lineage", 0, "segments", "x"), "'segments' is str"),
    # a start's episode as text was a ValueError traceback where the lineage is printed
    "a segment's episode as text": (
        _set("meta", "lineage", 0, "segments", 0, "from_episode", "0"),
        "segment 1's 'from_episode' is str '0'",
    ),
    "a segment's episode negative": (
        _set("meta", "lineage", 0, "segments", 0, "from_episode", -5),
        "segment 1's 'from_episode' is int -5",
    ),
    "trainer state text": (_set("trainer_state", "junk"), "trainer state is str"),
    "stage text": (_set("trainer_state", "stage", "junk"), "'stage' is str"),
    "settings None": (_set("trainer_state", "stage", "settings", None), "'settings' is NoneType"),
    "rounds_done text": (
        _set("trainer_state", "stage", "rounds_done", "1"),
        "'rounds_done' is str",
    ),
    "episodes_done negative": (
        _set("trainer_state", "stage", "episodes_done", -20),
        "'episodes_done' is int -20",
    ),
    "cpu_seconds nan": (
        _set("trainer_state", "stage", "cpu_seconds", float("nan")),
        "'cpu_seconds' is float nan",
    ),
    "cpu_seconds text": (
        _set("trainer_state", "stage", "cpu_seconds", "x"),
        "'cpu_seconds' is str",
    ),
    # finite but no stage's: more than a hundred years of CPU (3,155,760,000 seconds)
    "cpu_seconds 2**70": (
        _set("trainer_state", "stage", "cpu_seconds", 2**70),
        "'cpu_seconds' is int 1180591620717411303424, not a number of seconds",
    ),
    "cpu_seconds too large for a float": (
        _set("trainer_state", "stage", "cpu_seconds", 10**400),
        "'cpu_seconds' is int 10000000000",
    ),
    "cpu_seconds just over a century": (
        _set("trainer_state", "stage", "cpu_seconds", 3_155_760_001.0),
        "'cpu_seconds' is float 3155760001.0",
    ),
    # the continued stage's record of its flags, its name, and the count it plans
    "config a list": (_set("trainer_state", "stage", "config", [1, 2]), "'config' is list"),
    "id a number": (_set("trainer_state", "stage", "id", 5), "'id' is int"),
    "planned episodes text": (
        _set("trainer_state", "stage", "settings", "num_episodes", "60"),
        "'num_episodes' is str",
    ),
    # counts of the right kinds that disagree: continuing would split a round or take a
    # finished stage for an unfinished one (the run's own writes always agree)
    "episodes_done beyond the plan": (
        _set("trainer_state", "stage", "episodes_done", 100),
        "done 100 episodes, more than the 60 it plans",
    ),
    "episodes_done not the lineage's": (
        _set("trainer_state", "stage", "episodes_done", 15),
        "15 episodes are not its lineage entry's (20)",
    ),
    "rounds_done not the episodes'": (
        _set("trainer_state", "stage", "rounds_done", 3),
        "3 rounds of 20 episodes are not its 20 episodes done",
    ),
    # torch's weights-only reader allows a tensor anywhere; the record is plain data (a tensor
    # in the config was a traceback in `tdbg describe --config`, which compares its values)
    "a tensor in the stage's config": (
        _set("trainer_state", "stage", "config", "lr", torch.tensor([1.0, 2.0])),
        "['config']['lr'] (Tensor) is not plain data",
    ),
    # a part no learner writes: --resume refused it, the readers took it
    "an unknown part of the trainer state": (
        _set("trainer_state", "learning_rate_boost", 2.0),
        "trainer_state.learning_rate_boost: is not a part a trainer writes",
    ),
    "a tensor in a lineage entry": (
        _set("meta", "lineage", 0, "segments", [{"cpu": torch.tensor(1.0)}]),
        "['segments'][0]['cpu'] (Tensor) is not plain data",
    ),
}


@pytest.mark.parametrize("case", sorted(LINEAGE_AND_STATE))
def test_describe_model_refuses_it(stopped, tmp_path, case):
    change, words = LINEAGE_AND_STATE[case]
    assert_one_line_error(
        run("tools/describe_model.py", _damaged(stopped, tmp_path, change)), words
    )


# what the metadata says twice, disagreeing (as no writer makes it): the total of episodes
# and its lineage's, the input layout's name and the inputs and mode (both were shown as read)
RESTATED = {
    "total episodes 2**64": (
        _set("meta", "episodes", 2**64),
        "is 18,446,744,073,709,551,616, not the 20",
    ),
    "total episodes one more than the lineage's": (
        _set("meta", "episodes", 21),
        "is 21, not the 20",
    ),
    # a mode no code plays, or another mode's inputs: describe_model and repair_twins raised
    # tracebacks, and export_weights labelled the 196 inputs as cubeful-money's
    "a mode no code plays": (
        _set("meta", "game_mode", "backgammon-ultra"),
        "game mode 'backgammon-ultra' does not fit it (unknown game mode",
    ),
    "another mode than its inputs'": (
        _set("meta", "game_mode", "cubeful-money"),
        "cubeful-money needs a 200-input model (or 220 with board features), this one has 196",
    ),
    "another mode's input layout": (
        _set("meta", "encoder", "tesauro196+cube4"),
        "'encoder' is 'tesauro196+cube4', where its 196 inputs of dmp are 'tesauro196'",
    ),
}


@pytest.mark.parametrize("case", sorted(RESTATED))
def test_readers_refuse_metadata_that_disagrees_with_itself(stopped, tmp_path, case):
    change, words = RESTATED[case]
    path = _damaged(stopped, tmp_path, change)
    for script in ("tools/describe_model.py", "tools/export_weights.py"):
        args = [path] + ([str(tmp_path / "w.bin")] if "export" in script else [])
        assert_one_line_error(run(script, *args), words)
    assert not (tmp_path / "w.bin").exists()


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_a_version_that_only_equals_the_one_read_is_refused(stopped, tmp_path, version):
    """True and 1.0 compare equal to version 1, and were read as it."""
    path = _damaged(stopped, tmp_path, _set("version", version))
    assert_one_line_error(
        run("tools/describe_model.py", path), f"checkpoint version {version!r} is not supported"
    )


# a move filter's record beside its weights, as no run writes it: int() took each unsaid
FILTER_FIELDS = {
    "samples negative": (-5, "samples", "'samples' is -5, a negative count"),
    "samples text": ("12", "samples", "'samples' is str '12'"),
    "samples true": (True, "samples", "'samples' is bool True"),
    "hidden of floats": ([64.0], "hidden", "'hidden' holds [64.0], not whole numbers"),
    "hidden of text": (["64"], "hidden", "'hidden' holds ['64'], not whole numbers"),
    "inputs a float": (196.0, "n_inputs", "'n_inputs' is float 196.0"),
}


@pytest.mark.parametrize("case", sorted(FILTER_FIELDS))
def test_readers_refuse_a_move_filter_record_no_run_writes(stopped_filter, tmp_path, case):
    value, key, words = FILTER_FIELDS[case]
    path = _damaged(stopped_filter, tmp_path, _set("move_filter", key, value))
    assert_one_line_error(
        run("tools/describe_model.py", path), f"its move filter does not fit (its {words}"
    )
    proc = run("play_models.py", "--model1", path, "--model2", path, "--games", "2")
    assert_one_line_error(proc, words)


RESTORE = {
    "optimizer state text": _set("trainer_state", "optimizer_state", "junk"),
    "optimizer state of another net": _set(
        "trainer_state", "optimizer_state", {"state": {}, "param_groups": []}
    ),
    "generator state text": _set("trainer_state", "minibatch_rng", "junk"),
    "generator state of another kind": _set(
        "trainer_state", "minibatch_rng", {"bit_generator": "MT19937"}
    ),
}


def _recorded(name, value):
    """The stage's record of a setting, in its config and, where it is one, its compared settings."""

    def change(payload):
        stage = payload["trainer_state"]["stage"]
        for record in (stage["config"], stage["settings"]):
            if name in record or record is stage["config"]:
                record[name] = value

    return change


RECORDED_SETTINGS = {  # a continued stage takes them: each checked as its flag checks what it is given
    "lr text": _recorded("lr", "abc"),  # it reached the optimizer: a TypeError traceback
    "batch size 0": _recorded("batch_size", 0),
    "optimizer unknown": _recorded("optimizer", "rmsprop"),
    "log a number": _recorded("log", 7),  # a path taken as the log's: a TypeError traceback
    # a list where the flag takes one value: read as "0.001", then a TypeError traceback
    "lr a list": _recorded("lr", [0.001]),
    "warmup cycles a tuple": _recorded("warmup_cycles", (0,)),
}


def _last_param_id_as_tensor(payload):
    """The optimizer's last parameter named by a 0-d tensor of its number: equal to it, but
    torch maps moments to parameters through a dict, where it names none (the moments were
    dropped without a word)."""
    params = payload["trainer_state"]["optimizer_state"]["param_groups"][-1]["params"]
    params[-1] = torch.tensor(params[-1])


RESTORE["optimizer parameter named by a tensor"] = _last_param_id_as_tensor
RESTORE.update(RECORDED_SETTINGS)


def _moments(name, value):
    """Every parameter's optimizer moment ``name`` replaced by ``value`` (torch's own
    load_state_dict checks only the number of groups and parameters)."""

    def change(payload):
        for moments in payload["trainer_state"]["optimizer_state"]["state"].values():
            moments[name] = value

    return change


RESTORE.update(
    {  # each was taken, and failed at the first step (a RuntimeError traceback) or spread NaN
        "optimizer moments of another shape": _moments("exp_avg", torch.zeros(3)),
        "optimizer moments not finite": _moments("exp_avg_sq", torch.tensor(float("nan"))),
    }
)


def _one_memory(payload):
    """Each parameter's two moments one tensor (both non-negative): torch keeps a loaded
    state as it is, so each step wrote one through the other and trained on garbage."""
    for moments in payload["trainer_state"]["optimizer_state"]["state"].values():
        moments["exp_avg"] = moments["exp_avg_sq"]


# a tensor as no run writes it: each was taken, and trained on rounded moments (float16), was
# a traceback at the first step (sparse, meta, an expanded view written in place), or trained
# a round and stopped on NaN (moments sharing memory, negative means of squares)
TENSORS = {
    "optimizer moments of float16": (
        _moments("exp_avg", torch.zeros(8, 196, dtype=torch.float16)),
        "state.0.exp_avg: is a tensor of shape (8, 196) and dtype float16, not float32",
    ),
    "optimizer step of float64": (
        _moments("step", torch.tensor(1.0, dtype=torch.float64)),
        "state.0.step: is a tensor of shape () and dtype float64, not float32",
    ),
    "optimizer moments sparse": (
        _moments("exp_avg", torch.zeros(8, 196).to_sparse()),
        "state.0.exp_avg: is a sparse_coo tensor on cpu, not a dense one in memory",
    ),
    "optimizer moments on the meta device": (
        _moments("exp_avg", torch.zeros(8, 196, device="meta")),
        "state.0.exp_avg: is a strided tensor on meta",
    ),
    "optimizer moments an expanded view": (
        _moments("exp_avg", torch.zeros(8, 1).expand(8, 196)),
        "state.0.exp_avg: is a view of strides (1, 0), not a tensor of its own",
    ),
    "optimizer moments sharing memory": (
        _one_memory,
        "state.0.exp_avg_sq: shares its memory with trainer_state.optimizer_state.state.0.exp_avg",
    ),
    "optimizer second moments negative": (
        _moments("exp_avg_sq", -torch.ones(8, 196)),
        "state.0.exp_avg_sq: holds negative values (a mean of squares)",
    ),
}


@pytest.mark.parametrize("case", sorted(TENSORS))
def test_resume_refuses_a_state_tensor_no_run_writes(stopped, tmp_path, case):
    change, words = TENSORS[case]
    path = _damaged(stopped, tmp_path, change)
    before = open(path, "rb").read()
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, f"{path}: trainer_state.optimizer_state.{words}")
    assert open(path, "rb").read() == before


# what a run reads to continue a stage, missing (describe_model shows such a file as it is;
# continuing it was a traceback, or read a stage of no planned episodes as finished)
UNCONTINUABLE = {
    "lineage empty": _set("meta", "lineage", []),
    "planned episodes missing": lambda p: p["trainer_state"]["stage"]["settings"].pop(
        "num_episodes"
    ),
    "episodes_done missing": lambda p: p["trainer_state"]["stage"].pop("episodes_done"),
}


@pytest.mark.parametrize(
    "case",
    sorted(RESTORE)
    + [
        "rounds_done text",
        "cpu_seconds text",
        "cpu_seconds 2**70",
        "cpu_seconds too large for a float",
        "settings None",
        "config a list",
        "a tensor in the stage's config",
        "planned episodes text",
        "episodes_done beyond the plan",
        "episodes_done not the lineage's",
        *UNCONTINUABLE,
    ],
)
def test_resume_refuses_it(stopped, tmp_path, case):
    change = {**RESTORE, **UNCONTINUABLE}.get(case) or LINEAGE_AND_STATE[case][0]
    path = _damaged(stopped, tmp_path, change)
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--hidden",
        "8",
        "--num-episodes",
        "60",
        *QUICK_TRAIN,
    )
    assert_one_line_error(proc, path)


def test_online_resume_refuses_a_stage_whose_counts_disagree(tmp_path):
    """train_online.py's stage (rounds of --log-every games) read back at 15 of the 20 episodes
    its lineage records: continuing from 15 would replay games and end off the run's rounds."""
    path = tmp_path / "o.pt"
    args = ["--hidden", "8", "--num-episodes", "40", "--log-every", "10", "--seed", "3", "--quiet"]
    run("train_online.py", *args, "--stop-at", "20", "--save", path, check=True)
    payload = torch.load(path, weights_only=True)
    payload["trainer_state"]["stage"]["episodes_done"] = 15
    torch.save(payload, path)
    proc = run("train_online.py", *args, "--resume", path, "--save", path)
    assert_one_line_error(proc, "15 episodes are not its lineage entry's (20)")


@pytest.mark.parametrize("source", ["resume", "warm_start_equity"])
def test_the_same_command_refuses_a_stage_recording_a_source_that_is_no_path(
    stopped, tmp_path, source
):
    """The same command run again (--save holding the unfinished stage) compares the checkpoint
    that began the stage with its own: a record of a number there was a TypeError traceback."""

    def change(payload):
        payload["trainer_state"]["stage"]["config"][source] = 123

    path = _damaged(stopped, tmp_path, change)
    proc = run(
        "train_batch.py", "--save", path, "--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN
    )
    assert_one_line_error(proc, f"records --{source.replace('_', '-')} 123")


def _group(name, value):
    """The optimizer's saved hyperparameter ``name`` set to ``value`` (torch takes the saved
    parameter group as it is: text failed at the first step, NaN spread NaN)."""
    return _set("trainer_state", "optimizer_state", "param_groups", 0, name, value)


HYPERPARAMETERS = {
    "optimizer betas text": _group("betas", "x"),
    "optimizer learning rate NaN": _group("lr", float("nan")),
    "optimizer eps negative": _group("eps", -1.0),
    # bias correction of a negative step count is complex: a RuntimeError at the first step
    "optimizer step negative": _moments("step", torch.tensor(-5.0)),
    # the stage's settings name Adam: moments of another optimizer were dropped unsaid
    "trainer state of another optimizer": _set("trainer_state", "optimizer", "sgd"),
    # numpy raises OverflowError for a generator state beyond its integers
    "generator state negative": _set("trainer_state", "minibatch_rng", "state", "state", -1),
}


@pytest.mark.parametrize("case", sorted(HYPERPARAMETERS))
def test_resume_refuses_a_malformed_optimizer_group_or_generator(stopped, tmp_path, case):
    path = _damaged(stopped, tmp_path, HYPERPARAMETERS[case])
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, path)


def _stopped_with(tmp_path_factory, name, *flags):
    return stopped_stage(tmp_path_factory.mktemp(name) / "s.pt", *flags)


@pytest.fixture(scope="module")
def stopped_filter(tmp_path_factory):
    """A stage with --oneply-filter stopped at 20: its trainer state holds the filter's."""
    flags = ("--oneply", "--oneply-filter", "3", "--filter-warmup", "20")
    return _stopped_with(tmp_path_factory, "filter", *flags)


@pytest.fixture(scope="module")
def stopped_overlap(tmp_path_factory):
    """A stage with --overlap stopped at 20: its trainer state holds the collected round's weights."""
    return _stopped_with(tmp_path_factory, "overlap", "--overlap", "--workers", "1")


def _filter_moments(name, value):
    def change(payload):
        state = payload["trainer_state"]["filter_trainer"]["optimizer_state"]["state"]
        for moments in state.values():
            moments[name] = value

    return change


def _overlap_weights(change_one):
    def change(payload):
        weights = payload["trainer_state"]["overlap_weights"]["model"]
        key = next(iter(weights))
        weights[key] = change_one(weights[key])

    return change


def _expanded_filter_moments(payload):
    """Each of the filter's first moments a zero-stride view of one number, of its own shape
    (written in place at the first step: a RuntimeError traceback)."""
    state = payload["trainer_state"]["filter_trainer"]["optimizer_state"]["state"]
    for moments in state.values():
        moments["exp_avg"] = torch.zeros(1).expand(moments["exp_avg"].shape)


PARTS_CHECKED_LATE = {  # each was taken at load and failed later, in the stage (a traceback)
    "filter moments of another shape": ("filter", _filter_moments("exp_avg", torch.zeros(3))),
    "filter moments not finite": (
        "filter",
        _filter_moments("exp_avg_sq", torch.tensor(float("nan"))),
    ),
    "filter learning rate text": (
        "filter",
        _set("trainer_state", "filter_trainer", "optimizer_state", "param_groups", 0, "lr", "x"),
    ),
    "overlap weights of another shape": ("overlap", _overlap_weights(lambda w: torch.zeros(3))),
    "overlap weights of float16": ("overlap", _overlap_weights(lambda w: w.half())),
    "filter moments an expanded view": ("filter", _expanded_filter_moments),
    "overlap weights not finite": (
        "overlap",
        _overlap_weights(lambda w: torch.full_like(w, float("nan"))),
    ),
}


@pytest.mark.parametrize("case", sorted(PARTS_CHECKED_LATE))
def test_resume_refuses_malformed_filter_or_overlap_state_before_training(
    stopped_filter, stopped_overlap, tmp_path, case
):
    kind, change = PARTS_CHECKED_LATE[case]
    source = stopped_filter if kind == "filter" else stopped_overlap
    path = _damaged(source, tmp_path, change)
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, path)


def test_the_same_command_refuses_a_recorded_source_holding_a_nul(stopped, tmp_path):
    """A recorded source of text with a NUL is no path either: it was a ValueError traceback
    (embedded null byte) where the path was compared."""

    def change(payload):
        payload["trainer_state"]["stage"]["config"]["resume"] = "a\0b.pt"

    path = _damaged(stopped, tmp_path, change)
    proc = run(
        "train_batch.py", "--save", path, "--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN
    )
    assert_one_line_error(proc, "which is no path (text without a NUL)")


@pytest.mark.parametrize("value", [{"a": 1}, 7, "x\0.pt"])
def test_continuing_refuses_a_stage_recording_a_source_that_is_no_path(stopped, tmp_path, value):
    """--resume X --save X kept the stage's record of what began it as it was: a dict or a
    number there was carried into the new checkpoint unsaid (the same command refuses it)."""

    def change(payload):
        payload["trainer_state"]["stage"]["config"]["warm_start_cubeful"] = value

    path = _damaged(stopped, tmp_path, change)
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, "which is no path (text without a NUL)")


@pytest.mark.parametrize("rounds", [2**70, 3, 0])
def test_online_resume_refuses_a_round_count_that_is_not_its_episodes(tmp_path, rounds):
    """train_online.py's stage (rounds of --log-every games) records no round size among its
    settings, so its round count went unchecked: 2**70 rounds at 20 episodes continued."""
    path = tmp_path / "o.pt"
    args = ["--hidden", "8", "--num-episodes", "40", "--log-every", "10", "--seed", "3", "--quiet"]
    run("train_online.py", *args, "--stop-at", "20", "--save", path, check=True)
    payload = torch.load(path, weights_only=True)
    assert payload["trainer_state"]["stage"]["rounds_done"] == 2  # 20 episodes in rounds of 10
    payload["trainer_state"]["stage"]["rounds_done"] = rounds
    torch.save(payload, path)
    before = path.read_bytes()
    proc = run("train_online.py", "--resume", path, "--save", path, "--quiet")
    assert_one_line_error(proc, f"rounds_done: {rounds:,} rounds of 10 episodes")
    assert path.read_bytes() == before


def test_a_century_of_cpu_is_a_stage_s(stopped, tmp_path):
    """The bound is on the damage side: 3,155,760,000 seconds (a hundred years) still reads."""
    path = _damaged(
        stopped, tmp_path, _set("trainer_state", "stage", "cpu_seconds", 3_155_760_000.0)
    )
    proc = run("tools/describe_model.py", path)
    assert proc.returncode == 0, proc.stderr


def test_online_resume_refuses_a_stage_missing_a_recorded_setting(tmp_path):
    """Every online stage records its end_lr (None for a constant rate): one missing was
    damaged, and was taken without a word (where the stage's flags record another end_lr,
    the comparison of settings refuses it; here they agree on a constant rate)."""
    path = tmp_path / "o.pt"
    args = ["--hidden", "8", "--num-episodes", "40", "--log-every", "10", "--seed", "3", "--quiet"]
    run("train_online.py", *args, "--stop-at", "10", "--save", path, check=True)
    payload = torch.load(path, weights_only=True)
    del payload["trainer_state"]["stage"]["settings"]["end_lr"]
    torch.save(payload, path)
    before = path.read_bytes()
    proc = run("train_online.py", "--resume", path, "--save", path, "--quiet")
    assert_one_line_error(proc, "trainer_state.stage.settings.end_lr: is missing")
    assert path.read_bytes() == before


def test_the_same_command_refuses_a_recorded_log_that_names_no_file(stopped, tmp_path):
    """--resume X --save X appends to the log the stage wrote: a record naming a log that is
    not there (a damaged record's text) was taken as a new log, relative to the current folder."""
    elsewhere = tmp_path / "never_written.csv"
    path = _damaged(stopped, tmp_path, _recorded("log", str(elsewhere)))
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, "which names no file (the stage's log; give --log")
    assert f"records --log '{str(elsewhere)[:40]}" in proc.stderr
    assert not elsewhere.exists()


def _started(**record):
    def change(payload):
        payload["trainer_state"]["stage"]["config"].update(record)

    return change


# a continued stage's record of what made its network, saying another network than the one
# it holds: carried into each of its checkpoints unsaid (and into the stage file that
# describe_model --config makes of it, which then makes another network)
STARTED = {
    "hidden sizes": (
        _started(hidden=[999]),
        "--hidden [999], where its network has hidden sizes 8",
    ),
    "hidden as text": (_started(hidden="8"), "--hidden '8', where its network has hidden sizes 8"),
    "a widening never made": (_started(expand=[12]), "--expand [12], where its network has"),
    "board features it lacks": (
        _started(board_features=True),
        "--board-features True, where its network reads 196 inputs",
    ),
    "another activation": (
        _started(activation="sigmoid"),
        "--activation 'sigmoid', where its network has relu hidden units",
    ),
    "a warm start of another mode": (
        _started(warm_start_cubeful="c.pt"),
        "--warm-start-cubeful 'c.pt', where its network plays dmp",
    ),
    "sizes no loaded network had": (
        _started(resume="s0.pt", hidden=[3]),
        "--hidden [3], where its network has hidden sizes 8",
    ),
    "two sources": (
        _started(warm_start_equity="e.pt", warm_start_cubeful="c.pt"),
        "--warm-start-cubeful 'c.pt', where its network began from --warm-start-equity",
    ),
    "another game mode from scratch": (
        _started(game_mode="cubeless-money"),
        "--game-mode 'cubeless-money', where its network plays dmp",
    ),
    "an output layer kept from no warm start": (
        _started(keep_output_layer=True),
        "--keep-output-layer True, where its network began anew",
    ),
    "a match head of no match": (_started(match_head="mwc"), "--match-head 'mwc', where its"),
}


@pytest.mark.parametrize("case", sorted(STARTED))
def test_continuing_refuses_a_record_of_another_network(stopped, tmp_path, case):
    change, words = STARTED[case]
    path = _damaged(stopped, tmp_path, change)
    before = open(path, "rb").read()
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, f"{path}: its stage records {words}")
    assert open(path, "rb").read() == before


@pytest.mark.parametrize("case", ["hidden sizes", "another activation", "two sources"])
def test_describe_config_refuses_a_record_of_another_network(stopped, tmp_path, case):
    """describe_model --config writes the record as a stage file that runs the stage again:
    a record of another network made a file that trains another network."""
    change, words = STARTED[case]
    proc = run("tools/describe_model.py", "--config", _damaged(stopped, tmp_path, change))
    assert_one_line_error(proc, f"its stage records {words}")
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("batch_size", -256, "--batch-size -256, which the flag refuses (must be at least 1"),
        ("lr", -1.0, "--lr -1.0, which the flag refuses"),
        ("seed", "abc", "--seed 'abc', which the flag refuses"),
    ],
)
def test_describe_config_refuses_a_value_its_flag_refuses(stopped, tmp_path, key, value, words):
    """describe_model --config printed a damaged value (a batch of -256) as a stage file,
    which --config then refused: the record is judged by its trainer's flags first."""
    path = _damaged(stopped, tmp_path, _set("trainer_state", "stage", "config", key, value))
    proc = run("tools/describe_model.py", "--config", path)
    assert_one_line_error(proc, words)
    assert proc.stdout == ""


def test_a_record_from_a_loaded_network_with_the_flag_unset_continues(stopped, tmp_path):
    """A stage begun from a checkpoint records --hidden's default (the flag unset) or the
    loaded sizes; either continues (the source file need not be there still)."""
    for hidden in ([80], [8]):
        path = _damaged(
            stopped, tmp_path, _started(resume=str(tmp_path / "gone.pt"), hidden=hidden)
        )
        proc = run(
            "train_batch.py", "--resume", path, "--save", path, "--stop-at", "40", *QUICK_TRAIN
        )
        assert proc.returncode == 0, proc.stderr


def test_a_stage_widened_and_deepened_from_scratch_continues(tmp_path):
    """--hidden 8 --expand 12 --expand-depth-size 12 makes [12, 12]: its record (the depth
    is a setting, beside what started the stage) says so, and the stage continues."""
    path = stopped_stage(tmp_path / "s.pt", "--expand", "12", "--expand-depth-size", "12")
    proc = run("train_batch.py", "--resume", path, "--save", path, "--stop-at", "40", *QUICK_TRAIN)
    assert proc.returncode == 0, proc.stderr


def test_a_step_count_that_requires_grad_continues_without_a_word(stopped, tmp_path):
    """A step count saved as a tensor that requires grad is a step count still: reading it
    printed torch's "Converting a tensor with requires_grad=True to a scalar" warning, naming
    a line of the checker, before the run went on."""

    def change(payload):
        for moments in payload["trainer_state"]["optimizer_state"]["state"].values():
            moments["step"] = moments["step"].clone().requires_grad_()

    path = _damaged(stopped, tmp_path, change)
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--stop-at",
        "40",
        *QUICK_TRAIN,
        subprocess_=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr


# a stage's two records of its settings disagreeing: its compared settings (held to when it
# continues) and its config (taken up when it continues, printed by describe_model --config);
# a run writes both from one stage
DISAGREE = {
    # the settings' LR (and the lineage entry's, the same record) trained on, the config's printed
    "an LR": (
        _set("trainer_state", "stage", "settings", "lr", 0.001),
        "--lr 0.001 and its config 0.0003",
    ),
    "1-ply targets": (_set("trainer_state", "stage", "settings", "oneply", True), "--oneply True"),
    # the settings' Adam trained on, the config's SGD printed as the stage file
    "an optimizer": (
        _set("trainer_state", "stage", "config", "optimizer", "sgd"),
        "--optimizer 'adam' and its config 'sgd'",
    ),
    # recorded in the settings whenever it is not the default: absent there, the config's taken
    "a trace decay": (
        _set("trainer_state", "stage", "config", "td_lambda", 0.5),
        "--td-lambda 0.0 and its config 0.5",
    ),
    "a gradient clip": (
        _set("trainer_state", "stage", "config", "grad_clip", 1.0),
        "--grad-clip None and its config 1.0",
    ),
}


@pytest.mark.parametrize("case", sorted(DISAGREE))
def test_readers_refuse_a_stage_whose_settings_and_config_disagree(stopped, tmp_path, case):
    """Taken, the continued stage trained on one record (an LR of 0.001, 1-ply targets, a
    trace decay of 0.5) where one run through used the other, and describe_model
    --config printed a stage file of the other: both refuse it by name, the file as it was."""
    change, words = DISAGREE[case]
    path = _damaged(stopped, tmp_path, change)
    before = open(path, "rb").read()
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, f"{path}: its stage's settings record {words}")
    assert open(path, "rb").read() == before
    proc = run("tools/describe_model.py", "--config", path)
    assert_one_line_error(proc, f"its stage's settings record {words}")
    assert proc.stdout == ""


@pytest.mark.parametrize("key, value", [("td_lambda", "0.5"), ("batch_size", "256")])
def test_continuing_refuses_a_recorded_number_written_as_text(stopped, tmp_path, key, value):
    """A record of text that reads as the flag's number passed the flag's check and was
    then taken as text: a --td-lambda of '0.5' was a TypeError traceback."""
    path = _damaged(stopped, tmp_path, _set("trainer_state", "stage", "config", key, value))
    flag = "--" + key.replace("_", "-")
    proc = run("train_batch.py", "--resume", path, "--save", path, *QUICK_TRAIN)
    assert_one_line_error(proc, f"records {flag} '{value}', which the flag refuses (text, where")
    proc = run("tools/describe_model.py", "--config", path)
    assert_one_line_error(proc, f"records {flag} '{value}', which the flag refuses (text, where")


def test_describe_config_prints_the_length_the_stage_runs(stopped, tmp_path):
    """A continued stage runs the episode count of its compared settings (a stage ended early
    by older code rewrote only those); describe_model --config printed its config's instead,
    a stage file of another stage (100 episodes for a stage of 60)."""
    path = _damaged(
        stopped, tmp_path, _set("trainer_state", "stage", "config", "num_episodes", 100)
    )
    proc = run("tools/describe_model.py", "--config", path)
    assert proc.returncode == 0, proc.stderr
    assert "num-episodes = 60\n" in proc.stdout and "100" not in proc.stdout


@pytest.mark.parametrize("key, value", [("log_every", 7), ("lam", 0.5), ("retired_flag", "x")])
def test_a_record_of_a_flag_this_script_lacks_is_let_be(stopped, tmp_path, key, value):
    """A stage recorded by another script or an older version may record flags this one
    lacks: the continue compares only the flags this script has (comparing every recorded
    flag refused such a stage as 'log-every 7 -> None')."""
    path = _damaged(stopped, tmp_path, _set("trainer_state", "stage", "config", key, value))
    proc = run("train_batch.py", "--resume", path, "--save", path, "--stop-at", "40", *QUICK_TRAIN)
    assert proc.returncode == 0, proc.stderr
