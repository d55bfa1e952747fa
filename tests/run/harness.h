/*
 * harness.h - what the tests of `trms run` (test_signals.c,
 * test_profiles.c) share: a scratch directory with a TMPDIR of its own,
 * trms run or another program started in it in the background (spawn.h),
 * and what is left there afterwards.
 */
#ifndef TRMS_RUN_HARNESS_H
#define TRMS_RUN_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

/* The case's scratch directory, and "TMPDIR=" its tmp/ (where nothing may
 * be left): setup makes them, teardown removes them. */
extern char scratch[256];
extern char tmpdir_env[320];
void setup(void);
void teardown(void);

/* Start @argv in @dir (NULL: here) with @env added to the environment;
 * @prepare (may be NULL) runs in the child just before exec. */
void start(struct spawn_result *b, char *const argv[], const char *dir,
	   char *const env[], void (*prepare)(void));

/* Read everything and wait for its end: its wait status.  Still running
 * after @timeout_ms, it is killed, which fails the test. */
int finish(struct spawn_result *b, int timeout_ms);

/* Start `trms run ARGS...` in the scratch directory (NULL-terminated
 * arguments after @prepare), with TMPDIR in it. */
void start_run(struct spawn_result *b, void (*prepare)(void), ...);

/* The run probe (run_probe.c, not linked with trms). */
const char *probe(void);

void pause_ms(long ms);

/* Whether @path is a complete profile: its first line and its "end". */
bool complete_profile(const char *path);

struct listing {
	size_t profiles;  /* complete *.trms files */
	size_t others;    /* anything else (temporary files, broken ones) */
	char names[2048]; /* of the others */
};

/* What is in @dir (not recursive). */
void list_dir(const char *dir, struct listing *l);

/* The one directory trms run made in the scratch directory (its name
 * starting with @prefix), into @out; false if none. */
bool run_directory(const char *prefix, char *out, size_t len);

/* Nothing was left in TMPDIR. */
void assert_tmp_empty(void);

/* The cases' tests. */
void add_signal_tests(TCase *tc);    /* test_signals.c */
void add_profile_tests(TCase *tc);   /* test_profiles.c */
void add_privilege_tests(TCase *tc); /* test_profiles.c */
void add_tally_tests(TCase *tc);     /* test_tally.c */

#endif
