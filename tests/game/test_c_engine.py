import threading

import numpy as np

from tdbg.game import c_engine
from oracle_positions import result_keys
from tdbg.game import backgammon_engine as be


def _inputs(positions, n, seed):
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(positions), n, replace=False)
    return positions[idx], rng.integers(1, 7, (n, 2))


def test_expander_grows_and_keeps_offsets(positions_20k):
    boards, dice = _inputs(positions_20k, 2000, 1)
    small = c_engine.Expander(capacity=16)  # forces many resumes
    out_b, feats, offsets = small.expand(boards, dice)
    ref_b, ref_f, ref_off = c_engine.expand_batch(boards, dice)
    assert np.array_equal(offsets, ref_off)
    assert np.array_equal(out_b, ref_b) and np.array_equal(feats, ref_f)
    for i in range(0, 2000, 97):
        assert set(be.position_keys(out_b[offsets[i] : offsets[i + 1]]).tolist()) == result_keys(
            be.legal_moves(boards[i], *map(int, dice[i]))
        )


def test_no_shared_scratch_between_threads(positions_20k):
    """Two threads expanding different inputs at once get exactly their serial results."""
    jobs = [_inputs(positions_20k, 3000, s) for s in (11, 12)]
    serial = [c_engine.expand_batch(b, d) for b, d in jobs]
    results = [None, None]

    def work(k):
        ex = c_engine.Expander()
        for _ in range(5):
            out = ex.expand(*jobs[k])
            results[k] = tuple(x.copy() for x in out)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, serial, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))


def test_moves_replay_to_their_boards(positions_20k):
    """The steps C reports really produce the board it reports."""
    for board in positions_20k[:300]:
        for m, nb in c_engine.legal_moves(board, 4, 2):
            me, opp = board[1].tolist(), board[0].tolist()
            for src, dst in m:
                me[src - 1] -= 1
                if dst:
                    me[dst - 1] += 1
                    if opp[24 - dst] == 1:
                        opp[24 - dst], opp[24] = 0, opp[24] + 1
            assert nb[1].tolist() == me and nb[0].tolist() == opp
