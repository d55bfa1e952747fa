/*
 * bench_correction.c - how far off the correction of costs in ns is where
 * the library's own time dominates a region (docs/cost.md, "When the
 * library dominates").
 *
 * A loop over n 4-byte elements with one trms_read of each and W rounds
 * of integer mixing per element (W = 0 is about 1 ns of work per element
 * here), as one region; its corrected cost, as the profile records it,
 * is compared with the same loop's own time run without annotations in
 * the same process, right before it (the program's time without the
 * library: the truth the correction aims at).  Each activation also says
 * how much of the library's time was taken out of its cost, and the part
 * charged by estimate (cost.h): the error divided by that part is what
 * the report's rule is built on.
 *
 * Every configuration runs REPS times, all configurations interleaved
 * round by round so that a busy moment of the machine spreads over all of
 * them.  Printed per configuration: medians of the native time, the
 * corrected cost and the library time, and of the per-round error (the
 * corrected cost less the native time of the same round), as a share of
 * the native time and of the estimated part, with the 10th and 90th
 * percentiles of the latter.  No target: this measures.
 *
 *   TRMS_COST=ns bench-correction [REPS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "runtime/thread.h"

#define MAX_N 8000
#define DEFAULT_REPS 31

static const unsigned rounds_of[] = { 0, 1, 2, 4, 8, 16, 32 };
static const size_t sizes[] = { 500, 1000, 2000, 4000, 8000 };
#define N_ROUNDS (sizeof(rounds_of) / sizeof(rounds_of[0]))
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))
#define N_CONFIGS (N_ROUNDS * N_SIZES)

static uint32_t data[MAX_N];
static volatile uint32_t sink;

static inline uint32_t mix(uint32_t x, unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++)
		x = (x ^ (x >> 15)) * 0x2c1b3c6du;
	return x;
}

static __attribute__((noinline)) uint32_t native(size_t n, unsigned rounds)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ mix(data[i], rounds)) * 16777619u;
	return h;
}

static __attribute__((noinline)) uint32_t annotated(size_t n,
						     unsigned rounds)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		trms_read(&data[i], sizeof(data[i]));
		h = (h ^ mix(data[i], rounds)) * 16777619u;
	}
	return h;
}

/* What the observer saw of the last activation (clock ticks). */
static struct activation last;

static void observe(struct trms_thread *t, const struct activation *a)
{
	(void)t;
	last = *a;
}

/* One configuration's rounds, in ns. */
struct loop_case {
	unsigned rounds;
	size_t n;
	double *native, *cost, *library, *estimated;
};

static double *column(unsigned reps)
{
	double *v = calloc(reps, sizeof(*v));

	if (!v) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	return v;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile (0..1) of @n values, nearest rank. */
static double quantile(const double *v, size_t n, double q)
{
	double sorted[n];

	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), compare_double);
	size_t k = (size_t)lround(q * (double)(n - 1));
	return sorted[k];
}

/* Two clock reads back to back, the least of many: what a native timing
 * adds to the loop it times. */
