"""The one way from a player (players.Player) to what plays it: ``evaluator(player, mode)``,
and ``seated(player, mode, seed)``, the agent the game loops seat at a table.

* ``evaluator(player, mode)``: the Evaluator (evaluator.py) that plays ``mode``'s games or
  judges its positions: head to head, matches, the gnubg bridge, rollouts, luck, analysis
  and the quick evaluations of training (there with the model already in memory);
* ``seated(player, mode, seed)``: that evaluator as the game loops (match.Seats) seat it
  for a series, with the seat's seed, refused (InputError) when it lacks what the mode's
  decisions need (model_fit: cube decisions for cubeful money, the match score for match
  play).  A series builds its agents there, in the game loop, right before their first move.

A checkpoint plays the mode it names (its output head's default for one that does not
say) when no mode is given; its output head chooses the class (a head with
``five_outcomes`` plays through ProbAgent, every other through TDAgent); a cubeful money
network at a match table plays by its money rules (MoneyInMatch).  A player resolved by
the app carries its opened network (Player.opened); any other checkpoint is opened here,
once per process (players.opened).
"""

from __future__ import annotations

from tdbg.game.heads import output_head
from tdbg.game.modes import GameMode, MatchPlay, for_mode, game_mode
from tdbg.game.modes.matchplay import unpack
from tdbg.infra.errors import InputError
from tdbg.net.model import CheckpointError, TDNetwork
from tdbg.play import opponents
from tdbg.play.evaluator import Evaluator
from tdbg.play.model_fit import check_model, game_for, lacks, refused
from tdbg.play.players import Player, check_spec, checkpoint_mode_name, opened
from tdbg.play.prob_agent import ProbAgent
from tdbg.play.td_agent import TDAgent


class MoneyInMatch:
    """A cubeful money agent seated at a match table: it sees only the cube's owner and
    plays by its money rules, blind to the score (the baseline a match model must beat).
    An Evaluator that plays only: its values would be money values, not the match's."""

    match_capable = True
    cube_capable = True
    values_positions = False
    plays_own_0ply = False

    def __init__(self, agent):
        self.agent, self.name, self.mode = agent, agent.name, agent.mode

    def choose_moves(self, boards, dice, owner=None):
        return self.agent.choose_moves(boards, dice, unpack(owner)[0])

    def double_decisions(self, boards, owner):
        return self.agent.double_decisions(boards, unpack(owner)[0])

    def take_decisions(self, boards, owner):
        return self.agent.take_decisions(boards, unpack(owner)[0])

    def _refuse(self, *args):
        raise ValueError(
            f"{self.name} plays a match by its money rules; it does not value match positions"
        )

    all_rolls = after_values = position_values = _refuse


def seated_in_match(agent):
    """A cubeful money agent that does not read the match score plays by its money rules."""
    if not getattr(agent, "match_capable", False) and agent.cube_capable:
        return MoneyInMatch(agent)
    return agent


SEAT = {
    GameMode: None,
    MatchPlay: seated_in_match,
}  # what seats an agent at the mode's table (None: it sits there as it is)


def seated(player: Player, mode: GameMode, seed: int) -> Evaluator:
    """The agent a game loop seats for ``player`` at ``mode``'s table, with ``seed`` (a random
    player's); InputError when it cannot play the mode's games (its network's head or
    inputs, its search settings, or what the mode's decisions need: model_fit.lacks)."""
    agent = evaluator(player, mode, seed=seed)
    gap = lacks(mode, agent.cube_capable, getattr(agent, "match_capable", False))
    if gap is not None:
        raise refused(mode, player.name, f"{agent.name} {gap}")
    return agent


def evaluator(
    player: Player, mode: GameMode | None = None, model=None, seed: int | None = None
) -> Evaluator:
    """The Evaluator that plays ``player`` in ``mode``'s games; InputError when it cannot.

    ``mode`` None: a checkpoint's own game mode (the one it was trained for).  ``model``: a
    network already in memory to play instead of reading ``player``'s checkpoint (then
    ``mode`` is needed, and ``player.name`` only names it).  ``seed``: a random player's, in
    place of ``player.seed``."""
    spec = player.name
    # the registry, asked once; a pinned player is a checkpoint (pinned leaves opponents as they are)
    found = opponents.get(spec) if model is None and player.data is None else None
    if found is not None:
        if mode is None:
            raise InputError(f"{spec} plays the game mode it is given; name one")
        try:
            return found.agent(mode, player, seed)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if player.plies is not None:
        raise InputError(
            f"--plies sets gnubg-nn's depth; {spec} is a checkpoint (use --oneply/--twoply)"
        )
    if model is None:
        model, mode = _checkpoint(player, mode)
    elif mode is None:
        raise ValueError(f"{spec}: a network in memory plays the game mode it is given; name one")
    try:
        # the mode the model plays in: a DMP model can still play cubeless money games, maximising
        # P(win) and ignoring gammons (the baseline a cubeless leg has to beat)
        agent_mode = game_for(mode, model.output_mode)
        check_model(agent_mode, model.output_mode, model.n_inputs)
        cls = ProbAgent if output_head(model.output_mode).five_outcomes else TDAgent
        agent = cls(model, agent_mode, player.search, engine=player.engine, name=spec)
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    seat = for_mode(SEAT, mode)
    return agent if seat is None else seat(agent)


def _checkpoint(player: Player, mode: GameMode | None) -> tuple[TDNetwork, GameMode]:
    """(model, mode) of ``player``'s checkpoint (the network it carries, opened when the app
    resolved it, or the one players.opened gives): ``mode``, or the one it was trained for."""
    if player.opened is not None:
        model, meta = player.opened
    else:
        if player.data is None:
            check_spec(player.name)
        try:
            model, meta = opened(player.name, player.data)
        except CheckpointError as exc:
            raise InputError(str(exc)) from None
    return model, mode if mode is not None else game_mode(checkpoint_mode_name(model, meta))
