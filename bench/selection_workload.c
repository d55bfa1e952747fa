/*
 * selection_workload.c - an annotated workload for bench/selection.sh:
 * three regions whose costs grow as n, n^2 and n log n in their input,
 * each annotated as a program would be (its input read as a whole
 * range), with little work per cell, so that measuring
 * every activation costs well over half the program's own time.
 *
 *   selection_workload [ROUNDS]
 *
 * Built without the library: run natively it makes no trms call (the API
 * is weak, see examples/trms_weak.h), under LD_PRELOAD=libtrms.so it
 * makes them all.
 */
#define TRMS_PRELOAD_ONLY
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/trms_weak.h"

#define MAX_N 16384

static uint32_t data[MAX_N], out[MAX_N];
static int loaded;

static uint64_t rng = 88172645463325252ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* A size between @lo and @hi, spread evenly over their logarithms. */
static size_t size_between(size_t lo, size_t hi)
{
	size_t n = lo;

	while (n < hi && (next() & 3))
		n += n / 2 + 1;
	return n > hi ? hi : n;
}

static void enter(const char *name, const void *in, size_t bytes)
{
	if (loaded) {
		trms_region_begin(name);
		trms_read(in, bytes);
	}
}

/* (The result stays in a register or a local: writes are recorded
 * whether the activation is measured or not, see docs/production.md.) */
static void leave(const char *name)
{
	if (loaded)
		trms_region_end(name);
}

/* Linear: a running checksum of n values. */
static uint32_t checksum(size_t n)
{
	uint32_t h = 2166136261u;

	enter("checksum", data, n * sizeof(*data));
	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 16777619u;
	out[0] = h;
	leave("checksum");
	return h;
}

/* Quadratic: how many pairs of n values are within 8 of each other. */
static uint32_t close_pairs(size_t n)
{
	uint32_t count = 0;

	enter("close_pairs", data, n * sizeof(*data));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			count += (data[i] - data[j] + 8u) <= 16u;
	out[1] = count;
	leave("close_pairs");
	return count;
}

static int compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* n log n: sort a copy of n values. */
static uint32_t sorted_median(size_t n)
{
	enter("sort", data, n * sizeof(*data));
	memcpy(out, data, n * sizeof(*data));
	qsort(out, n, sizeof(*out), compare);
	leave("sort");
	return out[n / 2];
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	uint32_t sum = 0;

	loaded = TRMS_API_LOADED();
	for (size_t i = 0; i < MAX_N; i++)
		data[i] = next();
	for (long r = 0; r < rounds; r++) {
		sum += checksum(size_between(32, 2048));
		sum += close_pairs(size_between(4, 160));
		if (r % 4 == 0)
			sum += sorted_median(size_between(8, 512));
		/* The input changes a little between rounds. */
		data[next() % MAX_N] = next();
		if (loaded)
			trms_write(data, sizeof(*data));
	}
	printf("%u\n", sum);
	return 0;
}