static uint64_t empty_timing(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 1000; i++) {
		uint64_t a = clock_ticks(), b = clock_ticks();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

static void run_round(struct loop_case *c, unsigned rep, uint64_t empty)
{
	uint64_t start = clock_ticks();
	sink = native(c->n, c->rounds);
	uint64_t native_ticks = clock_ticks() - start - empty;

	bench_check(trms_region_begin("loop"), "trms_region_begin");
	sink = annotated(c->n, c->rounds);
	bench_check(trms_region_end("loop"), "trms_region_end");
	c->native[rep] = (double)clock_ticks_to_ns(native_ticks);
	c->cost[rep] = (double)clock_ticks_to_ns(last.cost);
	c->library[rep] = (double)clock_ticks_to_ns(last.library);
	c->estimated[rep] = (double)clock_ticks_to_ns(last.estimated);
}

/* The error of the smallest corrected cost, against the smallest native
 * time, over the median estimated part: what the report's rule judges a
 * size by (its smallest cost, the least disturbed). */
static double min_error(const struct loop_case *c, unsigned reps)
{
	double cost = quantile(c->cost, reps, 0),
	       native_ns = quantile(c->native, reps, 0);

	return (cost - native_ns) / bench_median(c->estimated, reps);
}

static void print_config(const struct loop_case *c, unsigned reps)
{
	double err_native[reps], err_estimated[reps];

	for (unsigned i = 0; i < reps; i++) {
		double err = c->cost[i] - c->native[i];
		err_native[i] = err / c->native[i];
		err_estimated[i] =
			c->estimated[i] > 0 ? err / c->estimated[i] : NAN;
	}
	double native_ns = bench_median(c->native, reps);
	double cost = bench_median(c->cost, reps);
	double library = bench_median(c->library, reps);
	double estimated = bench_median(c->estimated, reps);
	printf("%6u %5zu %8.2f %9.0f %9.0f %9.0f %9.0f %6.1f%% %+8.1f%% "
	       "%+7.3f %+7.3f %+7.3f %+7.3f\n",
	       c->rounds, c->n, native_ns / (double)c->n, native_ns, cost,
	       library, estimated, 100 * library / (cost + library),
	       100 * bench_median(err_native, reps),
	       quantile(err_estimated, reps, 0.1),
	       bench_median(err_estimated, reps),
	       quantile(err_estimated, reps, 0.9), min_error(c, reps));
}

/* Every round's error over its estimated part, all configurations
 * together: the bound the report's rule takes (CORRECTION_ERROR in
 * tools/report/report_correction.h) is to hold for nearly all. */
static void print_pooled(const struct loop_case *cases, unsigned reps)
{
	size_t n = 0;
	double *all = column(N_CONFIGS * reps);
	unsigned within[3] = { 0 };
	static const double bounds[3] = { 0.2, 0.3, 0.5 };

	for (size_t i = 0; i < N_CONFIGS; i++)
		for (unsigned k = 0; k < reps; k++) {
			const struct loop_case *c = &cases[i];
			if (!(c->estimated[k] > 0))
				continue;
			double e = (c->cost[k] - c->native[k]) / c->estimated[k];
			all[n++] = e;
			for (int b = 0; b < 3; b++)
				within[b] += fabs(e) <= bounds[b];
		}
	if (!n)
		return;
	double lowest = INFINITY, highest = -INFINITY;
	for (size_t i = 0; i < N_CONFIGS; i++) {
		double e = min_error(&cases[i], reps);
		lowest = e < lowest ? e : lowest;
		highest = e > highest ? e : highest;
	}
	printf("  smallest costs: their error over the estimated part from "
	       "%+.3f to %+.3f over the %zu configurations\n",
	       lowest, highest, (size_t)N_CONFIGS);
	printf("  all %zu rounds: error / estimated part p5 %+.3f, p25 %+.3f, "
	       "median %+.3f, p75 %+.3f, p95 %+.3f; within +-0.2: %.1f%%, "
	       "+-0.3: %.1f%%, +-0.5: %.1f%%\n",
	       n, quantile(all, n, 0.05), quantile(all, n, 0.25),
	       quantile(all, n, 0.5), quantile(all, n, 0.75),
	       quantile(all, n, 0.95), 100.0 * within[0] / (double)n,
	       100.0 * within[1] / (double)n, 100.0 * within[2] / (double)n);
	free(all);
}

int main(int argc, char **argv)
{
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : DEFAULT_REPS;
	static struct loop_case cases[N_CONFIGS];

	bench_require_active();
	if (config.cost != COST_NS) {
		printf("bench-correction: costs are not in ns (TRMS_COST=ns): "
		       "nothing to measure\n");
		return 0;
	}
	if (reps < 3)
		reps = 3;
	for (size_t i = 0; i < MAX_N; i++)
		data[i] = (uint32_t)(i * 2654435761u);
	/* The region's first activation calibrates and registers its name;
	 * the data's first read creates shadow memory: both kept out. */
	bench_check(trms_region_begin("loop"), "trms_region_begin");
	sink = annotated(MAX_N, 0);
	bench_check(trms_region_end("loop"), "trms_region_end");
	runtime_observer = observe;

	for (size_t r = 0; r < N_ROUNDS; r++)
		for (size_t s = 0; s < N_SIZES; s++) {
			struct loop_case *c = &cases[r * N_SIZES + s];
			c->rounds = rounds_of[r];
			c->n = sizes[s];
			c->native = column(reps);
			c->cost = column(reps);
			c->library = column(reps);
			c->estimated = column(reps);
		}
	uint64_t empty = empty_timing();
	for (unsigned rep = 0; rep < reps; rep++)
		for (size_t i = 0; i < N_CONFIGS; i++)
			run_round(&cases[i], rep, empty);
	runtime_observer = NULL;

	printf("== the correction where the library dominates: one 4-byte "
	       "trms_read per element ==\n");
	printf("  costs in ns, clock %s; medians of %u interleaved rounds; "
	       "error = corrected cost - native time of the same round\n",
	       clock_source(), reps);
	printf("%6s %5s %8s %9s %9s %9s %9s %7s %9s %7s %7s %7s %7s\n",
	       "rounds", "n", "ns/elem", "native", "corrected", "library",
	       "estimated", "lib%", "err/nat", "e/U p10", "e/U", "e/U p90",
	       "min e/U");
	for (size_t i = 0; i < N_CONFIGS; i++)
		print_config(&cases[i], reps);
	print_pooled(cases, reps);
	printf("  (ns/elem, native, corrected, library, estimated: the "
	       "loop's own time per element and in all, its corrected cost, "
	       "the library's time taken out of it and the part of that "
	       "charged by estimate; lib%%: library / (corrected + library); "
	       "e/U: the error over the estimated part; min e/U: the "
	       "smallest corrected cost less the smallest native time, over "
	       "the estimated part)\n");
	return 0;
}
