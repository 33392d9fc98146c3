"""Execute notebooks/pool_sizes.ipynb with small settings (VALE_SIM_SMALL=1)."""
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]


def test_pool_sizes_notebook_runs(monkeypatch):
    monkeypatch.setenv("VALE_SIM_SMALL", "1")
    nb = nbformat.read(REPO / "notebooks" / "pool_sizes.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=600,
                                     resources={"metadata": {"path": str(REPO)}})
    client.execute(cwd=str(REPO), env={**os.environ, "VALE_SIM_SMALL": "1"})
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2                      # length vs pool, seat heat map
    text = "".join(o.get("text", "") for o in outputs)
    assert "Recommended" in text or "rulebook" in text
