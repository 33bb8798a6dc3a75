# SPDX-License-Identifier: MIT
"""DLPack in and out, with numpy and PyTorch: no copy where none is needed
(same data pointer), capsules consumed and released, and PyTorch's own
channels_last conversion as the outside reference."""
import sys

import numpy as np
import pytest

import reference as ref
import tilecopy
from exporter import Exporter


def test_results_share_memory_with_numpy_and_torch_views():
    x = ref.values((2, 3, 4, 5), np.float32)
    y = tilecopy.convert(x, src="NCHW", dst="NHWC")
    assert y.logical().ctypes.data == y.ctypes.data
    assert y.physical().ctypes.data == y.ctypes.data
    assert np.from_dlpack(y).ctypes.data == y.ctypes.data
    lv = np.from_dlpack(y.logical())
    assert lv.ctypes.data == y.ctypes.data and lv.strides == (240, 4, 60, 12)
    np.testing.assert_array_equal(lv, x)


def test_dlpack_exporter_in_and_numpy_out():
    x = ref.values((2, 20, 3, 5), np.float32)
    e = Exporter(x)
    before = sys.getrefcount(x)
    y = tilecopy.convert(e, src="NCHW", dst="nChw16c")
    np.testing.assert_array_equal(y, ref.expected("nChw16c", x))
    back = tilecopy.convert(Exporter(np.asarray(y)), src="nChw16c", dst="NCHW", shape=x.shape)
    np.testing.assert_array_equal(back.logical(), x)
    assert sys.getrefcount(x) == before, "a DLPack capsule was not released"


def test_dlpack_strided_view_read_in_place():
    """A transposed, stepped slice read through its DLPack strides."""
    base = ref.values((4, 6, 8), np.float32)
    v = base.transpose(2, 0, 1)[1::2, :, 1:5]
    y = tilecopy.convert(Exporter(v), dst="RowMajor")
    np.testing.assert_array_equal(y.logical(), np.ascontiguousarray(v))


def test_dlpack_out_is_written_in_place():
    x = ref.values((2, 3, 4, 5), np.float32)
    out = np.full((2, 5, 3, 4), 9, np.float32).transpose(0, 2, 3, 1)   # NHWC strides
    r = tilecopy.convert(x, src="NCHW", out=Exporter(out))
    assert isinstance(r, Exporter)
    np.testing.assert_array_equal(out, x)


def test_dlpack_device_memory_is_refused_and_released():
    x = ref.values((2, 3), np.float32)
    before = sys.getrefcount(x)

    def cuda(t):
        t.device.device_type = 2        # kDLCUDA
    with pytest.raises(tilecopy.UnsupportedError, match="CPU cannot address"):
        tilecopy.convert(Exporter(x, cuda), dst="ColumnMajor")
    assert sys.getrefcount(x) == before


def test_dlpack_not_a_capsule():
    class Bad:
        def __dlpack__(self, stream=None):
            return 42
    with pytest.raises(TypeError, match="capsule"):
        tilecopy.convert(Bad(), dst="NCHW")


# ---- PyTorch ----------------------------------------------------------------

TORCH_DTYPES = ["float32", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
                "float64"]


def _tensor(torch, shape, name):
    t = torch.arange(int(np.prod(shape)), dtype=torch.int64).reshape(shape)
    return (t % 120).to(getattr(torch, name))


@pytest.mark.parametrize("name", TORCH_DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 20, 7, 3), (3, 1, 1, 2), (2, 16, 2, 3, 2)])
def test_channels_last_matches_torch(torch, shape, name):
    """NCHW -> NHWC (and NCDHW -> NDHWC) against PyTorch's own
    .contiguous(memory_format=channels_last): same strides, same bytes."""
    t = _tensor(torch, shape, name)
    cl_fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    src, dst = ("NCHW", "NHWC") if len(shape) == 4 else ("NCDHW", "NDHWC")
    want = t.contiguous(memory_format=cl_fmt)
    # into a tensor PyTorch allocated: written in place
    out = torch.empty_like(t, memory_format=cl_fmt)
    ptr = out.data_ptr()
    assert tilecopy.convert(t, src=src, dst=dst, out=out) is out
    assert out.data_ptr() == ptr and _strides(out) == _strides(want)
    assert torch.equal(out, want)
    # back: channels_last in (its own strides, then named), NCHW out
    for s in (None, dst):
        back = torch.empty_like(t)
        tilecopy.convert(want, src=s, dst=src, out=back)
        assert torch.equal(back, t)
    if name == "bfloat16":
        return                  # numpy has no bfloat16: its int16 bits in test_dtypes
    y = tilecopy.convert(t, src=src, dst=dst)
    lv = torch.from_dlpack(y.logical())
    assert lv.data_ptr() == y.ctypes.data and _strides(lv) == _strides(want)
    assert lv.is_contiguous(memory_format=cl_fmt) and torch.equal(lv, want)
    flat = torch.from_dlpack(y)
    assert flat.data_ptr() == y.ctypes.data
    assert torch.equal(flat, want.permute(0, *range(2, len(shape)), 1).reshape(-1))
    z = tilecopy.convert(y, dst=src)
    assert torch.equal(torch.from_dlpack(z.logical()), t)


def _strides(t):
    """Strides of the dims of extent > 1 (an extent-1 dim's stride means nothing)."""
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)


def test_torch_views_are_read_through_their_strides(torch):
    t = _tensor(torch, (2, 6, 5, 8), "float32")
    for v in (t[:, 1:5, :, ::3], t.transpose(1, 3), t[1], t.expand(3, 2, 6, 5, 8)[:, 0]):
        y = tilecopy.convert(v, dst="NCHW" if v.dim() == 4 else "RowMajor")
        assert torch.equal(torch.from_dlpack(y.logical()), v.contiguous())


def test_torch_blocked_weights(torch):
    """OIhw16i16o of a conv weight, and back, against the reference."""
    w = _tensor(torch, (20, 35, 3, 3), "float32")
    y = tilecopy.convert(w, src="OIHW", dst="OIhw16i16o")
    np.testing.assert_array_equal(y, ref.expected("OIhw16i16o", w.numpy()))
    back = torch.empty_like(w)
    tilecopy.convert(torch.from_dlpack(y), src="OIhw16i16o", shape=w.shape, dst="OIHW", out=back)
    assert torch.equal(back, w)


def test_torch_capsules_released(torch):
    t = _tensor(torch, (2, 3, 4, 5), "float32")
    before = sys.getrefcount(t)
    for _ in range(3):
        tilecopy.convert(t, src="NCHW", dst="NHWC")
        with pytest.raises(tilecopy.Error):
            tilecopy.convert(t, src="NHWC", dst="NCHW")
    assert sys.getrefcount(t) == before
