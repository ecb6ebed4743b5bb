"""Errors, files and the output policy, worker processes, backends, Ray, run logs, statistics, provenance: no backgammon."""
