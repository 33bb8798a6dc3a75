#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""zn_layout.py - the zN fractal layout as a text grid and as an image.

    PYTHONPATH=build/python python/examples/zn_layout.py [--format zN]
        [--shape 8x12] [--dtype float16] [--block 4x4] [--output zn.png] [--show]

Prints what `tilecopy layout` prints (CuTe notation, the offset of every
element, the physical size), then, with --output or --show, draws the same
grid with matplotlib (Debian's python3-matplotlib, when installed): each
element's cell coloured by the fractal it lives in, labelled with its
offset, and the path memory takes through the matrix. Nothing is written
unless --output names a file.
"""
import argparse
import sys

import tilecopy


def draw(lay, path, show):
    import matplotlib
    if not show:
        matplotlib.use("Agg")              # no display needed to write a file
    import matplotlib.pyplot as plt
    import numpy as np

    row, col = lay.axes()
    off = lay.grid(row, col)
    rows, cols = off.shape
    fractal = np.prod([lv[0][0] for lv in lay.modes if len(lv) > 1]) or 1
    fig, ax = plt.subplots(figsize=(0.55 * cols + 1.5, 0.55 * rows + 1.2))
    ax.imshow(off // fractal, cmap="tab20", interpolation="nearest")
    for (r, c), v in np.ndenumerate(off):
        ax.text(c, r, str(v), ha="center", va="center", fontsize=8)
    # memory order: the cell holding offset k, then k + 1, ...
    order = np.argsort(off, axis=None)
    rr, cc = np.unravel_index(order, off.shape)
    ax.plot(cc, rr, color="black", linewidth=0.6, alpha=0.5)
    ax.set_title("%s %s %s: %s" % (lay.format, "x".join(map(str, lay.shape)), lay.dtype, lay.cute),
                 fontsize=9)
    ax.set_xlabel("dim %d" % col)
    ax.set_ylabel("dim %d" % (row if row is not None else 0))
    ax.set_xticks(range(cols))
    ax.set_yticks(range(rows))
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
        print("image: %s" % path)
    if show:
        plt.show()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--format", default="zN")
    p.add_argument("--shape", default="8x12")
    p.add_argument("--dtype", default="float16")
    p.add_argument("--block", default="4x4", help='"RxC" of a fractal; "" for the default')
    p.add_argument("--output", default=None, help="write the image to this file (PNG, SVG, ...)")
    p.add_argument("--show", action="store_true", help="open a window")
    a = p.parse_args(argv)
    try:
        shape = tuple(int(s) for s in a.shape.lower().split("x"))
    except ValueError:
        p.error("--shape %r: expected extents joined by x, like 8x12" % a.shape)
    try:
        lay = tilecopy.layout(a.format, shape=shape, dtype=a.dtype, block=a.block or None)
    except tilecopy.Error as e:
        print("zn_layout: %s" % e, file=sys.stderr)
        return 1
    print(lay.draw(), end="")
    if not a.output and not a.show:
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("no image: matplotlib is not installed (Debian: python3-matplotlib)")
        return 0
    draw(lay, a.output, a.show)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
