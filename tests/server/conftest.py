"""Puts tests/pylib on sys.path; the shared helpers, hooks and fixtures come from there."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mirra_testlib import make_broker, pytest_runtest_makereport, pytest_runtest_setup  # noqa: E402,F401
