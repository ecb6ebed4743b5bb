"""The flags that choose where worker jobs run (--backend, --ray-address, --ray-timeout)
and the check of them (and the connection to Ray) before a run starts."""

from __future__ import annotations

from tdbg.app import cli, settings_flags
from tdbg.infra.backends import DEFAULT_RAY_TIMEOUT, RAY_INSTALL, Backend
from tdbg.infra.errors import InputError
from tdbg.infra.workers import MAX_WORKERS_PER_CORE

MAX_RAY_WORKERS = 4096


def add_backend_args(parser, what: str) -> None:
    """--backend, --ray-address and --ray-timeout (backends.Backend's fields), as one
    argument group.  The parser's --workers is checked against this machine's cores by
    ``start`` for the local backend only: Ray workers are limited by the cluster's CPUs."""
    for action in parser._actions:
        if action.dest == "workers":
            action.type = cli.count_arg(
                MAX_RAY_WORKERS,
                f"workers (with --backend local at most {MAX_WORKERS_PER_CORE} per core)",
            )
            action.help += "; with --backend ray: at most the Ray cluster's CPUs"
    settings_flags.add_arguments(
        parser.add_argument_group("where the workers run"), Backend, what=what
    )


def start(args) -> None:
    """``start_backend`` for the parsed flags."""
    start_backend(
        Backend(
            getattr(args, "backend", "local"),
            getattr(args, "ray_address", None),
            getattr(args, "ray_timeout", DEFAULT_RAY_TIMEOUT),
        ),
        args.workers,
    )


def start_backend(where: Backend, workers: int) -> None:
    """Connect to Ray (or start it) when --backend ray; InputError (before any work) when
    Ray is missing, --ray-address cannot be reached or the cluster has fewer CPUs than
    --workers, or (local) when --workers is more than this machine's cores allow."""
    if where.backend != "ray":
        if where.ray_address:
            raise InputError("--ray-address applies to --backend ray")
        try:
            cli.workers_arg(str(workers))
        except cli.argparse.ArgumentTypeError as exc:
            raise InputError(f"argument --workers: {exc}") from None
        return
    try:
        import ray  # noqa: F401
    except ImportError:
        raise InputError(
            f"--backend ray needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    from tdbg.infra import ray_backend  # imports Ray

    ray_backend.connect(where.ray_address, workers, where.ray_timeout)
