/*
 * test_profile.c - the per-thread tuple table (src/engine/tuples.c): what it
 * reports equals a plain sum over the recorded activations, however they
 * arrive (their library time too); and a reader on another thread never sees a slot half-updated.
 */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tuples.h"
#include "suite_main.h"

/* The expected tuples, kept the obvious way: one entry per key, found by
 * scanning. */
struct expected {
	size_t n;
	struct tuple_data v[4096];
};

static void expect_add(struct expected *e, uint32_t region, uint32_t metric,
		       uint64_t key, const struct tuple_add *a)
{
	uint64_t cost = a->cost;
	struct tuple_data one = {
		.region = region,
		.metric = metric,
		.n = key,
		.count = 1,
		.min = cost,
		.max = cost,
		.sum = cost,
		.sumsq = (unsigned __int128)cost * cost,
		.induced_thread = a->induced_thread,
		.induced_external = a->induced_external,
		.library = a->library,
		.estimated = a->estimated,
	};

	for (size_t i = 0; i < e->n; i++) {
		struct tuple_data *x = &e->v[i];
		if (x->region == region && x->metric == metric && x->n == key) {
			x->count++;
			x->min = cost < x->min ? cost : x->min;
			x->max = cost > x->max ? cost : x->max;
			x->sum += cost;
			x->sumsq += one.sumsq;
			x->induced_thread += a->induced_thread;
			x->induced_external += a->induced_external;
			x->library += a->library;
			x->estimated += a->estimated;
			return;
		}
	}
	ck_assert_uint_lt(e->n, 4096);
	e->v[e->n++] = one;
}

struct seen {
	const struct expected *want;
	size_t n;
};

static void check_tuple(void *ctx, const struct tuple_data *t)
{
	struct seen *seen = ctx;
	const struct expected *e = seen->want;

	for (size_t i = 0; i < e->n; i++) {
		const struct tuple_data *x = &e->v[i];
		if (x->region != t->region || x->metric != t->metric ||
		    x->n != t->n)
			continue;
		ck_assert_uint_eq(t->count, x->count);
		ck_assert_uint_eq(t->min, x->min);
		ck_assert_uint_eq(t->max, x->max);
		ck_assert_uint_eq(t->sum, x->sum);
		ck_assert(t->sumsq == x->sumsq);
		ck_assert_uint_eq(t->induced_thread, x->induced_thread);
		ck_assert_uint_eq(t->induced_external, x->induced_external);
		ck_assert_uint_eq(t->library, x->library);
		ck_assert_uint_eq(t->estimated, x->estimated);
		seen->n++;
		return;
	}
	ck_abort_msg("unexpected tuple: region %u metric %u n %llu", t->region,
		     t->metric, (unsigned long long)t->n);
}

/* Random activations over few keys and few costs, so that slots see
 * repeated costs (counted apart), other costs, induced input, library
 * time, and the table grows: every tuple must equal the plain sums. */
START_TEST(tuples_equal_plain_sums)
{
	static struct expected want;
	struct tuple_table table;

	srand(1234 + _i);
	memset(&want, 0, sizeof(want));
	tuple_table_init(&table);
	for (unsigned i = 0; i < 20000; i++) {
		uint32_t region = (uint32_t)(rand() % 40);
		uint64_t trms = (uint64_t)(rand() % 8), rms = trms / 2;
		/* Half the time the same cost for a key. */
		uint64_t cost = rand() % 2 ? region * 3 + trms
					   : (uint64_t)(rand() % 1000) << 32;
		struct tuple_add a = {
			.cost = cost,
			.induced_thread = rand() % 4 ? 0 : (uint64_t)(rand() % 5),
			.induced_external = rand() % 4 ? 0
						       : (uint64_t)(rand() % 5),
			.library = rand() % 4 ? 0 : (uint64_t)rand(),
		};
		a.estimated = a.library / 2;

		ck_assert_int_eq(tuple_table_record(&table, region, trms, rms, &a),
				 0);
		expect_add(&want, region, METRIC_TRMS, trms, &a);
		expect_add(&want, region, METRIC_RMS, rms, &a);
	}
	struct seen seen = { &want, 0 };
	size_t skipped = 0;
	ck_assert_int_eq(tuple_table_for_each(&table, check_tuple, &seen,
						&skipped),
			 0);
	ck_assert_uint_eq(skipped, 0);
	ck_assert_uint_eq(seen.n, want.n);
	tuple_table_fini(&table);
}
END_TEST

/*
 * One thread records activations of one key, costing 10 (the slot's first
 * cost, inducing nothing: counted apart) or 20 (inducing one unit of
 * input from another thread) at random; another thread reads the table
 * meanwhile.  Every reading must be one the table actually passed
 * through: count = tens + twenties, with induced_thread = twenties and
 * sum = 10 tens + 20 twenties.
 */
struct race {
	struct tuple_table table;
	atomic_bool done;
	unsigned readings;
};

static void check_consistent(void *ctx, const struct tuple_data *t)
{
	struct race *r = ctx;
	uint64_t twenties = t->induced_thread, tens = t->count - twenties;

	ck_assert_uint_le(twenties, t->count);
	ck_assert_uint_eq(t->sum, 10 * tens + 20 * twenties);
	ck_assert(t->sumsq == (unsigned __int128)100 * tens + 400 * twenties);
	ck_assert_uint_eq(t->min, tens ? 10 : 20);
	ck_assert_uint_eq(t->max, twenties ? 20 : 10);
	r->readings++;
}

static void *record_many(void *arg)
{
	struct race *r = arg;
	unsigned seed = 99;

	struct tuple_add ten = { .cost = 10 }, twenty = { .cost = 20,
							 .induced_thread = 1 };

	ck_assert_int_eq(tuple_table_record(&r->table, 7, 3, 3, &ten), 0);
	for (unsigned i = 0; i < 3000000; i++)
		tuple_table_record(&r->table, 7, 3, 3,
			       rand_r(&seed) % 3 == 0 ? &twenty : &ten);
	atomic_store(&r->done, true);
	return NULL;
}

START_TEST(reader_sees_whole_activations)
{
	static struct race r;
	pthread_t owner;

	memset(&r, 0, sizeof(r));
	tuple_table_init(&r.table);
	ck_assert_int_eq(pthread_create(&owner, NULL, record_many, &r), 0);
	while (!atomic_load(&r.done)) {
		size_t skipped = 0;
		ck_assert_int_eq(tuple_table_for_each(&r.table,
							check_consistent, &r,
							&skipped),
				 0);
	}
	pthread_join(owner, NULL);
	ck_assert_int_eq(tuple_table_for_each(&r.table, check_consistent,
						&r, NULL),
			 0);
	ck_assert_uint_gt(r.readings, 10);
	tuple_table_fini(&r.table);
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("tuples");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, tuples_equal_plain_sums, 0, 5);
	tcase_add_test(tc, reader_sees_whole_activations);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(profile_suite());
}
