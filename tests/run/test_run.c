/*
 * test_run.c - `trms run` and the profile's way out of a process (the
 * tests are in test_signals.c and test_profiles.c, what they share in
 * harness.c):
 *
 *  - the command inherits the signal dispositions and mask trms run was
 *    given (nohup); every signal a process sends to trms run reaches the
 *    command, trms run ends with the command's status; the terminal's
 *    signals are not doubled; a stop of the command stops trms run;
 *  - every profile of the tree lands in the one directory trms run fixed
 *    at start, whatever the processes do (cd, drop privileges, outlive
 *    trms run), nothing else is left behind, and the summary says where;
 *  - processes that recorded nothing leave no profile (--all keeps them)
 *    and say so in trms run's tally, not on its socket (test_tally.c);
 *  - SIGTERM at a process's exit: the write completes, the process exits
 *    as it would have, no temporary file;
 *  - RLIMIT_FSIZE: no SIGXFSZ, no file, the reason said;
 *  - %e is the name a program was started as; the wall clock's delivered
 *    rate is per second of elapsed time.
 *
 * The programs come from meson: TRMS_BIN, TRMS_LIB, RUN_PROBE (run_probe.c,
 * not linked with trms).  `test-run privileges` runs only the test of a
 * process that becomes nobody, which needs root (exit 77 otherwise).
 * RUN_NO_PRELOAD=1 (sanitizer builds, whose library cannot be preloaded
 * into ordinary programs): exit 77.
 */
#define _GNU_SOURCE
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "suite_main.h"

static Suite *privileges_suite(void)
{
	Suite *s = suite_create("run-privileges");

	add_privilege_tests(suite_case(s, "privileges", 60, setup, teardown));
	return s;
}

static Suite *run_suite_make(void)
{
	Suite *s = suite_create("run");

	add_signal_tests(suite_case(s, "signals", 120, setup, teardown));
	add_profile_tests(suite_case(s, "profiles", 120, setup, teardown));
	add_tally_tests(suite_case(s, "tally", 60, setup, teardown));
	return s;
}

int main(int argc, char **argv)
{
	const char *no_preload = getenv("RUN_NO_PRELOAD");

	if (no_preload && !strcmp(no_preload, "1")) {
		printf("SKIP: a sanitizer build's library cannot be "
		       "preloaded\n");
		return 77;
	}
	if (argc > 1 && !strcmp(argv[1], "privileges")) {
		if (geteuid() != 0) {
			printf("SKIP: needs root (a process becomes nobody)\n");
			return 77;
		}
		return run_suite(privileges_suite());
	}
	return run_suite(run_suite_make());
}
