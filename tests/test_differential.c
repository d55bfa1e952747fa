/*
 * test_differential.c - the engine against the naive oracle (oracle.c,
 * written straight from DESIGN §2) on many random traces: every
 * activation must agree exactly, in every field and in order.
 *
 * Each run draws new traces (a new seed, printed), so the runs of CI add
 * up; TRMS_TRACES_PERCENT scales how many a run draws (default 45 of the
 * counts below: the default test run's time; 1000 for a long soak, 20
 * for the second stamp width in scripts/test).  TRMS_TRACE=FILE checks a
 * saved trace alone, in every mode.
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>

#include "oracle.h"
#include "engine/stamp.h"
#include "test_util.h"
#include "trace_gen.h"
#include "suite_main.h"

static const unsigned granularities[] = { 1, 2, 4, 8, 16 };

/* Small enough that 8 threads 20 deep (160 pending activations) still
 * fit after renumbering, and that renumbering happens every few dozen
 * writes. */
#define TINY_STAMP_BITS 12

/* The narrowest stamps that still hold every activation a trace of @p can
 * have pending after a renumbering (3 values each, plus a little room),
 * so that renumbering happens as often as possible. */
static unsigned tiny_bits_for(const struct gen_params *p)
{
	uint64_t need = 3 * (uint64_t)p->threads * p->max_depth + 4 + 16;

	for (unsigned bits = STAMP_MIN_BITS;; bits++) {
		struct stamp_layout l;
		stamp_layout_init(&l, bits);
		if (l.g_limit >= need)
			return bits;
	}
}

static void collect_oracle(void *ctx, const struct oracle_activation *a)
{
	struct result x = { a->tid, a->name, a->trms, a->rms,
			    a->induced_thread, a->induced_external, a->cost };

	results_push(ctx, &x);
}

/* Run both on @t; on disagreement save the trace and fail with the first
 * differing activation. */
/* How the engine is run: as for a trace, as in a process of one thread
 * (until the trace's second thread appears), and that with the inline
 * checks of engine_fast.h tried first. */
enum mode { PLAIN, SINGLE_WRITER, FAST };

static void check_trace(const struct trace *t, unsigned granularity,
			unsigned stamp_bits, enum mode mode, uint64_t seed,
			unsigned long *renumbers)
{
	struct results engine = { 0 }, oracle = { 0 };
	int rc = mode == PLAIN
			 ? engine_results(t, granularity, stamp_bits, &engine,
					  renumbers)
			 : engine_results_single_writer(t, granularity,
							stamp_bits, mode == FAST,
							&engine, renumbers);

	ck_assert_msg(rc == 0, "engine failed with %d (seed %" PRIu64 ")", rc,
		      seed);
	ck_assert_int_eq(oracle_run(t, granularity, collect_oracle, &oracle),
			 0);
	long i = results_compare(&engine, &oracle);
	if (i >= 0) {
		char path[64], a[256], b[256];
		snprintf(path, sizeof(path), "differential-%" PRIu64 ".trace",
			 seed);
		FILE *f = fopen(path, "w");
		if (f) {
			trace_write(f, t);
			fclose(f);
		}
		result_format(a, sizeof(a), t,
			      (size_t)i < engine.n ? &engine.v[i] : NULL);
		result_format(b, sizeof(b), t,
			      (size_t)i < oracle.n ? &oracle.v[i] : NULL);
		ck_abort_msg("seed %" PRIu64 ", K=%u, stamp bits %u%s: "
			     "activation %ld differs\n  engine: %s\n  oracle: "
			     "%s\n  trace saved to %s",
			     seed, granularity, stamp_bits,
			     mode == FAST	     ? ", single writer, inline checks"
			     : mode == SINGLE_WRITER ? ", single writer"
						     : "",
			     i, a, b, path);
	}
	results_free(&engine);
	results_free(&oracle);
}

