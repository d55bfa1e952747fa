/*
 * test_sampling.c - call-stack sampling, end to end: the helper programs
 * of this directory run with the library preloaded (LD_PRELOAD, as
 * `trms run` does), and their profiles are read back with the tools'
 * profile reader and `trms report`.
 *
 * One Check case per behaviour; meson runs each as a test of its own
 * (CK_RUN_CASE).  The tests are in files by what they test (test_rates.c,
 * test_paths.c, test_signals.c, test_processes.c, test_stress.c,
 * test_unwinder.c); this
 * file makes the cases they go in.  Every helper runs under a deadline:
 * one that does not finish in time is reported with the backtraces of
 * all its threads (gdb) and killed (run.c).  Nothing is retried: the
 * rates, durations and tolerances are met by a correct implementation on
 * a loaded two-CPU machine every time.
 *
 * Environment: TRMS_LIB (the shared library), TRMS_BIN (the trms
 * command), SM_BIN_DIR (the helpers), SM_PLUGIN (the plugin module);
 * SM_STRESS_SECONDS, SM_STRESS_REPEAT, SM_STRESS_THREADS,
 * SM_STRESS_CLOCKS for the stress case; SM_KEEP=1 keeps the scratch
 * directories (/tmp/trms-sampling-*), which a failing case leaves behind
 * anyway, with the profiles, outputs and backtraces it looked at.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include "../suite_main.h"

static TCase *tcase(Suite *s, const char *name, double timeout)
{
	return suite_case(s, name, timeout, sampling_setup, sampling_teardown);
}

int main(void)
{
	Suite *s = suite_create("sampling");
	double stress_budget =
		env_number("SM_STRESS_REPEAT", 1) *
			(2 * env_number("SM_STRESS_SECONDS", 8) + 120) +
		60;
	struct sampling_cases c;

	/* The cases, in the order they always ran. */
	c.callers = tcase(s, "callers", 120);
	c.idleness = tcase(s, "idleness", 120);
	c.no_phantom_io = tcase(s, "no-phantom-io", 120);
	c.own_timers = tcase(s, "own-timers", 120);
	c.system_time = tcase(s, "system-time", 120);
	c.eintr_cpu = tcase(s, "eintr-cpu", 120);
	c.eintr_wall = tcase(s, "eintr-wall", 120);
	c.dlopen = tcase(s, "dlopen", 120);
	c.fork = tcase(s, "fork", 120);
	c.threads = tcase(s, "threads", 120);
	c.sigtrap = tcase(s, "sigtrap", 120);
	c.stress = tcase(s, "stress", stress_budget);
	c.unwinder = tcase(s, "unwinder", 120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* callers_split_work first in its case, then the rates. */
	add_path_tests(&c);
	add_rate_tests(&c);
	add_signal_tests(&c);
	add_process_tests(&c);
	add_stress_tests(&c);
	add_unwinder_tests(&c);
	return run_suite(s);
}
