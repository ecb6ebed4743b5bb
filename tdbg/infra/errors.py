"""The library's exceptions.  Library code raises these; only the scripts (cli.run_main)
turn them into one ``error:`` line and an exit code."""


class InputError(Exception):
    """Bad input: a setting, a file or a combination that cannot work (scripts: exit code 2)."""


class RunError(Exception):
    """A run that failed part-way (a worker died, training diverged): scripts exit with code 1."""
