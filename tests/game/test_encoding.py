import numpy as np

from tdbg.game import c_engine
from tdbg.game import backgammon_engine as be, encoding, movegen


def test_initial_board_by_hand():
    x = encoding.encode(be.initial_board())
    assert x.shape == (196,) and x.dtype == np.float32
    # my 6 point holds 5: units 1, 1, 1, (5-3)/2
    assert x[4 * 5 : 4 * 6].tolist() == [1, 1, 1, 1.0]
    assert x[4 * 7 : 4 * 8].tolist() == [1, 1, 1, 0]  # 8 point: 3
    assert x[4 * 23 : 4 * 24].tolist() == [1, 1, 0, 0]  # 24 point: 2
    assert x[96 + 4 * 12 : 96 + 4 * 13].tolist() == [1, 1, 1, 1.0]  # their 13 point: 5
    assert x[192:].tolist() == [0, 0, 0, 0]
    # per side: 6pt (5) 1+1+1+1, 8pt (3) 1+1+1, 13pt (5) 1+1+1+1, 24pt (2) 1+1 = 13; no bar, none off
    assert x.sum() == 2 * 13
    assert x[:96].sum() == (3 + 1) + 3 + (3 + 1) + 2  # 6pt, 8pt, 13pt, 24pt


def test_bar_and_off_units():
    b = np.zeros((2, 25), dtype=np.int64)
    b[1, 24], b[1, 0] = 3, 2  # me: 3 on the bar, 2 on the ace, 10 off
    b[0, 5] = 15  # them: 15 on their 6 point
    x = encoding.encode(b)
    assert x[192] == 1.5 and np.isclose(x[193], 10 / 15)
    assert x[194] == 0 and x[195] == 0
    assert x[96 + 20 : 96 + 24].tolist() == [1, 1, 1, 6.0]


def test_numpy_and_c_encoders_identical(positions_20k):
    for row in (0, 1):
        boards = positions_20k if row == 1 else positions_20k[:, ::-1]
        assert np.array_equal(
            encoding.encode_batch(boards), c_engine.encode_batch(positions_20k, on_roll_row=row)
        )


def test_expander_features_are_the_opponents_view(positions_20k):
    rng = np.random.default_rng(3)
    boards = positions_20k[:3000]
    dice = rng.integers(1, 7, (len(boards), 2))
    out_b, feats, offsets = c_engine.expand_batch(boards, dice, width=200)
    assert feats.shape == (len(out_b), 200)
    assert np.array_equal(
        feats[:, :196], encoding.encode_batch(be.swap(out_b.transpose(1, 0, 2)).transpose(1, 0, 2))
    )
    assert not feats[:, 196:].any()
    py = movegen.make_expander("python", width=200).expand(boards, dice)
    assert all(np.array_equal(a, b) for a, b in zip((out_b, feats, offsets), py, strict=True))


def test_cube_features():
    f = encoding.cube_features(
        [encoding.CUBE_CENTERED, encoding.CUBE_MINE, encoding.CUBE_THEIRS], [0, 1, 0]
    )
    assert f.tolist() == [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    x = encoding.encode_cubeful_batch(be.initial_board()[None], [encoding.CUBE_CENTERED], [1])
    assert x.shape == (1, 200) and x[0, 196:].tolist() == [1, 0, 0, 1]
