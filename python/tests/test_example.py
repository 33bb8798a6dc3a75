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


def _run(args, cwd):
    return subprocess.run([sys.executable, os.path.join(TOP, "python", "examples", "zn_layout.py")]
                          + args, capture_output=True, text=True, timeout=300, cwd=str(cwd),
                          env=dict(os.environ, PYTHONPATH=abs_pythonpath()))


def test_zn_example_writes_only_when_asked(tmp_path):
    r = _run([], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == tilecopy.layout("zN", shape=(8, 12), dtype="float16", block="4x4").draw()
    assert list(tmp_path.iterdir()) == []


def test_zn_example_bad_input_is_a_message(tmp_path):
    for args, code, want in ((["--shape", "8x"], 2, "--shape '8x': expected extents"),
                             (["--shape", "axb"], 2, "expected extents"),
                             (["--shape", "0x4"], 1, "zn_layout: shape mismatch"),
                             (["--block", "3x"], 1, "zn_layout: block does not fit")):
        r = _run(args, tmp_path)
        assert r.returncode == code and want in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert list(tmp_path.iterdir()) == []
