/*
 * test_faults.c - the library out of memory at every allocation of a run:
 * fault_workload (an annotated program: threads, regions, reads and
 * writes, pipe and file I/O, a signal handler, a plugin, sampling at
 * 1 kHz, the profile written at exit) runs once as it is, to count the
 * library's allocations, then once for each N from 1 to that count with
 * allocation N failing (TRMS_FAULT_ALLOC, src/base/vm.c).  Every time:
 *
 *  - no crash, no hang: it ends within the deadline, with status 3;
 *  - what it prints is what it printed without the failure;
 *  - what the library says is its own lines only ("trms: ..."), as
 *    DESIGN.md section 8 wants: the failing part disabled, said on
 *    stderr, the program kept running;
 *  - the profile is complete and readable, and says as much as was lost
 *    (tuples_dropped with "out of memory for profile tuples"), or there
 *    is none and the library said why (profiling disabled, or the profile
 *    could not be written); nothing else is left in its directory.
 *
 * Environment (tests/faults/meson.build): FAULT_WORKLOAD, the program;
 * TRMS_FAULTS_EVERY=K (the sanitizer build's run, scripts/test): only
 * one allocation in K fails, from one drawn at random
 * (TRMS_FAULTS_FROM=J, printed, repeats a run): there every run of the
 * workload takes a second, and runs add up to every allocation.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../scratch.h"
#include "../spawn.h"
#include "../suite_main.h"
#include "../test_util.h"
#include "profile_reader.h"

/* Seconds a run gets (it takes a tenth of one). */
#define DEADLINE_MS 60000
#define STATUS 3

static char scratch[256];

static void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "faults");
}

static void teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

/* Run the workload in a fresh directory @name (its profile goes there),
 * with @setting ("K=V") added to its environment. */
static void run_workload(const char *name, const char *setting,
			 struct spawn_result *r, char *dir, size_t size)
{
	char output[600];
	char *argv[] = { (char *)test_env("FAULT_WORKLOAD"), NULL };
	char *env[] = { output, "TRMS_SAMPLE_HZ=1000", (char *)setting,
			NULL };
	/* What the caller's environment might change. */
	static const char *const unset[] = {
		"TRMS_OUTPUT", "TRMS_VERBOSE", "TRMS_OFF", "TRMS_COST",
		"TRMS_SAMPLE_HZ", "TRMS_SAMPLE_TRAP",
		"TRMS_SAMPLE_CLOCK", "TRMS_SAMPLE_SIGNAL", "TRMS_GRANULARITY",
		"TRMS_RUN_SOCKET", "TRMS_FAULT_ALLOC", "FAULT_COUNT_FILE", NULL,
	};
	struct spawn_options options = { .dir = dir, .env = env,
					 .unset = unset };

	snprintf(dir, size, "%s/%s", scratch, name);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(output, sizeof(output), "TRMS_OUTPUT=%s/%%e.%%p.trms", dir);
	spawn_run(argv, &options, DEADLINE_MS, r);
	ck_assert_msg(!r->timed_out,
		      "%s: still running after %d s (a hang); stdout:\n%s"
		      "stderr:\n%s",
		      name, DEADLINE_MS / 1000, r->out, r->err);
}

/* Every line of @err is the library's ("trms: ..."). */
static void expect_library_lines(const char *name, const char *err)
{
	for (const char *line = err; *line;) {
		const char *end = strchrnul(line, '\n');
		ck_assert_msg(!strncmp(line, "trms: ", 6),
			      "%s: a line on stderr that is not the "
			      "library's: '%.*s'",
			      name, (int)(end - line), line);
		line = *end ? end + 1 : end;
	}
}

/* The profiles in @dir (the last one's path into @profile); anything
 * else there fails the test. */
