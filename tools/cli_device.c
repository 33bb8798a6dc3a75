// SPDX-License-Identifier: MIT
/*
 * cli_device.c - the engine for the command line, when there is one.
 *
 * The installed tilecopy links the core library only, so it runs for a
 * CPU-only user who has neither the device library nor libdrm or libudev:
 * libtilecopy-device.so.1 is loaded (dlopen) the first time a command needs
 * an engine, and its absence is a message, not a loader error. A build
 * without the device backend (CROSS) has no engine at all; the sanitizer
 * build links the device library's objects and calls them directly.
 */
#include <stddef.h>

#include "cli.h"

#if defined(TC_DEVICE_DLOPEN)
#include <dlfcn.h>
#include <stdio.h>

#define CLI_DEVICE_LIB	"libtilecopy-device.so.1"
#define CLI_DEVICE_NODE	"TILECOPY_DEVICE_1.0"

const struct cli_device *cli_device(const char **why)
{
	static struct cli_device d;
	static int tried;
	static char err[512];
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define S(f) { "tilecopy_" #f, offsetof(struct cli_device, f) }
		S(device_count), S(device_info_get), S(device_open), S(device_close),
		S(device_query), S(convert), S(convert_multi), S(device_threshold),
#undef S
	};
	void *h;

	*why = err;
	if (tried)
		return err[0] ? NULL : &d;
	tried = 1;
	/* its own copy of the core is the one this program runs on */
	h = dlopen(CLI_DEVICE_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, sizeof(err), "the device library cannot be loaded (%s)", dlerror());
		return NULL;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlvsym(h, syms[i].name, CLI_DEVICE_NODE);

		if (!f) {
			snprintf(err, sizeof(err), "%s has no %s@%s", CLI_DEVICE_LIB,
				 syms[i].name, CLI_DEVICE_NODE);
			dlclose(h);
			return NULL;
		}
		*(void **)((char *)&d + syms[i].off) = f;
	}
	return &d;
}
#elif defined(TC_HAVE_DEVICE)
const struct cli_device *cli_device(const char **why)
{
	static const struct cli_device d = {
		.device_count = tilecopy_device_count,
		.device_info_get = tilecopy_device_info_get,
		.device_open = tilecopy_device_open,
		.device_close = tilecopy_device_close,
		.device_query = tilecopy_device_query,
		.convert = tilecopy_convert,
		.convert_multi = tilecopy_convert_multi,
		.device_threshold = tilecopy_device_threshold,
	};

	*why = "";
	return &d;
}
#else
const struct cli_device *cli_device(const char **why)
{
	*why = "this build has no device backend (CPU only)";
	return NULL;
}
#endif
