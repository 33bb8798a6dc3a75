// SPDX-License-Identifier: MIT
/* cmd_info.c - `tilecopy info`: the engines found and what they can do. */
#include <stdio.h>

#include "cli.h"
#include "tilecopy/device.h"

static void print_version(const char *what, uint32_t v)
{
	printf("  %-14s %u.%u.%u\n", what, v >> 16, (v >> 8) & 0xff, v & 0xff);
}

int cmd_info(int argc, char **argv)
{
	struct tilecopy_device_info info;
	tilecopy_status_t st;
	const char *cpu;
	int n;

	(void)argc;
	(void)argv;
	cpu = tilecopy_cpu_name(NULL);
	st = tilecopy_device_count(&n);
	if (st)
		return cli_error("info", st);
	if (!n) {
		printf("no tilecopy engine found (no accel device bound to the tilecopy driver); "
		       "the CPU path (%s) will be used\n", cpu ? cpu : "unavailable");
		return 0;
	}
	printf("%d tilecopy engine(s); CPU path: %s\n", n, cpu ? cpu : "unavailable");
	for (int i = 0; i < n; i++) {
		st = tilecopy_device_info_get(i, &info);
		if (st) {
			cli_error("info", st);
			continue;
		}
		printf("engine %d: %s (PCI %s)\n", i, info.path, info.pci_slot);
		print_version("firmware", info.fw_version);
		printf("  %-14s %u.%u\n", "hardware", info.hw_version >> 16,
		       info.hw_version & 0xffff);
		printf("  %-14s %u.%u\n", "driver ABI", info.abi_version >> 16,
		       info.abi_version & 0xffff);
		printf("  %-14s %u\n", "queues", info.num_queues);
		printf("  %-14s %u dims, %u descriptors and %u BOs per job\n", "limits",
		       info.max_dims, info.max_descs, info.max_bos);
		printf("  %-14s %u KiB\n", "tile buffer", info.tilebuf_size >> 10);
		printf("  %-14s 0x%llx + 0x%llx\n", "device VA",
		       (unsigned long long)info.va_start, (unsigned long long)info.va_size);
	}
	return 0;
}
