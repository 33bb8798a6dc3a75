// SPDX-License-Identifier: MIT
/* cmd_info.c - `tilecopy info`: the engines found and what they can do. */
#include <stdio.h>

#include "cli.h"

static void print_version(const char *what, uint32_t v)
{
	printf("  %-14s %u.%u.%u\n", what, v >> 16, (v >> 8) & 0xff, v & 0xff);
}

static void print_engine(const struct cli_device *dv, int i)
{
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	tilecopy_status_t st = dv->device_info_get(i, &info);

	if (st) {
		cli_error("info", st);
		return;
	}
	printf("engine %d: %s (PCI %s)\n", i, info.path, info.pci_slot);
	print_version("firmware", info.fw_version);
	printf("  %-14s %u.%u\n", "hardware", info.hw_version >> 16, info.hw_version & 0xffff);
	printf("  %-14s %u.%u\n", "driver ABI", info.abi_version >> 16,
	       info.abi_version & 0xffff);
	printf("  %-14s %u\n", "queues", info.num_queues);
	printf("  %-14s %u dims, %u descriptors and %u BOs per job\n", "limits",
	       info.max_dims, info.max_descs, info.max_bos);
	printf("  %-14s %u KiB\n", "tile buffer", info.tilebuf_size >> 10);
	printf("  %-14s 0x%llx + 0x%llx\n", "device VA",
	       (unsigned long long)info.va_start, (unsigned long long)info.va_size);
}

int cmd_info(int argc, char **argv)
{
	struct cli_opts o;
	const struct cli_device *dv;
	const char *cpu = NULL, *why;
	tilecopy_status_t st;
	int n = 0;

	if (cli_parse(argc, argv, &o))
		return cli_usage("info", stderr, 2);
	if (o.help)
		return cli_usage("info", stdout, 0);
	if (o.version)
		return cli_version();
	if (o.nargs)
		return cli_usage("info", stderr, 2);
	if (tilecopy_cpu_name(NULL, &cpu))
		cpu = "unavailable";
	dv = cli_device(&why);
	if (!dv) {
		printf("no tilecopy engine found (%s); the CPU path (%s) will be used\n", why, cpu);
		return 0;
	}
	st = dv->device_count(&n);
	if (st)
		return cli_error("info", st);
	if (!n) {
		printf("no tilecopy engine found (no accel device bound to the tilecopy driver); "
		       "the CPU path (%s) will be used\n", cpu);
		return 0;
	}
	printf("%d tilecopy engine(s); CPU path: %s\n", n, cpu);
	for (int i = 0; i < n; i++)
		print_engine(dv, i);
	return 0;
}