/* @count scaled by TRMS_TRACES_PERCENT, and at least 1. */
static unsigned scaled(unsigned count)
{
	unsigned long n = (unsigned long)count *
			  test_env_unsigned("TRMS_TRACES_PERCENT", 45) / 100;

	return n ? (unsigned)n : 1;
}

/* In a @mode other than PLAIN every other trace has one thread. */
static void random_traces(unsigned count, unsigned min_events,
			  unsigned max_events, bool tiny_stamps, enum mode mode)
{
	count = scaled(count);
	uint64_t base = test_seed(mode == FAST ? "differential (inline checks)"
				  : mode == SINGLE_WRITER
					  ? "differential (single writer)"
				  : tiny_stamps ? "differential (tiny stamps)"
						: "differential");
	unsigned long renumbers = 0;

	for (unsigned i = 0; i < count; i++) {
		uint64_t seed = base * 1000003u + i;
		uint64_t state = seed;
		struct gen_params p;
		struct trace t;
		unsigned long r = 0;

		gen_random_params(&p, &state,
				  min_events + (unsigned)gen_below(
						       &state, max_events -
								       min_events));
		if (mode != PLAIN && i % 2 == 0)
			p.threads = 1;
		trace_init(&t);
		gen_trace(&t, &p, seed);
		/* (The inline checks are built for cells of 4 bytes.) */
		check_trace(&t, mode == FAST ? 4 : granularities[i % 5],
			    tiny_stamps ? tiny_bits_for(&p) : 0, mode, seed,
			    &r);
		renumbers += r;
		trace_free(&t);
	}
	if (tiny_stamps)
		ck_assert_msg(renumbers >= count,
			      "only %lu renumberings in %u traces: the tiny "
			      "stamp width is not being exercised",
			      renumbers, count);
}

START_TEST(random_small_traces)
{
	random_traces(10000, 50, 400, false, PLAIN);
}
END_TEST

/* A thread alone writes at its current stamp (struct engine's
 * single_writer): one-thread traces, and traces whose second thread
 * comes later, with full and tiny stamps. */
START_TEST(random_traces_single_writer)
{
	random_traces(4000, 50, 400, false, SINGLE_WRITER);
	random_traces(1000, 500, 2000, true, SINGLE_WRITER);
}
END_TEST

/* Reads and writes tried first as code with inline checks does
 * (engine_fast.h), the engine doing the rest. */
START_TEST(random_traces_inline_checks)
{
	random_traces(4000, 50, 400, false, FAST);
	random_traces(1000, 500, 2000, true, FAST);
}
END_TEST

START_TEST(random_traces_tiny_stamps)
{
	random_traces(2000, 500, 2000, true, PLAIN);
}
END_TEST

/* A trace of a million events (and a long one with constant
 * renumbering). */
static void long_trace(unsigned stamp_bits)
{
	uint64_t seed = test_seed("differential (long)");
	struct gen_params p = {
		.threads = 6,
		.max_depth = 20,
		.events = 1000000,
		.addr_base = 0x7f0000000000ull,
		.addr_span = 1 << 14,
		.max_size = 64,
		.names = 8,
		.run_length = 6,
	};
	struct trace t;
	unsigned long renumbers = 0;

	trace_init(&t);
	gen_trace(&t, &p, seed);
	check_trace(&t, 4, stamp_bits, PLAIN, seed, &renumbers);
	if (stamp_bits)
		ck_assert_uint_gt(renumbers, 1000);
	trace_free(&t);
}

START_TEST(million_events)
{
	long_trace(0);
}
END_TEST

START_TEST(million_events_tiny_stamps)
{
	long_trace(TINY_STAMP_BITS);
}
END_TEST

/* A cell written while one thread ran (at its current stamp, local part
 * included), read by a second thread, then read again by that thread in an
 * activation after many writes have renumbered the stamps: not induced,
 * the second thread had seen the write.  (Found by the random traces: the
 * write table kept the local part, and renumbering, which orders whole
 * stamps, put the write after the second thread's read.) */
