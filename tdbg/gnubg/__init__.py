"""The GNU Backgammon binary: preflight, protocol, external player, analysis of .mat files."""
