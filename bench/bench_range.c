/*
 * bench_range.c - trms_read and trms_write of a 1 MiB range, at the
 * granularity in TRMS_GRANULARITY (4 in bench/run.sh):
 *  - first touch in an activation: the range was accessed by earlier
 *    activations, and a fresh one (begun and ended around each access)
 *    meets it for the first time, so every cell is counted and restamped;
 *  - repeated: the same range again inside one open activation that has
 *    already accessed it, so cells are checked and nothing changes.
 *
 * Baseline: memcpy of the same 1 MiB to a second 1 MiB buffer, measured
 * in the same run.  A range annotation walks one shadow cell per K bytes
 * of the range, so its work grows with the range like a copy of it does;
 * memcpy is the cheapest thing a program does with every byte of a range,
 * which makes "times a memcpy" the natural unit (targets: reads at most
 * 4x, writes at most 3x).  The begin/end pair around a first-touch access
 * is inside the timing; it costs tens of nanoseconds against a 1 MiB
 * access.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "trms.h"

#define RANGE (1u << 20)

struct range {
	unsigned char *src, *dst;
	int (*access)(const void *addr, size_t size);
	unsigned char *addr; /* the range accessed */
};

static void first_body(void *arg, uint64_t iters)
{
	struct range *r = arg;

	for (; iters; iters--) {
		trms_region_begin("first");
		r->access(r->addr, RANGE);
		trms_region_end("first");
	}
}

/* Open the activation the repeated accesses run in, and touch the range
 * once in it so that every timed access is a repeat. */
static void repeat_setup(void *arg)
{
	struct range *r = arg;

	bench_check(trms_region_begin("repeat"), "trms_region_begin");
	bench_check(r->access(r->addr, RANGE), "access");
}

static void repeat_body(void *arg, uint64_t iters)
{
	struct range *r = arg;

	for (; iters; iters--)
		r->access(r->addr, RANGE);
}

static void repeat_teardown(void *arg)
{
	(void)arg;
	bench_check(trms_region_end("repeat"), "trms_region_end");
}

static void memcpy_body(void *arg, uint64_t iters)
{
	struct range *r = arg;

	for (; iters; iters--) {
		memcpy(r->dst, r->src, RANGE);
		bench_clobber(r->dst);
	}
}

static unsigned char *buffer(void)
{
	unsigned char *p = aligned_alloc(4096, RANGE);

	if (!p) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memset(p, 1, RANGE); /* fault the pages in */
	return p;
}

int main(void)
{
	bench_require_active();
	unsigned char *src = buffer(), *dst = buffer();
	/* Reads annotate the source of the copy, writes its destination. */
	struct range copy = { src, dst, NULL, NULL };
	struct range rd = { src, dst, trms_read, src };
	struct range wr = { src, dst, trms_write, dst };
	struct bench_case cases[] = {
		{ .name = "memcpy", .body = memcpy_body, .arg = &copy },
		{ .name = "read first", .body = first_body, .arg = &rd },
		{ .name = "read repeat", .body = repeat_body,
		  .setup = repeat_setup, .teardown = repeat_teardown,
		  .arg = &rd },
		{ .name = "write first", .body = first_body, .arg = &wr },
		{ .name = "write repeat", .body = repeat_body,
		  .setup = repeat_setup, .teardown = repeat_teardown,
		  .arg = &wr },
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	bench_run(cases, n);

	static const char *const what[] = {
		NULL,
		"trms_read 1 MiB, first touch",
		"trms_read 1 MiB, repeated",
		"trms_write 1 MiB, first touch",
		"trms_write 1 MiB, repeated",
	};
	double memcpy_us = bench_case_median(&cases[0]) / 1000;
	struct bench_table t;

	bench_table_init(&t, "range access: 1 MiB vs memcpy of 1 MiB");
	for (size_t i = 1; i < n; i++) {
		bool is_read = i <= 2;
		double ratio = bench_ratio_median(&cases[i], &cases[0]);
		bench_table_add(&t, what[i], bench_case_median(&cases[i]) / 1000,
				memcpy_us, "us", ratio,
				is_read ? "<= 4x memcpy" : "<= 3x memcpy",
				bench_at_most(ratio, is_read ? 4 : 3));
	}
	bench_table_print(&t, BENCH_METHOD "\n"
			  "baseline: memcpy of the same 1 MiB to another "
			  "1 MiB buffer");
	free(src);
	free(dst);
	return 0;
}
