/* SPDX-License-Identifier: MIT */
/*
 * dlpack.h - tilecopy tensors to and from DLPack (dmlc/dlpack 0.6, the
 * header of Debian's libdlpack-dev), the exchange format of PyTorch, numpy,
 * JAX and NPU runtimes.
 *
 * A tilecopy tensor describes memory, it holds no data: an import takes a
 * DLTensor's shape, strides, dtype and byte_offset (its data pointer stays
 * the caller's, to pass to tilecopy_plan_execute_cpu); an export describes
 * memory the caller names as a DLManagedTensor. Same NULL, status and
 * thread rules as tilecopy.h. In libtilecopy (the core).
 */
#ifndef TILECOPY_DLPACK_H
#define TILECOPY_DLPACK_H

#include <dlpack/dlpack.h>

#include "tilecopy/tilecopy.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * tilecopy_tensor_from_dlpack - a view tensor of @dl's memory layout.
 *
 * The shape is logical (numpy/PyTorch order: a channels-last NCHW tensor
 * has shape N,C,H,W and NHWC strides), strides in elements (NULL: compact
 * row-major), byte_offset a multiple of the element size. A 0-dim tensor
 * becomes shape (1). Refused with a message: lanes != 1, a dtype tilecopy
 * has not (complex, bool, 128-bit), 4-bit integers (DLPack 0.6 defines no
 * packing below a byte: its size rule gives each element a whole byte; so
 * an i4/u4 tensor is not exported either), negative strides, zero-size dims,
 * memory the CPU cannot address (kDLCUDA, ...: only kDLCPU, kDLCUDAHost,
 * kDLROCMHost, kDLCUDAManaged). The tensor is a TILECOPY_TENSOR_VIEW: a
 * plan writing it writes its elements and nothing between them.
 * @flags: 0.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_from_dlpack(tilecopy_tensor_t **out,
							   const DLTensor *dl,
							   uint32_t flags);

/**
 * TILECOPY_DLPACK_PHYSICAL - export the physical layout: one dim per leaf,
 *	outermost first (nChw16c of 2x20x3x5: 2x2x3x5x16, padding included),
 *	for layouts DLPack cannot express logically (blocked dims).
 */
#define TILECOPY_DLPACK_PHYSICAL	(1u << 0)

/**
 * tilecopy_tensor_to_dlpack - a DLManagedTensor describing @t's layout at
 * @data (kDLCPU, byte_offset from the tensor). By default the logical view:
 * shape = the tensor's shape, one stride per dim; a blocked dim is
 * TILECOPY_ERR_UNSUPPORTED (use TILECOPY_DLPACK_PHYSICAL). The consumer
 * calls (*out)->deleter(*out) when done, which frees the description only:
 * @data stays the caller's and must outlive it.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_to_dlpack(DLManagedTensor **out,
							 const tilecopy_tensor_t *t,
							 void *data, uint32_t flags);

#if defined(__cplusplus)
}
#endif

#endif /* TILECOPY_DLPACK_H */
