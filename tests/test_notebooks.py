"""Every notebook runs top to bottom (nbclient, kernel python3, small settings).

Notebooks read ``VALE_SIM_SMALL=1`` (set here) and then use small sizes, so
this stays fast.  Each entry says how many figures the notebook must show and
a phrase its printed output must contain, so a notebook that silently
produces nothing fails.
"""
from __future__ import annotations

import os
from pathlib import Path

import nbclient
import nbformat
import pytest
from jupyter_client import KernelManager

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = {
    # name: (least number of figures, phrases the output must contain)
    "spoil_odds.ipynb": (1, ()),
    "advancement_value.ipynb": (4, ("not causes", "small=True")),   # forest, lift, tournament, curves
    "pool_sizes.ipynb": (2, ()),                                     # length vs pool, seat heat map
    # the wither curves (section 1), then the studies
    "mystic_lands.ipynb": (5, ("largest |exact - simulated| / SE", "Seat compensation:",
                               "fair share")),
}


def run_notebook(name: str, workdir: Path):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    # IPC transport: the kernel talks over local files, not TCP ports
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(workdir / "kernel"))
    client = nbclient.NotebookClient(nb, km=km, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute(cwd=str(ROOT), env={**os.environ, "VALE_SIM_SMALL": "1", "MPLBACKEND": "Agg"})
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def test_every_notebook_is_listed():
    assert sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs(name, tmp_path):
    outputs = run_notebook(name, tmp_path)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    least_figures, phrases = NOTEBOOKS[name]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= least_figures
    text = "".join(o.get("text", "") for o in outputs)
    if name == "pool_sizes.ipynb":
        assert "Recommended" in text or "rulebook" in text
    for phrase in phrases:
        assert phrase in text
