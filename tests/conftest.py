"""Shared fixtures: the watermelon toy table (UNTIE paper, Table I) and data paths."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATASETS = SHARED / "datasets"


@pytest.fixture
def watermelon() -> pd.DataFrame:
    """UNTIE Table I: six watermelons, three attributes (sweetness is the label)."""
    return pd.DataFrame(
        {
            "texture": ["clear", "blurry", "blurry", "clear", "blurry", "clear"],
            "color": ["white", "yellow", "yellow", "green", "green", "black"],
            "root": ["straight", "straight", "curled", "slightly curled", "curled",
                     "slightly curled"],
        },
        index=[f"A{i}" for i in range(1, 7)],
    )


@pytest.fixture
def shared_datasets() -> Path:
    """The shared data-set folder (``$CATEMBED_SHARED/datasets`` or ``../shared/datasets``),
    skipping the test when it is absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"shared data sets not available (looked in {DATASETS})")
    return DATASETS


def shared_dataset(name: str) -> Path:
    """Path of a data set in ../shared/datasets, skipping the test when it is absent."""
    path = DATASETS / name
    if not (path / "data.csv").exists():
        pytest.skip(f"shared data set {name} not available")
    return path
