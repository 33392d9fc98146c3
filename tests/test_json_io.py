"""The one JSON cleaner of results (vale_sim.io.jsonable / json_records / dumps)."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from vale_sim import io
from vale_sim.games.mystic_lands.studies import common as C


def test_numpy_nan_inf_tuples_and_keys_become_plain_json():
    x = {1: np.int64(3), "f": np.float32(0.5), "nan": math.nan, "inf": np.float64(math.inf),
         "b": np.bool_(True), "t": (1, np.int16(2), [np.nan]), "a": np.array([[1, 2]]),
         "keep": True, "s": "x", "none": None}
    out = io.jsonable(x)
    assert out == {"1": 3, "f": 0.5, "nan": None, "inf": None, "b": True, "t": [1, 2, [None]],
                   "a": [[1, 2]], "keep": True, "s": "x", "none": None}
    assert type(out["1"]) is int and type(out["f"]) is float and type(out["b"]) is bool
    assert out["keep"] is True                      # a bool stays a bool, not 1


def test_dumps_writes_valid_json_never_nan():
    text = io.dumps({"p": [math.nan, -math.inf, 0.25], "path": Path("a/b"),
                     "q": Fraction(1, 3)}, sort_keys=True)
    assert "NaN" not in text and "Infinity" not in text
    back = json.loads(text)
    assert back["p"] == [None, None, 0.25] and back["path"] == "a/b"


def test_json_records_of_a_frame():
    df = pd.DataFrame({"n": [1, 2], "rate": [0.5, np.nan], "ok": [True, False]})
    assert io.json_records(df) == [{"n": 1, "rate": 0.5, "ok": True},
                                   {"n": 2, "rate": None, "ok": False}]


def test_the_studies_use_the_same_cleaner():
    assert C.clean is io.jsonable and C.records is io.json_records
