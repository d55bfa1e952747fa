/*
 * sm_dlopen.c - code that is gone before the profile is written.
 *
 *   sm_dlopen PLUGIN   dlopen PLUGIN, call its burn_in_plugin for 0.6 s of
 *                      CPU time, dlclose it, check that it is unloaded,
 *                      then burn 0.4 s in after_plugin
 *
 * Prints "plugin_cpu P after_cpu A unloaded yes|no"; exit status 0, 3 if
 * the plugin could not be loaded or has no burn_in_plugin.
 *
 *   sm_dlopen PLUGIN N  load and unload PLUGIN N times, calling its
 *                       burn_in_plugin for 0.2 ms each time
 *
 * Prints "cycles N rss_growth_kib G": how much the resident set grew from
 * the 100th cycle to the last.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_common.h"

SM_NOINLINE static double after_plugin(void)
{
	double start = sm_thread_cpu();

	SM_BURN_CPU(0.4);
	return sm_thread_cpu() - start;
}

/* VmRSS of this process, in KiB; 0 if unknown. */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

static int cycle(const char *plugin, long n)
{
	long base = 0;

	for (long i = 0; i < n; i++) {
		if (i == 100)
			base = rss_kib();
		void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
		double (*burn)(double);
		if (!h || !(*(void **)&burn = dlsym(h, "burn_in_plugin")))
			return 3;
		burn(0.0002);
		dlclose(h);
	}
	printf("cycles %ld rss_growth_kib %ld\n", n, rss_kib() - base);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 3;
	if (argc > 2)
		return cycle(argv[1], strtol(argv[2], NULL, 10));
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "sm_dlopen: %s\n", dlerror());
		return 3;
	}
	double (*burn)(double);
	*(void **)&burn = dlsym(h, "burn_in_plugin");
	if (!burn)
		return 3;
	double in_plugin = burn(0.6);
	dlclose(h);
	/* RTLD_NOLOAD: a handle only if it is still loaded. */
	void *again = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
	if (again)
		dlclose(again);
	double after = after_plugin();
	printf("plugin_cpu %.3f after_cpu %.3f unloaded %s\n", in_plugin,
	       after, again ? "no" : "yes");
	return 0;
}
