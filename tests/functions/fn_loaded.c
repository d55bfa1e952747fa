/*
 * fn_loaded.c - instrumented code where the loader, not main, runs it,
 * for `trms cc --trms-full` (tests/functions/functions.sh), built by gcc
 * and clang, each count below derived by hand (K = 4):
 *
 *  - resolve_twice() is the ifunc resolver of twice(): the dynamic
 *    loader calls it while it relocates the program, before any
 *    constructor, the library's included; the library ignores it (no
 *    region, no crash);
 *  - before_constructors() runs from the program's .preinit_array,
 *    before every constructor, the C library's included, which has not
 *    set `environ` yet: the library, whose settings (TRMS_OUTPUT, ...)
 *    are in the environment, does not start there and ignores it (no
 *    region; before 2026-11-28 it started with its defaults: the
 *    profile went where TRMS_OUTPUT did not say);
 *  - the plugin argv[1] (fn_plugin.c, built by `trms cc --trms-full
 *    -shared`) is loaded with dlopen after main wrote CELLS ints;
 *    plugin_sum reads them: one activation of trms = rms = CELLS, then
 *    the plugin is unloaded;
 *  - descend(DEPTH) recurses and, at the bottom, calls exit: DEPTH + 1
 *    activations of descend still open when the profile is written.
 * The run is traced: the profile must be what the definitions give for
 * the trace, whatever they give for the activations exit left open.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define CELLS 64
#define DEPTH 40

static int values[CELLS];
static volatile int sink;

static int twice_plain(int x)
{
	return 2 * x;
}

/* Runs at relocation: a load and a store of its own. */
NOINLINE static void *resolve_twice(void)
{
	sink = sink + 1;
	return (void *)twice_plain;
}

int twice(int x) __attribute__((ifunc("resolve_twice")));

/* Runs from the program's .preinit_array: after relocation, before
 * every shared object's constructor. */
static int early_cells[2];

NOINLINE static void before_constructors(void)
{
	sink = early_cells[0] + early_cells[1];
}

__attribute__((section(".preinit_array"), used)) static void (
	*const preinit)(void) = before_constructors;

NOINLINE static void fill(void)
{
	for (int i = 0; i < CELLS; i++)
		values[i] = twice(i);
}

NOINLINE static void descend(int depth)
{
	sink = depth;
	if (depth == 0) {
		printf("exit at the bottom\n");
		exit(0);
	}
	descend(depth - 1);
	sink = depth;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fn_loaded PLUGIN\n");
		return 2;
	}
	fill();
	void *plugin = dlopen(argv[1], RTLD_NOW);
	if (!plugin) {
		fprintf(stderr, "fn_loaded: %s\n", dlerror());
		return 1;
	}
	long (*plugin_sum)(const int *, int) =
		(long (*)(const int *, int))dlsym(plugin, "plugin_sum");
	if (!plugin_sum) {
		fprintf(stderr, "fn_loaded: %s\n", dlerror());
		return 1;
	}
	printf("plugin sum %ld\n", plugin_sum(values, CELLS));
	dlclose(plugin);
	fflush(stdout);
	descend(DEPTH);
	return 1; /* not reached */
}
