# SPDX-License-Identifier: MIT
"""Empty tensors (an extent 0, an empty batch): an empty result, with the
format, rank, block and memory still checked; nothing runs. numpy and
PyTorch are the reference: their empty arrays of the same shapes."""
import numpy as np
import pytest

import tilecopy
from exporter import Exporter

SHAPES = [(0, 16, 3, 3), (2, 0, 3, 3), (2, 3, 0, 3), (0, 0, 0, 0)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dst", ["NHWC", "nChw16c", "NC1HWC0", "nChw8c"])
def test_empty_batch_round_trip(shape, dst):
    x = np.zeros(shape, np.float32)
    y = tilecopy.convert(x, src="NCHW", dst=dst)
    assert y.shape == (0,) and y.format == dst and y.logical_shape == shape
    assert y.executor is None and y.dtype == np.float32
    back = tilecopy.convert(y, dst="NCHW")
    assert back.logical().shape == shape and back.logical().size == 0
    if dst == "NHWC":
        assert y.logical().shape == shape
    else:
        with pytest.raises(tilecopy.UnsupportedError, match="blocked"):
            y.logical()
    with pytest.raises(tilecopy.ShapeError, match="empty tensor has no physical layout"):
        y.physical()
    with pytest.raises(tilecopy.ShapeError, match="empty tensor has no layout"):
        y.layout


def test_empty_still_checks_its_arguments():
    x = np.zeros((0, 16, 3, 3), np.float32)
    with pytest.raises(tilecopy.UnknownFormatError):
        tilecopy.convert(x, src="NCHW", dst="bogus")
    with pytest.raises(tilecopy.ShapeError, match="rank 4"):
        tilecopy.convert(x, src="NCHW", dst="RowMajor", shape=(0, 3))
    with pytest.raises(tilecopy.BlockError):
        tilecopy.convert(x, src="NCHW", dst="nChw16c", dst_block="4")
    with pytest.raises(tilecopy.DtypeError):
        tilecopy.convert(x, src="NCHW", dst="NHWC", out=np.zeros((0, 16, 3, 3), np.float16))
    # a physical buffer of an empty tensor has 0 bytes
    with pytest.raises(tilecopy.BufferSizeError, match="takes 0 bytes"):
        tilecopy.convert(x, src="NCHW", dst="nChw16c", out=np.zeros(16, np.float32))
    with pytest.raises(tilecopy.BufferSizeError, match="takes 0 bytes"):
        tilecopy.convert(np.zeros(16, np.float32), src="nChw16c", shape=(0, 16, 3, 3),
                         dst="NCHW")
    # out= of the logical shape, or an empty buffer: accepted, untouched
    for out in (np.zeros((0, 16, 3, 3), np.float32), np.zeros(0, np.float32)):
        dst = "NHWC" if out.ndim == 1 else None
        assert tilecopy.convert(x, src="NCHW", dst=dst, out=out) is out
    with pytest.raises(tilecopy.ShapeError):
        tilecopy.layout("NCHW", (0, 16, 3, 3))


def test_empty_torch(torch):
    t = torch.zeros(0, 3, 4, 5)
    y = tilecopy.convert(t, src="NCHW", dst="NHWC")
    assert y.logical().shape == (0, 3, 4, 5)
    out = torch.empty(0, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    assert tilecopy.convert(t, src="NCHW", out=out) is out


def test_empty_dlpack_still_checks_device_and_strides():
    def cuda(t):
        t.device.device_type = 2        # kDLCUDA
    with pytest.raises(tilecopy.UnsupportedError, match="CPU cannot address"):
        tilecopy.convert(Exporter(np.zeros((0, 3), np.float32), cuda), dst="ColumnMajor")
    y = tilecopy.convert(Exporter(np.zeros((3, 0), np.uint16)), dst="ColumnMajor")
    assert y.dtype == np.uint16 and y.logical_shape == (3, 0)
