import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
ROBOT_FILES = sorted((ROOT / "robots").glob("*.yaml"))


@pytest.fixture(scope="session")
def root():
    return ROOT
