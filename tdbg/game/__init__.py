"""The game: rules, dice, network inputs, position IDs, bear-off, cube state, output heads, the turn loop, game modes; numpy only."""
