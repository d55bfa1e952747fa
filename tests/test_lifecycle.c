/*
 * test_lifecycle.c - every process the library is loaded into leaves
 * exactly one profile of its own: across fork, exec and _exit, with no
 * regions at all, and with a thousand threads come and gone; and none,
 * without a signal or a file left behind, under a file size limit the
 * profile does not fit in.  Runs the helper program lifecycle.c (linked
 * with the library) and reads the profiles it leaves.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_reader.h"
#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"
#include "test_util.h"

static char scratch[256];

static void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "lifecycle");
}

static void teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

/* Run lifecycle @mode (with @arg, if not NULL) with @cost, sampling at
 * @hz, at @verbosity. */
static void run_lifecycle_env(const char *mode, const char *arg,
			      const char *cost, const char *hz,
			      const char *verbosity, const char *extra,
			      struct spawn_result *r)
{
	char output[400], cost_env[40], hz_env[40], verbosity_env[40];
	char *env[] = { output, cost_env, hz_env, verbosity_env,
			(char *)extra, NULL };
	char *argv[] = { (char *)test_env("LIFECYCLE_BIN"), (char *)mode,
			 (char *)arg, NULL };

	snprintf(output, sizeof(output), "TRMS_OUTPUT=%s/%%e.%%p.trms",
		 scratch);
	snprintf(cost_env, sizeof(cost_env), "TRMS_COST=%s", cost);
	snprintf(hz_env, sizeof(hz_env), "TRMS_SAMPLE_HZ=%s", hz);
	snprintf(verbosity_env, sizeof(verbosity_env), "TRMS_VERBOSE=%s",
		 verbosity);
	spawn(argv, NULL, env, r);
}

static void run_lifecycle_with(const char *mode, const char *arg,
			       const char *cost, const char *hz,
			       const char *verbosity, struct spawn_result *r)
{
	run_lifecycle_env(mode, arg, cost, hz, verbosity, NULL, r);
}

static void run_lifecycle(const char *mode, struct spawn_result *r)
{
	/* Sampling fast, so that exec meets pending samples. */
	run_lifecycle_with(mode, NULL, "events", "10000", "0", r);
}

/* The names in the scratch directory, space-separated ("" if none). */
static void scratch_names(char *out, size_t len)
{
	DIR *d = opendir(scratch);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	out[0] = '\0';
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			strncat(out, e->d_name, len - strlen(out) - 2);
			strcat(out, " ");
		}
	closedir(d);
}

/* How many times @text occurs in @s. */
static unsigned occurrences(const char *s, const char *text)
{
	unsigned n = 0;

	while ((s = strstr(s, text))) {
		n++;
		s += strlen(text);
	}
	return n;
}

/* The count of activations of @region with trms @n, 0 if none. */
static uint64_t activations(const struct profile_doc *doc, const char *region,
			    uint64_t n)
{
	uint64_t count = 0;

	for (size_t i = 0; i < doc->n_tuples; i++) {
		const struct profile_tuple *t = &doc->tuples[i];
		if (t->data.metric == METRIC_TRMS &&
		    !strcmp(profile_region_name(doc, t->data.region), region) &&
		    (n == UINT64_MAX || t->data.n == n))
			count += t->data.count;
	}
	return count;
}

static long meta_number(const struct profile_doc *doc, const char *key)
{
	const char *v = profile_meta(doc, key);

	ck_assert_msg(v != NULL, "no meta %s", key);
	return atol(v);
}

