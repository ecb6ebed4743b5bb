import pytest

from oracle_positions import oracle_positions


@pytest.fixture(scope="session")
def positions_20k():
    """20,000 positions from random games and gnubg-nn self-play (not our engine)."""
    return oracle_positions(20_000)
