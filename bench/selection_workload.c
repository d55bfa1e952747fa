/*
 * selection_workload.c - an annotated workload for bench/selection.sh:
 * three regions whose costs grow as n, n^2 and n log n in their input,
 * each annotated as a program would be (its input read as one range),
 * over sizes that span more than a hundredfold.
 *
 * The linear region dominates the run and does little work per cell (a
 * loop the compiler vectorises) on thousands of cells at least, so that
 * measuring an activation costs more than its own work (the library
 * stamps every cell read) while skipping one costs a few tens of
 * nanoseconds against a microsecond or more of work; and each activation
 * does enough work that its cost, the library's time taken out, is
 * resolved.  The growth classes must come out right whether every
 * activation is measured or a few.  Results stay in locals: a write is
 * recorded whether its activation is measured or not
 * (docs/production.md), and none is needed to compute them.
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

#define MAX_N 524288

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

/* A size from @lo to @hi, evenly spread over their logarithms (in steps
 * of a quarter). */
static size_t size_between(size_t lo, size_t hi)
{
	size_t steps = 0, n = lo;

	while (n < hi) {
		n += n / 4 + 1;
		steps++;
	}
	n = lo;
	for (size_t k = next() % (steps + 1); k; k--)
		n += n / 4 + 1;
	return n > hi ? hi : n;
}

static void enter(const char *name, const void *in, size_t bytes)
{
	if (loaded) {
		trms_region_begin(name);
		trms_read(in, bytes);
	}
}

static void leave(const char *name)
{
	if (loaded)
		trms_region_end(name);
}

/* Linear: a hash of n values. */
static uint32_t sum(size_t n)
{
	uint32_t s = 0;

	enter("sum", data, n * sizeof(*data));
	for (size_t i = 0; i < n; i++)
		s += data[i] * 2654435761u;
	leave("sum");
	return s;
}

/* Quadratic: how many pairs of n values are within 2^24 of each other. */
static uint32_t close_pairs(size_t n)
{
	uint32_t count = 0;

	enter("close_pairs", data, n * sizeof(*data));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			count += data[i] - data[j] + (1u << 24) <= 1u << 25;
	leave("close_pairs");
	return count;
}

static int compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* n log n: the median of n values, by sorting a copy. */
static uint32_t sorted_median(size_t n)
{
	enter("sort", data, n * sizeof(*data));
	memcpy(out, data, n * sizeof(*data));
	qsort(out, n, sizeof(*out), compare);
	uint32_t median = out[n / 2];
	leave("sort");
	return median;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	uint32_t total = 0;

	loaded = TRMS_API_LOADED();
	for (size_t i = 0; i < MAX_N; i++)
		data[i] = next();
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 64; k++)
			total += sum(size_between(4096, MAX_N));
		total += close_pairs(size_between(32, 3200));
		total += sorted_median(size_between(512, 65536));
		/* The input changes a little between rounds. */
		size_t i = next() % MAX_N;
		data[i] = next();
		if (loaded)
			trms_write(&data[i], sizeof(*data));
	}
	printf("%u\n", total);
	return 0;
}
