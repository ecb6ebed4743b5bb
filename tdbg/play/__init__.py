"""Playing: agents, which agent plays a checkpoint, games and matches, luck, rollouts, decisions, analysis, .mat files, evaluations."""
