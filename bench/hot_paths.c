/*
 * hot_paths.c - the annotation API's hot paths with every activation
 * measured, timed from the program's side: only the public header, so
 * that bench/versions.sh can build it against two versions of the
 * library (each with its own header) and compare them side by side.
 *
 * Usage: hot_paths [MS]  - prints one line per case: its name and the
 * nanoseconds one operation took, the best of 5 timed loops of about MS
 * milliseconds each (default 40).  The best rather than the median: the
 * script around it runs many rounds and takes medians across them; the
 * best of a round is what one interruption does not move.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <trms.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char buffer[1 << 16] __attribute__((aligned(64)));

/* Each case runs @iters operations. */
static void region_pair(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		trms_region_begin("pair");
		trms_region_end("pair");
	}
}

/* A 4-byte read of a cell the activation has read already: the commonest
 * access of an annotated loop. */
static void scalar_read(uint64_t iters)
{
	trms_region_begin("scalar");
	for (uint64_t i = 0; i < iters; i++)
		trms_read(&buffer[(i & 15) * 4], 4);
	trms_region_end("scalar");
}

/* A region that reads a 4 KiB range once: all cells new to it. */
static void range_read(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		trms_region_begin("range");
		trms_read(&buffer[(i & 7) * 4096], 4096);
		trms_region_end("range");
	}
}

static void range_write(uint64_t iters)
{
	trms_region_begin("write");
	for (uint64_t i = 0; i < iters; i++)
		trms_write(&buffer[(i & 7) * 4096], 4096);
	trms_region_end("write");
}

struct hot_case {
	const char *name;
	void (*run)(uint64_t iters);
};

static const struct hot_case cases[] = {
	{ "region_pair", region_pair },
	{ "scalar_read", scalar_read },
	{ "range_read_4k", range_read },
	{ "range_write_4k", range_write },
};

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 40;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		/* Calibrate: iterations for about @ms milliseconds. */
		uint64_t iters = 1000;
		for (;;) {
			uint64_t start = now_ns();
			cases[c].run(iters);
			uint64_t took = now_ns() - start;
			if (took >= ms * 1000000u / 4 || iters > (1ull << 40))
				break;
			iters *= 4;
		}
		iters *= 4;
		double best = 0;
		for (int round = 0; round < 5; round++) {
			uint64_t start = now_ns();
			cases[c].run(iters);
			double ns = (double)(now_ns() - start) / (double)iters;
			if (round == 0 || ns < best)
				best = ns;
		}
		printf("%s %.3f\n", cases[c].name, best);
	}
	return 0;
}