START_TEST(fork_gives_two_profiles)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle("fork", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 2);
	/* Tell parent from child by their pids. */
	struct profile_doc *parent = &docs[0], *child = &docs[1];
	if (meta_number(child, "ppid") != meta_number(parent, "pid")) {
		parent = &docs[1];
		child = &docs[0];
	}
	ck_assert_int_eq(meta_number(child, "ppid"),
			 meta_number(parent, "pid"));
	ck_assert_uint_eq(activations(parent, "before", 2), 1);
	ck_assert_uint_eq(activations(parent, "in_parent", 4), 1);
	ck_assert_uint_eq(activations(parent, "in_child", UINT64_MAX), 0);
	/* The child's profile starts fresh: only what it did itself. */
	ck_assert_uint_eq(activations(child, "in_child", 3), 1);
	ck_assert_uint_eq(activations(child, "before", UINT64_MAX), 0);
	ck_assert_uint_eq(activations(child, "in_parent", UINT64_MAX), 0);
	ck_assert_uint_eq(child->n_threads, 1);
	ck_assert_uint_eq(child->threads[0].ordinal, 0);
	profile_doc_free(&docs[0]);
	profile_doc_free(&docs[1]);
	spawn_free(&r);
}
END_TEST

START_TEST(exec_writes_profile_first)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle("exec", &r);
	ck_assert_int_eq(r.status, 0); /* /bin/true's */
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	ck_assert_uint_eq(activations(&docs[0], "before_exec", 5), 1);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

/* A program that execs itself keeps its pid and its executable's name:
 * each image still leaves a profile of its own, the later ones beside the
 * first (NAME.1.trms, NAME.2.trms), none overwriting another. */
START_TEST(exec_of_itself_keeps_every_profile)
{
	struct spawn_result r;
	struct profile_doc docs[4];
	const char *regions[] = { "first_image", "second_image",
				  "third_image" };

	run_lifecycle("exec-self", &r);
	ck_assert_msg(r.status == 0, "exec-self: status %d: %s", r.status,
		      r.err);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 3);
	for (unsigned k = 0; k < 3; k++) {
		unsigned holders = 0;
		for (unsigned d = 0; d < 3; d++) {
			ck_assert_int_eq(meta_number(&docs[d], "pid"),
					 meta_number(&docs[0], "pid"));
			holders += activations(&docs[d], regions[k], 6 + k) == 1;
		}
		ck_assert_msg(holders == 1,
			      "region %s is in %u profiles, expected 1",
			      regions[k], holders);
	}
	for (unsigned d = 0; d < 3; d++)
		profile_doc_free(&docs[d]);
	spawn_free(&r);
}
END_TEST

/* A sample signal pending at exec would kill the new image, which has
 * no handler for it: none may be left. */
START_TEST(exec_survives_fast_sampling)
{
	struct spawn_result r;

	run_lifecycle("exec-loop", &r);
	ck_assert_msg(r.status == 0, "exec-loop: status %d: %s", r.status,
		      r.err);
	spawn_free(&r);
}
END_TEST

START_TEST(exit_now_writes_profile)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle("_exit", &r);
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	/* Left open, ended at _exit: 24 aligned bytes are 6 cells. */
	ck_assert_uint_eq(activations(&docs[0], "until_exit", 6), 1);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

