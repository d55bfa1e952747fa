/*
 * bench_region.c - the cost of an empty region: trms_region_begin("r")
 * followed by trms_region_end("r"), in a tight loop.
 *
 * Baseline: a loop reading the library's cost clock twice (clock_ticks(),
 * the TSC or CLOCK_MONOTONIC, whichever the library chose).  With costs in
 * nanoseconds a pair cannot do with less, since begin and end each read
 * the clock once, so "pair minus two clock reads" is the overhead the
 * library's own work adds (target: at most 10 ns).  With costs in events
 * the pair reads no clock and the target is on the pair alone (at most
 * 10 ns); the clock reads are still shown for comparison.
 */
#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "runtime/thread.h"

static volatile uint64_t sink;

static void pair_body(void *arg, uint64_t iters)
{
	(void)arg;
	for (; iters; iters--) {
		trms_region_begin("r");
		trms_region_end("r");
	}
}

static void clock_body(void *arg, uint64_t iters)
{
	uint64_t sum = 0;

	(void)arg;
	for (; iters; iters--) {
		sum += clock_ticks();
		sum += clock_ticks();
	}
	sink = sum;
}

int main(void)
{
	bench_require_active();
	/* The first use of a name takes the slow path: keep it out. */
	bench_check(trms_region_begin("r"), "trms_region_begin");
	bench_check(trms_region_end("r"), "trms_region_end");

	struct bench_case cases[] = {
		{ .name = "pair", .body = pair_body },
		{ .name = "clock", .body = clock_body },
	};
	bench_run(cases, 2);

	double pair = bench_case_median(&cases[0]);
	double clocks = bench_case_median(&cases[1]);
	double ratio = bench_ratio_median(&cases[0], &cases[1]);
	double diff = bench_diff_median(&cases[0], &cases[1]);
	bool in_ns = config.cost == COST_NS;
	struct bench_table t;

	bench_table_init(&t, "region pair: begin + end of an empty region");
	bench_table_add(&t, "begin+end pair vs 2 clock reads", pair, clocks,
			"ns", ratio, in_ns ? NULL : "<= 10 ns per pair",
			in_ns ? BENCH_NO_TARGET : bench_at_most(pair, 10));
	bench_table_add(&t, "pair minus 2 clock reads", diff, NAN, "ns", NAN,
			in_ns ? "<= 10 ns" : NULL,
			in_ns ? bench_at_most(diff, 10) : BENCH_NO_TARGET);
	bench_table_print(&t, BENCH_METHOD "\n"
			  "difference: median of the per-repetition "
			  "differences");
	return 0;
}
