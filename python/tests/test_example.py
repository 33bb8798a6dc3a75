# SPDX-License-Identifier: MIT
"""python/examples/zn_layout.py: the text grid always, the image when
matplotlib is installed."""
import os
import subprocess
import sys

import tilecopy
from conftest import TOP, abs_pythonpath


def test_zn_example(tmp_path):
    png = tmp_path / "zn.png"
    r = subprocess.run([sys.executable, os.path.join(TOP, "python", "examples", "zn_layout.py"),
                        "--output", str(png)], capture_output=True, text=True, timeout=300,
                       cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=abs_pythonpath()))
    assert r.returncode == 0, r.stdout + r.stderr
    text = tilecopy.layout("zN", shape=(8, 12), dtype="float16", block="4x4").draw()
    assert r.stdout.startswith(text)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in r.stdout
        assert not png.exists()
    else:
        assert r.stdout.endswith("image: %s\n" % png)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
