# SPDX-License-Identifier: MIT
"""The examples of docs/python.md run and print what the page says."""
import doctest
import os
import re

import pytest

from conftest import TOP


def test_python_md_examples():
    path = os.path.join(TOP, "docs", "python.md")
    with open(path) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 4
    try:
        import torch  # noqa: F401
        skipped = 0
    except ImportError:
        skipped = sum("torch" in b for b in blocks)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {}
    for i, block in enumerate(blocks):
        if skipped and "torch" in block:
            continue
        test = parser.get_doctest(block, globs, "python.md[%d]" % i, path, 0)
        runner.run(test, clear_globs=False)
        globs = test.globs              # each block goes on from the last
    assert runner.failures == 0, "%d example(s) of docs/python.md failed (printed above)" \
        % runner.failures
    if skipped:
        pytest.skip("%d PyTorch example(s) of docs/python.md: python3-torch is not installed"
                    % skipped)
