// SPDX-License-Identifier: MIT
/*
 * device_info.c - list the engines, or say the CPU path will be used.
 * Build: cc device_info.c $(pkg-config --cflags --libs tilecopy-device)
 */
#include <stdio.h>
#include <tilecopy/device.h>

int main(void)
{
	tilecopy_status_t st;
	const char *cpu;
	int n;

	st = tilecopy_device_count(&n);
	if (!st)
		st = tilecopy_cpu_name(NULL, &cpu);
	if (st) {
		fprintf(stderr, "%s: %s\n", tilecopy_status_str(st), tilecopy_last_error());
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct tilecopy_device_info info = { .struct_size = sizeof(info) };

		st = tilecopy_device_info_get(i, &info);
		if (st) {
			fprintf(stderr, "engine %d: %s\n", i, tilecopy_last_error());
			return 1;
		}
		printf("engine %d: %s, %u queues\n", i, info.path, info.num_queues);
	}
	printf("%d engine(s); CPU path %s\n", n, cpu);
	return 0;
}
