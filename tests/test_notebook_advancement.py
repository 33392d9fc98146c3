"""Execute notebooks/advancement_value.ipynb with small settings (VALE_SIM_SMALL=1)."""
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]


def test_advancement_value_notebook_runs():
    nb = nbformat.read(REPO / "notebooks" / "advancement_value.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=600,
                                     resources={"metadata": {"path": str(REPO)}})
    client.execute(cwd=str(REPO), env={**os.environ, "VALE_SIM_SMALL": "1"})
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4          # forest, lift vs value, tournament, turn curves
    text = "".join(o.get("text", "") for o in outputs)
    assert "not causes" in text and "small=True" in text
