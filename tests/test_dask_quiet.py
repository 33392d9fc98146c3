"""While a run waits on a Dask cluster, distributed's warnings stay off stderr: the run
reports its outcome in one line (a scheduler that went away once showed
"distributed.client - WARNING - Couldn't gather 1 keys" above that line)."""
import logging

import pytest

from vale_sim.runner import _quiet_dask_cancellation


def test_distributed_loggers_with_their_own_level_are_quiet_during_a_run():
    pytest.importorskip("dask.distributed")
    client = logging.getLogger("distributed.client")
    before = client.level
    client.setLevel(logging.WARNING)          # what dask's logging config sets
    try:
        with _quiet_dask_cancellation():
            assert not client.isEnabledFor(logging.WARNING)
            assert not logging.getLogger("distributed").isEnabledFor(logging.WARNING)
            assert client.isEnabledFor(logging.ERROR)
        assert client.level == logging.WARNING   # restored after the run
    finally:
        client.setLevel(before)
