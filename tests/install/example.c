// SPDX-License-Identifier: MIT
/* example.c - a program built against the installed SDK (pkg-config). */
#include <stdio.h>
#include <string.h>
#include <tilecopy/tilecopy.h>
#include <tilecopy/device.h>

int main(void)
{
	int64_t shape[2] = { 8, 12 };
	tilecopy_tensor_t a, b;
	tilecopy_plan_t *plan;
	unsigned short in[96], out[96];
	char buf[128];

	for (int i = 0; i < 96; i++)
		in[i] = (unsigned short)i;
	if (tilecopy_tensor_make(&a, "RowMajor", shape, 2, TILECOPY_DT_F16, NULL) ||
	    tilecopy_tensor_make(&b, "zN", shape, 2, TILECOPY_DT_F16, "4x4") ||
	    tilecopy_plan_create(&plan, &a, &b) ||
	    tilecopy_convert(NULL, plan, in, sizeof(in), out, sizeof(out), NULL)) {
		fprintf(stderr, "example: %s\n", tilecopy_last_error());
		return 1;
	}
	tilecopy_layout_print(&b.layout, buf, sizeof(buf));
	/* row 5, col 6 -> offset 1*16 + 1*32 + 1*4 + 2 = 54 */
	printf("%s %u\n", buf, out[54]);
	tilecopy_plan_destroy(plan);
	return out[54] == 5 * 12 + 6 ? 0 : 1;
}