START_TEST(process_that_recorded_nothing_leaves_no_profile)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	/* No region, no I/O, no sample (sampling off, so that none can
	 * land): no file by default... */
	run_lifecycle_env("idle", NULL, "events", "0", "0", NULL, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 0);
	spawn_free(&r);
	/* ...and one that says so with TRMS_EMPTY=keep. */
	run_lifecycle_env("idle", NULL, "events", "0", "0", "TRMS_EMPTY=keep",
			  &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	ck_assert_uint_eq(docs[0].n_tuples, 0);
	ck_assert_uint_eq(docs[0].n_threads, 1);
	ck_assert_ptr_nonnull(profile_meta(&docs[0], "command"));
	ck_assert_ptr_nonnull(profile_meta(&docs[0], "start_ns"));
	ck_assert_ptr_nonnull(profile_meta(&docs[0], "end_ns"));
	ck_assert_str_eq(profile_meta(&docs[0], "program"), "lifecycle");
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

START_TEST(flush_writes_even_an_empty_profile)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle_env("flush", NULL, "events", "0", "0", NULL, &r);
	ck_assert_msg(r.status == 0, "flush: status %d: %s", r.status, r.err);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	ck_assert_uint_eq(docs[0].n_tuples, 0);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

/* The library's own reads are not the program's input: a sampled process
 * that can open regions (it imports the API, so its reads would be
 * recorded) asks for its profile, then writes it again at exit; the
 * second shows no input from the first one's naming of the sampled
 * frames, which reads the objects' ELF headers.  (Naming at exec or exit
 * is the profile's last word: what it would record shows nowhere but in
 * the work it costs, which exec_survives_fast_sampling's time under the
 * sanitizers showed: elf_symbols.c reads with system calls of its own.) */
START_TEST(naming_frames_is_no_input)
{
	struct spawn_result r;
	struct profile_doc docs[4];
	uint64_t samples = 0;

	run_lifecycle_env("flush-busy", NULL, "events", "1000", "0", NULL,
			  &r);
	ck_assert_msg(r.status == 0, "flush-busy: status %d: %s", r.status,
		      r.err);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	for (size_t i = 0; i < docs[0].n_threads; i++) {
		const struct profile_thread *t = &docs[0].threads[i];
		samples += t->samples;
		ck_assert_msg(t->in_calls == 0 && t->in_bytes == 0,
			      "thread %zu: in_calls=%llu in_bytes=%llu", i,
			      (unsigned long long)t->in_calls,
			      (unsigned long long)t->in_bytes);
	}
	ck_assert_uint_gt(samples, 0);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

/* A program linked with the library (not preloaded), of one thread, busy
 * in its own code without a system call: the library's code is inside
 * the program's object, and the first sample there opens libunwind all
 * the same (samples are kept only until then, 128 at most): some 0.7 s
 * at 1000 Hz, none lost. */
START_TEST(linked_in_samples_all_walked)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle_env("spin", NULL, "events", "1000", "0", NULL, &r);
	ck_assert_msg(r.status == 0, "spin: status %d: %s", r.status, r.err);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	long samples = meta_number(&docs[0], "samples");
	long dropped = meta_number(&docs[0], "samples_dropped_unwind");
	ck_assert_msg(samples >= 300 && dropped == 0,
		      "%ld samples, %ld dropped (some 700 expected)", samples,
		      dropped);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

START_TEST(thousand_threads_leave_nothing_behind)
{
	struct spawn_result r;
	struct profile_doc docs[4];
	size_t shadow10, shadow1000;
	int fds10, fds1000;

	/* Every thread on the task clock (`auto` may move a thread that
	 * waits often to the CPU-time timer, closing its event): the
	 * descriptors counted are then the same whatever the threads did. */
	run_lifecycle_env("threads", NULL, "events", "10000", "0",
			  "TRMS_SAMPLE_TIMER=perf", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(sscanf(r.out,
				"after 10: shadow %zu fds %d\n"
				"after 1000: shadow %zu fds %d",
				&shadow10, &fds10, &shadow1000, &fds1000),
			 4);
	ck_assert_uint_eq(shadow1000, shadow10);
	ck_assert_int_eq(fds1000, fds10);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	/* The main thread, the 256 that ended last, and one that holds
	 * the 744 before them (thread.c, "Threads that ended"). */
	ck_assert_uint_eq(docs[0].n_threads, 258);
	/* 4096 bytes read after being written by the same activation: no
	 * input. */
	ck_assert_uint_eq(activations(&docs[0], "worker", 0), 1000);
	bool folded = false;
	for (size_t i = 0; i < docs[0].n_threads; i++) {
		const struct profile_thread *th = &docs[0].threads[i];
		if (th->ordinal == 0)
			continue;
		if (th->name && !strcmp(th->name, "ended threads") &&
		    th->ended_threads == 744) {
			folded = true;
			continue;
		}
		ck_assert_msg(th->has_creator && th->creator == 0,
			      "thread %u should have been created by 0",
			      th->ordinal);
	}
	ck_assert_msg(folded, "no thread \"ended threads\" of 744");
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

START_TEST(sigterm_still_leaves_profile)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle("sigterm", &r);
	/* Killed by the signal, as without the library. */
	ck_assert_int_eq(r.status, 128 + SIGTERM);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	ck_assert_uint_eq(activations(&docs[0], "until_signal", 7), 1);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

START_TEST(program_handler_wins)
{
	struct spawn_result r;
	struct profile_doc docs[4];

	run_lifecycle("handled", &r);
	/* 4: the library's handler showed through; 8: the program's
	 * handler did not run. */
	ck_assert_int_eq(r.status, 9);
	ck_assert_uint_eq(profiles_in_dir(scratch, docs, 4), 1);
	ck_assert_uint_eq(activations(&docs[0], "before_signal", 1), 1);
	profile_doc_free(&docs[0]);
	spawn_free(&r);
}
END_TEST

/* A file size limit below the profile's size: the write stops short of
 * it (a write past it raises SIGXFSZ, which kills by default), nothing is
 * left, the program's status is its own and the reason is said.  With 0
 * the first write fails; with 10000 the first 8 KiB go out. */
START_TEST(file_size_limit_raises_no_signal)
{
	static const char *const limits[] = { "0", "10000" };
	struct spawn_result r;
	char names[1024];

	for (size_t i = 0; i < 2; i++) {
		run_lifecycle_with("fsize", limits[i], "events", "10000", "0",
				   &r);
		ck_assert_msg(r.status == 0,
			      "RLIMIT_FSIZE %s: status %d (153: SIGXFSZ); "
			      "stderr:\n%s",
			      limits[i], r.status, r.err);
		ck_assert_msg(strstr(r.err, "File too large"),
			      "RLIMIT_FSIZE %s: stderr:\n%s", limits[i], r.err);
		scratch_names(names, sizeof(names));
		ck_assert_msg(!names[0], "RLIMIT_FSIZE %s: left: %s",
			      limits[i], names);
		spawn_free(&r);
	}
}
END_TEST

/* Costs in nanoseconds are calibrated once per process, at its first
 * region (docs/cost.md): never in a process that begins none, whatever
 * I/O it does; once for a process and the children it forks after; once
 * for a thousand threads that each begin one. */
START_TEST(calibration_only_for_regions)
{
	static const struct {
		const char *mode;
		unsigned calibrations;
	} cases[] = { { "idle", 0 }, { "io", 0 }, { "fork", 1 },
		      { "threads", 1 } };
	struct spawn_result r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_lifecycle_with(cases[i].mode, NULL, "ns", "100", "2", &r);
		ck_assert_msg(r.status == 0, "%s: status %d: %s",
			      cases[i].mode, r.status, r.err);
		ck_assert_msg(occurrences(r.err, "cost calibration") ==
				      cases[i].calibrations,
			      "%s: %u calibrations expected: %s",
			      cases[i].mode, cases[i].calibrations, r.err);
		spawn_free(&r);
	}
}
END_TEST

static Suite *lifecycle_suite(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc = suite_case(s, "lifecycle", 120, setup, teardown);

	SUITE_TESTS(tc, fork_gives_two_profiles, exec_writes_profile_first,
		    exec_survives_fast_sampling,
		    exec_of_itself_keeps_every_profile, exit_now_writes_profile,
		    process_that_recorded_nothing_leaves_no_profile,
		    flush_writes_even_an_empty_profile,
		    naming_frames_is_no_input, linked_in_samples_all_walked,
		    thousand_threads_leave_nothing_behind,
		    sigterm_still_leaves_profile, program_handler_wins,
		    file_size_limit_raises_no_signal,
		    calibration_only_for_regions);
	return s;
}

int main(void)
{
	return run_suite(lifecycle_suite());
}
