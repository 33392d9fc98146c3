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
    head, *kept = ck.read_text().splitlines()
    assert json.loads(head)["version"] == B.CHECKPOINT_VERSION and len(kept) == 1
    with open(ck, "a") as f:                   # a second run whose append was cut short
        f.write(kept[0][: len(kept[0]) // 2])
    b = B.balance(cards=["Podlings"], fields=["cost"], games=200, checkpoint=ck, resume=True)
    assert b.games["replayed_from_checkpoint"] > 0
    full = B.balance(cards=["Podlings"], fields=["cost"], games=200)
    assert b.to_json()["confirmation"] == full.to_json()["confirmation"]


def test_each_run_is_appended_not_the_whole_checkpoint_rewritten(tmp_path, monkeypatch):
    """The checkpoint grew to 32 MB in the bundled core run and was rewritten after each
    of its 108 runs (about 8 s a write at the end); now each run is one appended line."""
    from vale_sim import io
    writes = []
    real = io.atomic_write
    monkeypatch.setattr(io, "atomic_write", lambda p, d: (writes.append(len(d)), real(p, d))[1])
    ck = tmp_path / "bal.json"
    B.balance(cards=["Podlings", "Calm Weather"], fields=["cost"], games=200, checkpoint=ck)
    lines = ck.read_text().splitlines()
    assert len(lines) >= 3                      # the header and the runs
    assert len(writes) == 1 and writes[0] < 2000    # only the header was written whole


def test_draft_on_dask_gives_the_local_answer(cluster):
    from vale_sim.draft import fill_in
    kw = dict(players=(2,), deals=50, keys=["rain_supply", "end_cubes"])
    local = fill_in("mystic-lands", **kw).to_json()
    on_dask = fill_in("mystic-lands", scheduler=cluster.scheduler_address, **kw).to_json()
    for d in (local, on_dask):
        d["games_played"].pop("wall_seconds"), d["games_played"].pop("play_seconds")
    assert on_dask == local