static size_t profiles_left(const char *name, const char *dir,
			    char *profile, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		ck_assert_msg(len > 5 && !strcmp(e->d_name + len - 5, ".trms"),
			      "%s: left in the profile's directory: %s", name,
			      e->d_name);
		snprintf(profile, size, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

struct tally {
	unsigned runs, said_something, no_profile, tuples_dropped;
};

/* Run with allocation @n failing, and check what came of it against the
 * reference output @expected. */
static void run_failing(unsigned long n, const char *expected,
			struct tally *t)
{
	char name[64], setting[64], dir[512], profile[1024], err[1024];
	struct spawn_result r;
	struct profile_doc doc;

	snprintf(name, sizeof(name), "fail-%lu", n);
	snprintf(setting, sizeof(setting), "TRMS_FAULT_ALLOC=%lu", n);
	run_workload(name, setting, &r, dir, sizeof(dir));
	ck_assert_msg(r.status == STATUS,
		      "%s: exit status %d, without the failure %d; stderr:\n%s",
		      name, r.status, STATUS, r.err);
	ck_assert_msg(!strcmp(r.out, expected),
		      "%s: printed\n%swithout the failure:\n%s", name, r.out,
		      expected);
	expect_library_lines(name, r.err);
	t->runs++;
	t->said_something += *r.err != '\0';

	size_t profiles = profiles_left(name, dir, profile, sizeof(profile));
	ck_assert_msg(profiles <= 1, "%s: %zu profiles", name, profiles);
	if (profiles == 0) {
		t->no_profile++;
		ck_assert_msg(strstr(r.err, "profiling disabled") ||
				      strstr(r.err, "cannot write the profile"),
			      "%s: no profile, and the library did not say "
			      "why; stderr:\n%s",
			      name, r.err);
		spawn_free(&r);
		return;
	}
	ck_assert_msg(profile_read(profile, &doc, err, sizeof(err)) == 0,
		      "%s: the profile cannot be read: %s", name, err);
	const char *dropped = profile_meta(&doc, "tuples_dropped");
	bool said = strstr(r.err, "out of memory for profile tuples") != NULL;
	ck_assert_msg(dropped && (strcmp(dropped, "0") != 0) == said,
		      "%s: meta tuples_dropped %s, and the library %s out of "
		      "memory for tuples; stderr:\n%s",
		      name, dropped ? dropped : "missing",
		      said ? "said it was" : "did not say it was", r.err);
	t->tuples_dropped += said;
	profile_doc_free(&doc);
	spawn_free(&r);
}

START_TEST(every_allocation_fails_in_turn)
{
	char dir[512], profile[1024], path[600], count_file[700];
	struct spawn_result reference;

	snprintf(path, sizeof(path), "%s/count", scratch);
	snprintf(count_file, sizeof(count_file), "FAULT_COUNT_FILE=%s", path);
	run_workload("reference", count_file, &reference, dir, sizeof(dir));
	ck_assert_msg(reference.status == STATUS && !*reference.err,
		      "without a failure: exit status %d, stderr:\n%s",
		      reference.status, reference.err);
	ck_assert_uint_eq(profiles_left("reference", dir, profile,
					sizeof(profile)),
			  1);
	char *text = file_read(path);
	ck_assert_msg(text != NULL, "the workload did not count");
	unsigned long count = strtoul(text, NULL, 10);
	free(text);
	/* Engine, threads, shadow memory, regions, tuples, modules,
	 * samples, the profile's write: dozens. */
	ck_assert_msg(count >= 20, "only %lu allocations counted", count);

	struct tally t = { 0 };
	unsigned long every = test_env_unsigned("TRMS_FAULTS_EVERY", 1);

	if (every == 0)
		every = 1;
	unsigned long from = test_env_unsigned("TRMS_FAULTS_FROM",
					(unsigned long)time(NULL) % every);
	unsigned long runs = 0;

	if (every > 1)
		printf("faults: one allocation in %lu fails, from number %lu "
		       "(TRMS_FAULTS_FROM=%lu)\n",
		       every, from % every + 1, from % every);
	for (unsigned long n = 1 + from % every; n <= count; n += every) {
		run_failing(n, reference.out, &t);
		runs++;
	}
	printf("faults: %lu allocations; with %lu of them failing in turn, "
	       "the library said so %u times, left no profile %u times (and "
	       "said why), dropped tuples %u times (and the profile said "
	       "so)\n",
	       count, runs, t.said_something, t.no_profile, t.tuples_dropped);
	/* The failures were real: most runs had something to say. */
	ck_assert_msg(t.said_something > runs / 2,
		      "only %u runs of %lu had a message: were allocations "
		      "made to fail?",
		      t.said_something, runs);
	spawn_free(&reference);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = suite_case(s, "faults", 600, setup, teardown);

	tcase_add_test(tc, every_allocation_fails_in_turn);
	return run_suite(s);
}
