/*
 * sampling.h - what the sampling tests share: running a helper program
 * sampled, under a deadline (run.c), and reading its profile's calling
 * context trees (tree.c); and the Check cases the test files fill
 * (test_sampling.c makes them: one meson test each).
 */
#ifndef TRMS_SAMPLING_H
#define TRMS_SAMPLING_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile_reader.h"

/* Check can carry messages of a few kilobytes only: a longer one (the
 * backtraces of a hung program's threads, say) goes whole to stderr and
 * shortened into the failure. */
#define SM_MSG_MAX 3000
#define SM_CHECK(cond, ...)                                                 \
	do {                                                               \
		if (!(cond)) {                                             \
			char *m_ = sm_format(__VA_ARGS__);                 \
			bool long_ = strlen(m_) > SM_MSG_MAX;              \
			if (long_)                                         \
				fprintf(stderr, "%s\n", m_);               \
			ck_abort_msg("%.*s%s", SM_MSG_MAX, m_,             \
				     long_ ? " [... cut: the whole message " \
					     "is on stderr]"               \
					   : "");                          \
		}                                                          \
	} while (0)

char *sm_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Seconds a short helper gets before it is taken for hung: about eight
 * times what the slowest (sm-eintr, 5 s) takes on a loaded two-CPU
 * machine. */
#define SM_DEADLINE 40

/* ---- run.c: the scratch directory, running a program ---- */

/* The case's scratch directory (/tmp/trms-sampling-*), made by the
 * fixture; SM_KEEP=1 keeps it. */
extern char scratch[256];
void sampling_setup(void);
void sampling_teardown(void);

/* The path of the helper program @name (to free). */
char *helper(const char *name);

/* A fresh directory under the scratch one (to free). */
char *make_dir(const char *name);

struct run {
	int status;  /* exit status, or 128 + signal */
	bool timed_out;
	double seconds;
	char *out, *err;
	char *stacks; /* with timed_out: every thread's backtrace */
	char *command; /* for messages */
};

/* Run @argv in @dir with @env added ("K=V", NULL-terminated) and the
 * library's settings of the caller's environment taken out, its output
 * also left in @dir/stdout and @dir/stderr; kill it (its whole process
 * group) after @timeout seconds, first saving the backtraces of its
 * threads. */
void run_in(const char *dir, char *const argv[], char *const env[],
	    double timeout, struct run *r);
void run_free(struct run *r);

/* The program finished in time with status @status. */
void expect_status(const struct run *r, int status);

/* The environment of a sampled run: preloaded, its profiles in @dir. */
struct env {
	char *v[16];
	size_t n;
};

void env_add(struct env *e, char *kv);
void env_sampled(struct env *e, const char *dir, unsigned hz,
		 const char *clock);
void env_free(struct env *e);

/* Read every profile in @dir (at most @max) into @docs. */
size_t read_profiles(const char *dir, struct profile_doc *docs, size_t max);

/* Run @argv (whose argv[0] it frees) in a fresh directory named @name,
 * sampled at @hz of @clock, with @extra ("NAME=value") in its environment
 * too if not NULL; expect exit status @status, then read its one profile
 * into @doc if @doc is not NULL. */
void run_sampled(const char *name, char *argv[], unsigned hz,
		 const char *clock, const char *extra, int status,
		 struct run *r, struct profile_doc *doc);

/* Run `trms report ARGS... PROFILE` and return its standard output. */
char *report(const char *dir, const char *profile, const char *a1,
	     const char *a2, const char *a3);

/* The number in the environment variable @name, or @fallback. */
double env_number(const char *name, double fallback);

/* ---- tree.c: a profile's calling context trees ---- */

uint64_t meta_u64(const struct profile_doc *doc, const char *key);

/* A profile's calling context trees, with a label and subtree sums for
 * every node. */
struct tree {
	struct profile_doc *doc;
	size_t n;
	long *parent;  /* index into doc->cct, -1 for a root */
	char **label;  /* function name, "(thread start)", "[region]" */
	uint64_t *samples, *work, *blocked; /* over the subtree */
	double *idleness;		   /* over the subtree */
};

void tree_build(struct tree *t, struct profile_doc *doc);
void tree_free(struct tree *t);
bool has_ancestor(const struct tree *t, size_t i, const char *label);

/* The path from the root down to node @i, as "a;b;c" (to free). */
char *path_of(const struct tree *t, size_t i);

struct agg {
	uint64_t samples, work, blocked;
	double idleness;
	size_t nodes;
};

/* Over the subtrees of the nodes labelled @label (whose parent is
 * labelled @parent, unless NULL), in thread @thread (-1: any), each
 * sample counted once even where @label recurses. */
struct agg under(const struct tree *t, const char *label, const char *parent,
		 long thread);

/* Samples of thread @thread (-1: all). */
uint64_t samples_of(const struct tree *t, long thread);

/* The labels of the heaviest paths, for failure messages (to free). */
char *top_paths(const struct tree *t, size_t max);

/* ---- the Check cases (a meson test each), filled by the test files ---- */

struct sampling_cases {
	TCase *callers, *idleness, *no_phantom_io, *own_timers, *system_time,
		*eintr_cpu, *eintr_wall, *dlopen, *fork, *threads, *sigtrap,
		*stress, *unwinder;
};

void add_path_tests(const struct sampling_cases *c);	  /* test_paths.c */
void add_rate_tests(const struct sampling_cases *c);	  /* test_rates.c */
void add_signal_tests(const struct sampling_cases *c);	  /* test_signals.c */
void add_process_tests(const struct sampling_cases *c); /* test_processes.c */
void add_stress_tests(const struct sampling_cases *c);  /* test_stress.c */
void add_unwinder_tests(const struct sampling_cases *c); /* test_unwinder.c */

#endif
