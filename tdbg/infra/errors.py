"""The library's exceptions.  Library code raises these; only the scripts (cli.run_main)
turn them into one ``error:`` line and exit code 2.  The two kinds differ in what the
message says, not in the code: bad input is found before any work, a failure part-way
says what the run kept."""


class InputError(Exception):
    """Bad input: a setting, a file or a combination that cannot work (scripts: exit code 2)."""


class RunError(Exception):
    """A run that failed part-way (a worker died, training diverged); the message says what
    was kept (the checkpoint and log of the last round saved).  Scripts: exit code 2."""
