"""vale-sim balance on a Dask cluster (--scheduler, docs/balance.md): the same answer as
the local run, for any number of workers; cancel() stops the search, the checkpoint
keeps what was done."""
from __future__ import annotations

import json

import pytest

from vale_sim import balance as B
from vale_sim.cli import main

pytestmark = [pytest.mark.compiled, pytest.mark.slow]

ARGS = ["balance", "--cards", "Podlings,Calm Weather", "--fields", "cost", "--games", "200",
        "--json"]


def _strip(d: dict) -> dict:
    d = dict(d)
    d["games_played"] = {k: v for k, v in d["games_played"].items()
                         if k not in ("wall_seconds", "play_seconds")}
    return d


@pytest.fixture
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


def test_balance_on_dask_gives_the_local_answer(cluster, capsys):
    assert main(ARGS) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(ARGS + ["--scheduler", cluster.scheduler_address]) == 0
    on_dask = json.loads(capsys.readouterr().out)
    assert _strip(on_dask) == _strip(local)
    assert local["games_played"]["search"] > 0


def test_balance_on_dask_with_one_worker_too(cluster):
    """Two workers above; with one of them gone the answer is the same."""
    from dask.distributed import Client
    with Client(cluster.scheduler_address) as client:
        two = B.balance(cards=["Podlings"], fields=["cost"], games=200, scheduler=client)
        cluster.scale(1)
        client.wait_for_workers(1)
        one = B.balance(cards=["Podlings"], fields=["cost"], games=200,
                        scheduler=cluster.scheduler_address)
    assert _strip(one.to_json()) == _strip(two.to_json())


def test_cancel_stops_the_search_and_resume_finishes_it(tmp_path):
    ck = tmp_path / "bal.json"
    calls = {"n": 0}

    def cancel():
        calls["n"] += 1
        return calls["n"] > 1                    # let one run finish, then stop
    with pytest.raises(B.BalanceCancelled):
        B.balance(cards=["Podlings"], fields=["cost"], games=200, checkpoint=ck,
                  cancel=cancel)
    kept = json.loads(ck.read_text())["runs"]
    assert len(kept) == 1
    b = B.balance(cards=["Podlings"], fields=["cost"], games=200, checkpoint=ck, resume=True)
    assert b.games["replayed_from_checkpoint"] > 0
