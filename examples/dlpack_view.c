// SPDX-License-Identifier: MIT
/*
 * dlpack_view.c - a strided view (as numpy and PyTorch describe one, here
 * through DLPack) copied into a compact row-major tensor.
 * Build: cc dlpack_view.c $(pkg-config --cflags --libs tilecopy)
 */
#include <stdio.h>
#include <tilecopy/dlpack.h>

int main(void)
{
	/* a = arange(12).reshape(3, 4); view = a[:, 1:3].T: shape (2, 3) */
	float a[12], out[6];
	int64_t shape[2] = { 2, 3 }, strides[2] = { 1, 4 };
	DLTensor dl = {
		.data = a, .device = { kDLCPU, 0 }, .ndim = 2,
		.dtype = { kDLFloat, 32, 1 }, .shape = shape, .strides = strides,
		.byte_offset = 1 * sizeof(float),
	};
	tilecopy_tensor_t *view = NULL, *dense = NULL;
	tilecopy_plan_t *plan = NULL;
	tilecopy_status_t st;
	uint64_t need = 0;
	int ret = 1;

	for (int i = 0; i < 12; i++)
		a[i] = (float)i;
	st = tilecopy_tensor_from_dlpack(&view, &dl, 0);
	if (!st)
		st = tilecopy_tensor_create_strided(&dense, 2, shape, NULL, TILECOPY_DT_F32, 0, 0);
	if (!st)
		st = tilecopy_plan_create(&plan, view, dense, 0);
	if (!st)
		st = tilecopy_plan_src_bytes(plan, &need);
	/* the plan reads from dl.data, byte_offset included */
	if (!st)
		st = tilecopy_plan_execute_cpu(plan, dl.data, sizeof(a), out, sizeof(out), NULL);
	if (st) {
		fprintf(stderr, "%s: %s\n", tilecopy_status_str(st), tilecopy_last_error());
		goto out;
	}
	for (int i = 0; i < 6; i++)
		printf("%g%c", out[i], i == 5 ? '\n' : ' ');	/* 1 5 9 2 6 10 */
	ret = out[0] == 1 && out[2] == 9 && out[3] == 2 && out[5] == 10 && need <= sizeof(a) ? 0 : 1;
out:
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(view);
	tilecopy_tensor_destroy(dense);
	return ret;
}
