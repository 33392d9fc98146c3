"""Every notebook runs top to bottom (nbclient, kernel python3, small settings).

Add a notebook by appending its file name to NOTEBOOKS.  Notebooks read
``VALE_SIM_SMALL=1`` (set here) and then use small sizes, so this stays fast.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = [
    "spoil_odds.ipynb",
]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name, monkeypatch):
    monkeypatch.setenv("VALE_SIM_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
