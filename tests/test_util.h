/*
 * test_util.h - what the test suites share: running the engine over a
 * trace and collecting its activations, writing traces out for
 * reproduction, reading the profiles a run left, and a seed that can be
 * fixed from the environment.
 */
#ifndef TRMS_TEST_UTIL_H
#define TRMS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "replay.h"
#include "trace.h"

/* One completed activation, as the engine or the oracle reports it. */
struct result {
	uint64_t tid;
	uint32_t name;
	uint64_t trms, rms, induced_thread, induced_external, cost;
};

struct results {
	struct result *v;
	size_t n, cap;
};

void results_push(struct results *r, const struct result *x);
void results_free(struct results *r);

/* Replay @t through the engine with cells of @granularity bytes and
 * stamps of @stamp_bits (0: full width).  @renumbers gets how many
 * renumberings happened.  @return 0 or the engine's -errno. */
int engine_results(const struct trace *t, unsigned granularity,
		   unsigned stamp_bits, struct results *out,
		   unsigned long *renumbers);
/* engine_results with the engine writing as in a process of one thread
 * until the trace's second thread appears (replay_options'
 * single_writer), and with @fast each read and write tried first as
 * inline checks do (engine_fast.h). */
int engine_results_single_writer(const struct trace *t, unsigned granularity,
				 unsigned stamp_bits, bool fast,
				 struct results *out, unsigned long *renumbers);

/* Parse @text as a trace (test fixtures); aborts the test on error. */
void trace_from_text(struct trace *t, const char *text);

void trace_write(FILE *f, const struct trace *t);

/* Index of the first differing activation, or -1 if equal. */
long results_compare(const struct results *a, const struct results *b);

void result_format(char *buf, size_t len, const struct trace *t,
		   const struct result *r);

struct profile_doc;

/* Read every profile (*.trms) in @dir into @docs: their number.  More
 * than @max, or one that cannot be read, fails the test. */
size_t profiles_in_dir(const char *dir, struct profile_doc *docs,
		       size_t max);

/* TRMS_SEED from the environment, or one from the clock (printed, so a
 * failing run can be repeated). */
uint64_t test_seed(const char *suite);

/* The number in the environment variable @name, or @fallback if it is
 * unset or empty. */
unsigned long test_env_unsigned(const char *name, unsigned long fallback);

#endif
