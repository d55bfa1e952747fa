/*
 * test_cost.c - costs in nanoseconds leave the profiler's own work out: a
 * region whose own work is constant shows a constant cost however much
 * memory it annotates, while a region whose work really grows shows it.
 * (Runs with TRMS_COST=ns.)  Medians of many activations, generous bounds:
 * without the exclusion the ratios below are 5x to 100x.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "trms.h"

#include "runtime.h"
#include "suite_main.h"

#define REPS 15
#define MAX_SIZE ((size_t)4 << 20)

static uint64_t costs[REPS];
static unsigned n_costs;

static void observe(struct trms_thread *t, const struct activation *a)
{
	(void)t;
	if (n_costs < REPS)
		costs[n_costs++] = a->cost;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_cost(void)
{
	qsort(costs, n_costs, sizeof(costs[0]), cmp_u64);
	return (double)costs[n_costs / 2];
}

/* Work that takes the same time every call (~100 us). */
static void constant_work(void)
{
	static volatile unsigned sink __attribute__((unused));
	unsigned x = 1;

	for (unsigned i = 0; i < 200000; i++)
		x = x * 1664525u + 1013904223u;
	sink = x;
}

static char *buffer;

/* Median cost of a region doing constant work and annotating @calls
 * accesses of @size bytes each (reads, or writes then reads). */
static double annotated_cost(size_t size, unsigned calls, bool write)
{
	n_costs = 0;
	runtime_observer = observe;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("constant");
		constant_work();
		for (unsigned c = 0; c < calls; c++) {
			char *p = buffer + (c * 64) % (MAX_SIZE - size + 1);
			if (write)
				trms_write(p, size);
			trms_read(p, size);
		}
		trms_region_end("constant");
	}
	runtime_observer = NULL;
	return median_cost();
}

static void setup(void)
{
	buffer = malloc(MAX_SIZE);
	ck_assert_ptr_nonnull(buffer);
	memset(buffer, 1, MAX_SIZE);
}

static void teardown(void)
{
	free(buffer);
}

START_TEST(large_ranges_excluded)
{
	double small = annotated_cost(1024, 1, false);
	double large = annotated_cost(MAX_SIZE, 1, true);

	ck_assert_msg(large < 1.5 * small,
		      "constant work annotating 4 MiB costs %.0f ns, with 1 "
		      "KiB %.0f ns",
		      large, small);
}
END_TEST

START_TEST(many_small_accesses_excluded)
{
	double few = annotated_cost(8, 10, false);
	double many = annotated_cost(8, 20000, false);

	ck_assert_msg(many < 1.5 * few,
		      "constant work with 20000 small annotations costs %.0f "
		      "ns, with 10 %.0f ns",
		      many, few);
}
END_TEST

START_TEST(nested_regions_excluded)
{
	/* The children's begin/end pairs are the profiler's work, not the
	 * parent's. */
	double alone, nested;

	n_costs = 0;
	runtime_observer = observe;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("parent");
		constant_work();
		trms_region_end("parent");
	}
	alone = median_cost();
	n_costs = 0;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("parent");
		runtime_observer = NULL;
		constant_work();
		for (unsigned c = 0; c < 20000; c++) {
			trms_region_begin("child");
			trms_region_end("child");
		}
		runtime_observer = observe;
		trms_region_end("parent");
	}
	runtime_observer = NULL;
	nested = median_cost();
	ck_assert_msg(nested < 1.5 * alone,
		      "parent with 20000 empty children costs %.0f ns, alone "
		      "%.0f ns",
		      nested, alone);
}
END_TEST

/* The clock is real: work that does grow shows in the cost. */
START_TEST(real_work_is_measured)
{
	double small, large;

	n_costs = 0;
	runtime_observer = observe;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("copy");
		memset(buffer, r, 4096);
		trms_region_end("copy");
	}
	small = median_cost();
	n_costs = 0;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("copy");
		memset(buffer, r, MAX_SIZE);
		trms_region_end("copy");
	}
	large = median_cost();
	runtime_observer = NULL;
	ck_assert_msg(large > 20 * small,
		      "memset of 4 MiB costs %.0f ns, of 4 KiB %.0f ns", large,
		      small);
}
END_TEST

static Suite *cost_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("cost");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, large_ranges_excluded);
	tcase_add_test(tc, many_small_accesses_excluded);
	tcase_add_test(tc, nested_regions_excluded);
	tcase_add_test(tc, real_work_is_measured);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(cost_suite());
}