START_TEST(single_writer_write_then_renumbered)
{
	char text[8192];
	size_t len = 0;
	struct trace t;
	unsigned long r = 0;

	/* (Thread 10 touches the chunk of the writes that follow: shared,
	 * they take fresh values of the write clock, which runs out.) */
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"17 write 0x100000 4\n17 call r0\n17 call r2\n"
				"17 write 0x100010 4\n10 read 0x100010 4\n"
				"10 read 0x200000 4\n");
	for (int i = 0; i < 200; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"17 write %d 4\n", 0x200000 + 4 * i);
	snprintf(text + len, sizeof(text) - len,
		 "10 call r1\n10 read 0x100010 4\n10 return\n");
	trace_from_text(&t, text);
	check_trace(&t, 4, 8, SINGLE_WRITER, 0, &r);
	ck_assert_uint_gt(r, 0);
	check_trace(&t, 4, 8, FAST, 0, &r);
	trace_free(&t);
}
END_TEST

/* A thread writes a cell no other thread has touched yet (at its current
 * stamp: owners.h), a second thread reads it, the first writes it again
 * (now the chunk is shared: a fresh stamp) and the second reads it again:
 * both reads are induced.  And the same with the first thread writing a
 * cell of a chunk only it touched while the second reads cells nearby,
 * of the same chunk, for the first time. */
START_TEST(write_alone_then_shared)
{
	struct trace t;
	unsigned long r = 0;

	trace_from_text(&t, "1 call r0\n1 write 0x100000 4\n"
			    "1 write 0x100004 4\n2 call r1\n"
			    "2 read 0x100000 4\n1 write 0x100000 4\n"
			    "2 read 0x100000 4\n2 read 0x100004 4\n"
			    "1 write 0x100004 4\n2 read 0x100004 4\n"
			    "2 return\n1 return\n");
	for (enum mode m = PLAIN; m <= SINGLE_WRITER; m++)
		check_trace(&t, 4, 0, m, 0, &r);
	trace_free(&t);
}
END_TEST

/* A saved trace again (TRMS_TRACE=FILE, TRMS_TRACE_K and
 * TRMS_TRACE_STAMP_BITS as the failure printed): every mode. */

START_TEST(saved_trace)
{
	const char *path = getenv("TRMS_TRACE");
	FILE *f = fopen(path, "r");
	struct trace t;
	char err[256];
	unsigned long r = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	trace_init(&t);
	ck_assert_msg(trace_parse(f, path, &t, err, sizeof(err)) == 0, "%s",
		      err);
	fclose(f);
	for (enum mode m = PLAIN; m <= FAST; m++)
		check_trace(&t, test_env_unsigned("TRMS_TRACE_K", 4),
			    test_env_unsigned("TRMS_TRACE_STAMP_BITS", 0), m, 0, &r);
	trace_free(&t);
}
END_TEST

static Suite *differential_suite(void)
{
	Suite *s = suite_create("differential");
	TCase *tc = tcase_create("random");

	tcase_set_timeout(tc, 900);
	if (getenv("TRMS_TRACE")) {
		tcase_add_test(tc, saved_trace);
		suite_add_tcase(s, tc);
		return s;
	}
	SUITE_TESTS(tc, single_writer_write_then_renumbered,
		    write_alone_then_shared, random_small_traces,
		    random_traces_tiny_stamps, random_traces_single_writer,
		    random_traces_inline_checks);
	suite_add_tcase(s, tc);
	/* The two long traces apart (tests/meson.build runs each case as a
	 * test of its own, CK_RUN_CASE): the two can run side by side. */
	TCase *long_traces = tcase_create("long");
	tcase_set_timeout(long_traces, 900);
	SUITE_TESTS(long_traces, million_events, million_events_tiny_stamps);
	suite_add_tcase(s, long_traces);
	return s;
}

int main(void)
{
	return run_suite(differential_suite());
}
