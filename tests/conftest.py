import signal

import pytest

from helpers import QUICK_TRAIN, run
from oracle_positions import oracle_positions
from tdbg.infra import threads

# the library code the tests call directly runs on the threads a script would choose (one,
# or TDBG_THREADS / OMP_NUM_THREADS), not torch's thread per core
threads.use()


@pytest.fixture(autouse=True)
def _stop_signal_handlers_back():
    """A script's error line, run here in-process (cli.run_main), leaves Ctrl-C and SIGTERM
    ignored for the rest of the process, as a program's exit needs: put pytest's handlers back
    after each test, so that the next test and its children (which inherit an ignored signal)
    start as from a terminal."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


@pytest.fixture(scope="session")
def positions_20k():
    """20,000 positions from random games and gnubg-nn self-play (not our engine)."""
    return oracle_positions(20_000)


@pytest.fixture(scope="session")
def ckpt(tmp_path_factory):
    """A small DMP checkpoint (8 hidden units, 40 episodes) and its log beside it (c.csv):
    the tests read them and never change them."""
    path = tmp_path_factory.mktemp("ck") / "c.pt"
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "40",
        "--save",
        path,
        *QUICK_TRAIN,
        check=True,
    )
    return str(path)
