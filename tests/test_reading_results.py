"""Reading a written run: only the requested columns, in batches, and summaries that
read only the columns they need.  (Moved from tests/test_hardening.py, issue 18 §8.)
"""
import pandas as pd
import pytest

from vale_sim import runner


def test_read_results_reads_requested_columns_in_batches(tmp_path):
    out = tmp_path / "r.parquet"
    cfg = runner.RunConfig(games=30, seed=3)
    full = runner.run(cfg, chunk_size=10, out=out, progress=False)
    batches = list(runner.read_results(out, columns=["game", "score"], batch_size=7))
    assert all(list(b.columns) == ["game", "score"] for b in batches)
    assert all(len(b) <= 7 for b in batches) and len(batches) >= 60 // 7
    got = pd.concat(batches, ignore_index=True)
    pd.testing.assert_frame_equal(got, full[["game", "score"]].reset_index(drop=True),
                                  check_dtype=False)
    loaded = runner.load_results(out, columns=["seat"])
    assert list(loaded.columns) == ["seat"] and len(loaded) == 60
    from vale_sim.cli import UserError
    with pytest.raises(UserError, match="no column 'nope'"):
        list(runner.read_results(out, columns=["nope"]))


def test_summary_of_a_written_run_reads_only_the_columns_it_needs(tmp_path, monkeypatch):
    import pyarrow.parquet as pq
    out = tmp_path / "r.parquet"
    cfg = runner.RunConfig(games=12, seed=5)
    full = runner.run(cfg, chunk_size=6, out=out, progress=False)
    asked = []
    real = pq.read_table

    def spy(path, columns=None, **k):
        asked.append(columns)
        return real(path, columns=columns, **k)
    monkeypatch.setattr(pq, "read_table", spy)
    got = runner.summarize_parts(out, cfg)
    pd.testing.assert_frame_equal(got, runner.summarize_frame(full))
    assert asked and all(c is not None and not any(x.startswith("buy:") for x in c) for c in asked)
