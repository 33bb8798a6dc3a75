# SPDX-License-Identifier: MIT
"""Shared by the tests: the package under test comes from PYTHONPATH (make
check-python sets it to build/python); the paths of the tree from the
environment make sets (TILECOPY_TOP, TILECOPY_BUILD, TILECOPY_CLI)."""
import os

import pytest

TOP = os.environ.get("TILECOPY_TOP") or os.path.abspath(os.path.join(os.path.dirname(__file__),
                                                                     "..", ".."))
BUILD = os.environ.get("TILECOPY_BUILD") or os.path.join(TOP, "build")
CLI = os.environ.get("TILECOPY_CLI") or os.path.join(BUILD, "bin", "tilecopy")

# In the guest of make check-sdk (an engine required, the CPU threshold 0),
# every conversion with device="auto" must have run on the engine.
EXPECT_ENGINE = (bool(os.environ.get("TC_REQUIRE_DEVICE")) and
                 os.environ.get("TILECOPY_DEVICE_THRESHOLD") == "0")


def abs_pythonpath():
    """$PYTHONPATH with absolute entries, for children run elsewhere."""
    return os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p)


@pytest.fixture(scope="session")
def torch():
    """PyTorch from Debian (python3-torch), or a skip saying so."""
    return pytest.importorskip(
        "torch", reason="python3-torch is not installed here (scripts/deps.sh installs it "
        "where Debian has it): the PyTorch comparisons are skipped")


@pytest.fixture(scope="session")
def cli():
    if not os.access(CLI, os.X_OK):
        pytest.skip("no CLI at %s (make builds it)" % CLI)
    return CLI
