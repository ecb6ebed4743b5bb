"""tdbg.infra.backends: the backend settings and the pool each asks for (the pools' own
behaviour: tests/infra/test_process_hygiene.py and tests/infra/test_ray_backend.py)."""

import dataclasses

from tdbg.infra import backends
from tdbg.infra.backends import Backend, open_pool
from tdbg.infra.workers import WorkerPool


def test_the_default_backend_is_local_with_an_hour_per_ray_job():
    b = Backend()
    assert (b.backend, b.ray_address, b.ray_timeout) == ("local", None, 3600.0)
    field = Backend.__dataclass_fields__["backend"]
    assert field.metadata["choices"] == ("local", "ray")
    assert "{what}" in field.metadata["help"]  # each script names what its workers do
    assert Backend.__dataclass_fields__["ray_timeout"].metadata["type"] == "positive_float"
    assert dataclasses.replace(b, backend="ray").backend == "ray"


def test_one_local_worker_runs_in_this_process_unless_it_must_be_separate():
    assert open_pool("local", 1, "self-play") is None
    for workers, separate in ((1, True), (3, False)):
        pool = open_pool("local", workers, "self-play", separate)
        try:
            assert isinstance(pool, WorkerPool)
            assert (pool.workers, pool.what) == (workers, "self-play")
        finally:
            pool.close()
    assert backends.BACKENDS == ("local", "ray")
