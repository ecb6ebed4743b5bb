"""Errors, files and the output policy, worker processes, backends, Ray, stop signals, run logs, statistics, provenance: no backgammon."""
