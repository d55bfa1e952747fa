/*
 * profiled.h - what the examples' tests (test_examples.c, test_io.c)
 * share: a program run profiled (linked, or its -preload build under
 * `trms run` or LD_PRELOAD) with TRMS_COST=events, its tuples read back
 * from `trms report --tuples`, and checks of one activation's numbers.
 */
#ifndef TRMS_PROFILED_H
#define TRMS_PROFILED_H

#include <check.h>
#include <stddef.h>

/* The case's scratch directory, the working directory of its tests:
 * setup makes it, teardown removes it. */
extern char scratch[256];
void setup(void);
void teardown(void);

enum mode { LINKED, TRMS_RUN, PRELOAD };
extern const char *const mode_names[];

struct row {
	char region[64], thread[64], metric[8];
	unsigned long long n, count, min, max, sum, induced_thread,
		induced_external;
};

struct profile {
	struct row *rows;
	size_t len;
	char *text; /* the report, for messages */
	char *out;  /* the program's standard output */
	const char *what; /* program and mode, for messages */
};

/* The program called @name ("prodcons", "bufread-preload", ...). */
const char *program(const char *name);

/* Whether the -preload builds can run (not in sanitizer builds). */
int preload_possible(void);

/* Write @text to a scratch file called @name: its path (until the next
 * call). */
const char *scratch_file(const char *name, const char *text);

/* Run program @name with the NULL-terminated arguments after
 * @granularity in @mode, with TRMS_COST=events, granularity @granularity
 * (NULL: 4, the default), the profile going to the scratch directory;
 * then `trms report --tuples` it.  The program must exit 0. */
void profile_run(struct profile *p, const char *name, enum mode mode,
		 const char *granularity, ...);
void profile_free(struct profile *p);

/* The single tuple of @region and @metric: the region had one activation
 * (or all its activations had the same input size, on one thread). */
const struct row *one_row(const struct profile *p, const char *region,
			  const char *metric);

/*
 * One activation of @region: its trms and rms, its induced reads and its
 * cost (events), each expected value with the reason for it.
 */
struct expect {
	unsigned long long trms, rms, induced_thread, induced_external, cost;
	const char *why_trms, *why_rms, *why_induced, *why_cost;
};

void check_activation(const struct profile *p, const char *region,
		      const struct expect *x);

/* The modes to run an example in: linked, then its -preload build (under
 * trms run, and with LD_PRELOAD if @with_ld_preload). */
size_t example_modes(enum mode modes[3], int with_ld_preload);

/* @name's build for @mode: "NAME" linked, "NAME-preload" otherwise. */
const char *variant(const char *name, enum mode mode);

/* test_io.c's tests, added to the examples' case. */
void add_io_tests(TCase *tc);

#endif
