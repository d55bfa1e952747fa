/*
 * test_merge.c - `trms merge` (tools/commands/cmd_merge.c) and the merge itself
 * (tools/profile_merge*.c):
 *
 *   golden        a small case merged by hand: the whole output file,
 *                 also with an input read from a pipe
 *   semantics     thread identity, creator and context agreement, meta
 *                 rules, through profile_merge() itself
 *   algebra       associativity and commutativity, byte for byte, on
 *                 random profiles (test_algebra.c)
 *   errors        incompatible inputs, unreadable and corrupt ones, an
 *                 output that cannot be written, bad usage
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merging.h"
#include "profile_merge.h"
#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"

/* --- golden: a small case merged by hand ------------------------------ */

static const char golden_a[] =
	"trms-profile 1\n"
	"meta program app\n"
	"meta pid 100\n"
	"meta start_ns 5000\n"
	"meta end_ns 9000\n"
	"meta cost events\n"
	"meta granularity 4\n"
	"meta sample_clock cpu\n"
	"meta sample_hz 100\n"
	"meta samples 6\n"
	"meta sample_cpu_ns 40000000\n"
	"meta sample_hz_delivered 150\n"
	"meta sample_threads_left_perf 1\n"
	"region 0 parse\n"
	"region 1 sort\n"
	"thread 0 in_bytes=10 in_calls=1 out_bytes=0 out_calls=0 samples=2 "
	"cpu_ns=10000000 library_samples=1 library_ns=700\n"
	"thread 1 name=worker creator=0 context=0 in_bytes=0 in_calls=0 "
	"out_bytes=5 out_calls=1 samples=4 cpu_ns=30000000 library_samples=0 "
	"library_ns=300\n"
	"tuple 0 0 trms 8 2 3 5 8 34 1 2\n"
	"tuple 0 0 rms 8 2 3 5 8 34 0 0\n"
	"tuple 1 1 trms 16 1 7 7 7 49 0 0\n"
	"module 0 4096 8192 0 loaded /nonexistent/bin/app\n"
	"module 1 65536 131072 61440 unloaded /nonexistent/lib/libfoo.so\n"
	"symbol 0 100 main 4\n"
	"symbol 1 300 foo_sort 0\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 0 100 2 2 0 0 0\n"
	"cct 1 5 - region 0 0 0 0 0 0 0\n"
	"cct 1 6 5 thread 0 0 0 0 0 0 0\n"
	"cct 1 7 6 frame 1 300 4 3 500000 1 0\n"
	"meta tuples_dropped 1\n"
	"end 3\n";

/* Another process: regions, threads and modules numbered otherwise. */
static const char golden_b[] =
	"trms-profile 1\n"
	"meta program app\n"
	"meta pid 200\n"
	"meta start_ns 4000\n"
	"meta end_ns 8000\n"
	"meta cost events\n"
	"meta granularity 4\n"
	"meta sample_clock cpu\n"
	"meta sample_hz 100\n"
	"meta samples 3\n"
	"meta sample_cpu_ns 20000000\n"
	"meta sample_threads_left_perf 2\n"
	"region 0 sort\n"
	"region 1 emit\n"
	"region 2 parse\n"
	"thread 0 in_bytes=1 in_calls=1 out_bytes=2 out_calls=2 samples=1 "
	"cpu_ns=5000000 library_samples=2 library_ns=50\n"
	"thread 1 name=io in_bytes=0 in_calls=0 out_bytes=0 out_calls=0 "
	"samples=0 cpu_ns=0 library_samples=0 library_ns=0\n"
	"thread 2 name=worker creator=0 context=2 in_bytes=3 in_calls=3 "
	"out_bytes=0 out_calls=0 samples=2 cpu_ns=15000000 library_samples=3 "
	"library_ns=1000\n"
	"tuple 2 0 trms 8 1 1 1 1 1 0 1\n"
	"tuple 2 0 trms 9 1 4 4 4 16 0 0\n"
	"tuple 0 2 trms 16 3 2 9 15 90 2 0\n"
	"tuple 1 1 rms 0 1 6 6 6 36 0 0\n"
	"module 3 65536 131072 61440 loaded /nonexistent/lib/libfoo.so\n"
	"module 4 4096 8192 0 loaded /nonexistent/bin/app\n"
	"symbol 3 300 foo_sort 0\n"
	"symbol 4 100 main 4\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 4 100 1 1 0 0 0\n"
	"cct 2 1 - region 2 0 0 0 0 0 0\n"
	"cct 2 2 1 thread 0 0 0 0 0 0 0\n"
	"cct 2 3 2 frame 3 300 1 1 250000 0 0\n"
	"cct 2 4 2 frame 16777215 4660 1 1 0 0 0\n"
	"end 4\n";

/* Worked out by hand from golden_a and golden_b. */
static const char golden_merged[] =
	"trms-profile 1\n"
	"meta cost events\n"
	"meta end_ns 9000\n"
	"meta granularity 4\n"
	"meta merged 2\n"
	"meta program app\n"
	"meta sample_clock cpu\n"
	"meta sample_cpu_ns 60000000\n"
	"meta sample_hz 100\n"
	"meta sample_hz_delivered 150\n"
	"meta sample_threads_left_perf 3\n"
	"meta samples 9\n"
	"meta start_ns 4000\n"
	"meta tuples_dropped 1\n"
	"region 0 emit\n"
	"region 1 parse\n"
	"region 2 sort\n"
	"thread 0 in_bytes=11 in_calls=2 out_bytes=2 out_calls=2 samples=3 "
	"cpu_ns=15000000 library_samples=3 library_ns=750\n"
	"thread 1 name=io in_bytes=0 in_calls=0 out_bytes=0 out_calls=0 "
	"samples=0 cpu_ns=0 library_samples=0 library_ns=0\n"
	"thread 2 name=worker creator=0 context=1 in_bytes=3 in_calls=3 "
	"out_bytes=5 out_calls=1 samples=6 cpu_ns=45000000 library_samples=3 "
	"library_ns=1300\n"
	"tuple 0 1 rms 0 1 6 6 6 36 0 0\n"
	"tuple 1 0 trms 8 3 1 5 9 35 1 3\n"
	"tuple 1 0 trms 9 1 4 4 4 16 0 0\n"
	"tuple 1 0 rms 8 2 3 5 8 34 0 0\n"
	"tuple 2 2 trms 16 4 2 9 22 139 2 0\n"
	"module 0 4096 8192 0 loaded /nonexistent/bin/app\n"
	"module 1 65536 131072 61440 loaded /nonexistent/lib/libfoo.so\n"
	"symbol 0 100 main 4\n"
	"symbol 1 300 foo_sort 0\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 0 100 3 3 0 0 0\n"
	"cct 2 1 - region 1 0 0 0 0 0 0\n"
	"cct 2 2 1 thread 0 0 0 0 0 0 0\n"
	"cct 2 3 2 frame 1 300 5 4 750000 1 0\n"
	"cct 2 4 2 frame 16777215 4660 1 1 0 0 0\n"
	"end 5\n";

START_TEST(golden)
{
	const char *a = write_file("a.trms", golden_a);
	const char *b = write_file("b.trms", golden_b);
	const char *ab[] = { a, b }, *ba[] = { b, a };
	const char *out = in_scratch("ab.trms");

	merge(out, ab, 2);
	char *text = read_file(out);
	ck_assert_str_eq(text, golden_merged);
	free(text);
	merge(in_scratch("ba.trms"), ba, 2);
	assert_same_file(out, in_scratch("ba.trms"));

	/* The tuples as trms report shows them, merged or on the fly. */
	static const char tuples[] =
		"region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
		"induced_thread\tinduced_external\n"
		"emit\tio\trms\t0\t1\t6\t6\t6\t36\t0\t0\n"
		"parse\t0\ttrms\t8\t3\t1\t5\t9\t35\t1\t3\n"
		"parse\t0\ttrms\t9\t1\t4\t4\t4\t16\t0\t0\n"
		"parse\t0\trms\t8\t2\t3\t5\t8\t34\t0\t0\n"
		"sort\tworker\ttrms\t16\t4\t2\t9\t22\t139\t2\t0\n";
	const char *merged[] = { out };
	char *printed = report("--tuples", merged, 1);
	ck_assert_str_eq(printed, tuples);
	free(printed);
	printed = report("--tuples", ab, 2);
	ck_assert_str_eq(printed, tuples);
	free(printed);
}
END_TEST

/* One profile alone: the same profile, canonical (meta sorted, merged 1),
 * and canonical output is a fixed point. */
START_TEST(single_profile)
{
	const char *a = write_file("a.trms", golden_a);
	const char *one[] = { a };
	const char *out = in_scratch("one.trms"), *again = in_scratch("2.trms");

	merge(out, one, 1);
	char *text = read_file(out);
	ck_assert(strstr(text, "meta merged 1\n") != NULL);
	ck_assert(strstr(text, "meta pid 100\n") != NULL);
	ck_assert(strstr(text, "thread 1 name=worker creator=0 context=0 ") !=
		  NULL);
	/* Recomputed: 6 samples in 40 ms of CPU time. */
	ck_assert(strstr(text, "meta sample_hz_delivered 150\n") != NULL);
	free(text);
	const char *merged[] = { out };
	merge(again, merged, 1);
	assert_same_file(out, again);
	for (int i = 0; i < 2; i++) {
		const char *option = i ? "--tree" : "--tuples";
		char *x = report(option, one, 1), *y = report(option, merged, 1);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
	}
}
END_TEST

/* An input that can be read only once: a pipe, from bash's process
 * substitution.  The merge reads each input once, so it is merged as the
 * file would be. */
START_TEST(pipe_input)
{
	const char *a = write_file("a.trms", golden_a);
	const char *b = write_file("b.trms", golden_b);
	const char *out = in_scratch("piped.trms");
	char *argv[] = { "/bin/bash", "-c",
			 "exec \"$0\" merge -o \"$1\" <(cat \"$2\") \"$3\"",
			 (char *)test_env("TRMS_BIN"), (char *)out, (char *)a, (char *)b,
			 NULL };
	struct spawn_result r;

	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
	char *text = read_file(out);
	ck_assert_str_eq(text, golden_merged);
	free(text);
}
END_TEST

/* --- semantics, through the library ----------------------------------- */

static void read_profile(const char *path, struct profile_doc *p)
{
	char err[512];

	ck_assert_msg(profile_read(path, p, err, sizeof(err)) == 0, "%s", err);
}

static const struct profile_thread *
named_thread(const struct profile_doc *doc, const char *name)
{
	for (size_t i = 0; i < doc->n_threads; i++)
		if (doc->threads[i].name && !strcmp(doc->threads[i].name, name))
			return &doc->threads[i];
	return NULL;
}

START_TEST(thread_identity)
{
	/* Unnamed threads keep their ordinals; named ones take the
	 * smallest free ones, in name order.  zeta's creator and context
	 * agree (after renumbering), alpha's do not. */
	const char *a = write_file(
		"a.trms", "trms-profile 1\n"
			  "region 7 r\nregion 3 q\n"
			  "thread 0\n"
			  "thread 2 name=zeta creator=0 context=7/3\n"
			  "thread 3 name=alpha creator=0\n"
			  "thread 5 creator=2\n"
			  "end 0\n");
	const char *b = write_file(
		"b.trms", "trms-profile 1\n"
			  "region 0 q\nregion 1 r\n"
			  "thread 0\n"
			  "thread 1 name=zeta creator=0 context=1/0\n"
			  "thread 4 name=alpha creator=1\n"
			  "thread 5 creator=1 samples=3 cpu_ns=9\n"
			  "end 0\n");
	struct profile_doc in[2], out;
	char err[512];

	read_profile(a, &in[0]);
	read_profile(b, &in[1]);
	ck_assert_msg(profile_merge(in, 2, &out, err, sizeof(err)) == 0, "%s",
		      err);
	const struct profile_doc *d = &out;
	ck_assert_uint_eq(d->n_threads, 4);
	ck_assert_uint_eq(d->threads[0].ordinal, 0);
	ck_assert_ptr_null(d->threads[0].name);
	const struct profile_thread *alpha = named_thread(d, "alpha");
	const struct profile_thread *zeta = named_thread(d, "zeta");
	ck_assert_ptr_nonnull(alpha);
	ck_assert_ptr_nonnull(zeta);
	ck_assert_uint_eq(alpha->ordinal, 1);
	ck_assert_uint_eq(zeta->ordinal, 2);
	ck_assert(zeta->has_creator && zeta->creator == 0);
	ck_assert_uint_eq(zeta->context_depth, 2);
	ck_assert_str_eq(profile_region_name(d, zeta->context[0]), "r");
	ck_assert_str_eq(profile_region_name(d, zeta->context[1]), "q");
	/* alpha: created by 0 in a, by zeta in b. */
	ck_assert(!alpha->has_creator);
	const struct profile_thread *five = profile_thread(d, 5);
	ck_assert_ptr_nonnull(five);
	ck_assert_ptr_null(five->name);
	/* 5's creator: zeta in both (ordinal 2 in a, 1 in b). */
	ck_assert(five->has_creator && five->creator == zeta->ordinal);
	ck_assert(five->sampled);
	ck_assert_uint_eq(five->samples, 3);
	ck_assert_uint_eq(five->cpu_ns, 9);
	ck_assert(!d->threads[0].sampled);
	/* Regions in name order. */
	ck_assert_str_eq(d->regions[0].name, "q");
	ck_assert_str_eq(d->regions[1].name, "r");
	profile_doc_free(&out);
	profile_doc_free(&in[0]);
	profile_doc_free(&in[1]);
}
END_TEST

START_TEST(meta_rules)
{
	const char *a = write_file(
		"a.trms", "trms-profile 1\n"
			  "meta program p\nmeta command ./p%20x -v\n"
			  "meta pid 1\nmeta clock tsc\nmeta cost ns\n"
			  "meta renumbers 2\nmeta start_ns 30\nmeta end_ns 40\n"
			  "meta shadow_bytes 4096\nmeta merged 3\n"
			  "meta samples_dropped_unwind 4\nmeta only_a x\n"
			  "end 0\n");
	const char *b = write_file(
		"b.trms", "trms-profile 1\n"
			  "meta program p\nmeta command ./p%20x -v\n"
			  "meta pid 2\nmeta clock tsc\n"
			  "meta renumbers 5\nmeta start_ns 10\nmeta end_ns 20\n"
			  "meta shadow_bytes 4096\n"
			  "meta samples_dropped_unwind 1\n"
			  "meta samples_dropped_in_loader 7\n"
			  "end 0\n");
	const char *ab[] = { a, b };
	const char *out = in_scratch("ab.trms");

	merge(out, ab, 2);
	char *text = read_file(out);
	/* Without meta cost, costs are in ns: b agrees with a. */
	ck_assert_str_eq(text, "trms-profile 1\n"
			       "meta clock tsc\n"
			       "meta command ./p%20x -v\n"
			       "meta cost ns\n"
			       "meta end_ns 40\n"
			       "meta merged 4\n"
			       "meta program p\n"
			       "meta renumbers 7\n"
			       "meta samples_dropped_in_loader 7\n"
			       "meta samples_dropped_unwind 5\n"
			       "meta shadow_bytes 4096\n"
			       "meta start_ns 10\n"
			       "end 0\n");
	free(text);
}
END_TEST

/* --- errors ----------------------------------------------------------- */

static const char minimal[] = "trms-profile 1\nmeta cost events\n"
			      "meta granularity 4\nregion 0 f\nthread 0\n"
			      "tuple 0 0 trms 1 1 2 2 2 4 0 0\nend 1\n";

/* @text is @minimal with @from replaced by @to. */
static const char *variant(const char *name, const char *from, const char *to)
{
	char text[512];
	const char *at = strstr(minimal, from);

	ck_assert_ptr_nonnull(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - minimal), minimal,
		 to, at + strlen(from));
	return write_file(name, text);
}

/* merge must fail with @status, a message containing each of @needles
 * (NULL-terminated), and OUT as it was. */
static void expect_failure(int status, const char *out, const char *before,
			   const char *const *args, const char *const *needles)
{
	char *argv[16];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "merge";
	for (; args[k - 2]; k++)
		argv[k] = (char *)args[k - 2];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == status, "exit %d, not %d: %s", r.status,
		      status, r.err);
	ck_assert_str_eq(r.out, "");
	for (size_t i = 0; needles[i]; i++)
		ck_assert_msg(strstr(r.err, needles[i]) != NULL,
			      "stderr '%s' lacks '%s'", r.err, needles[i]);
	spawn_free(&r);
	if (before) {
		char *now = read_file(out);
		ck_assert_str_eq(now, before);
		free(now);
	} else if (out) {
		ck_assert_msg(!exists(out), "%s was written", out);
	}
	/* No temporary file left behind either. */
	struct spawn_result ls;
	char *ls_argv[] = { "/bin/sh", "-c", "ls -a | grep -c tmp || true",
			    NULL };
	spawn(ls_argv, NULL, NULL, &ls);
	ck_assert_str_eq(ls.out, "0\n");
	spawn_free(&ls);
}

START_TEST(incompatible_inputs)
{
	const char *base = write_file("base.trms", minimal);
	const char *out = in_scratch("out.trms");
	static const struct {
		const char *name, *from, *to, *what;
	} cases[] = {
		{ "g8.trms", "granularity 4", "granularity 8", "granularity" },
		{ "ns.trms", "cost events", "cost ns", "costs in ns" },
		{ "wall.trms", "end 1",
		  "meta sample_clock wall\nmeta sample_hz 100\nend 1",
		  "wall time" },
		{ "hz.trms", "end 1",
		  "meta sample_clock cpu\nmeta sample_hz 200\nend 1",
		  "200 Hz" },
	};
	const char *cpu = variant("cpu.trms", "end 1",
				  "meta sample_clock cpu\nmeta sample_hz 100\n"
				  "end 1");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *other = variant(cases[i].name, cases[i].from,
					    cases[i].to);
		const char *first = i < 2 ? base : cpu;
		const char *args[] = { "-o", out, first, other, NULL };
		const char *needles[] = { "trms merge: ", cases[i].name,
					  i < 2 ? "base.trms" : "cpu.trms",
					  cases[i].what, "cannot be merged",
					  NULL };
		expect_failure(2, out, NULL, args, needles);
		/* An existing OUT is left as it was. */
		write_file("out.trms", "precious\n");
		expect_failure(2, out, "precious\n", args, needles);
		unlink(out);
	}
	/* Sampled and unsampled profiles do merge. */
	const char *both[] = { base, cpu };
	merge(out, both, 2);
}
END_TEST

START_TEST(bad_inputs)
{
	const char *good = write_file("good.trms", minimal);
	const char *corrupt = write_file(
		"corrupt.trms", "trms-profile 1\nregion 0 f\nthread 0\n"
				"tuple 0 0 trms 1 x 2 2 2 4 0 0\nend 1\n");
	const char *out = in_scratch("out.trms");
	const char *args1[] = { "-o", out, good, corrupt, NULL };
	const char *needles1[] = { "trms merge: ", "corrupt.trms:4:",
				   "bad number", NULL };
	expect_failure(2, out, NULL, args1, needles1);

	const char *missing = in_scratch("missing.trms");
	const char *args2[] = { "-o", out, missing, good, NULL };
	const char *needles2[] = { "missing.trms", "No such file", NULL };
	expect_failure(2, out, NULL, args2, needles2);

	const char *truncated = write_file("cut.trms", "trms-profile 1\n"
						       "region 0 f\n");
	const char *args3[] = { "-o", out, good, truncated, NULL };
	const char *needles3[] = { "cut.trms:3:", "truncated", NULL };
	expect_failure(2, out, NULL, args3, needles3);
}
END_TEST

START_TEST(unwritable_output)
{
	const char *good = write_file("good.trms", minimal);
	const char *out = in_scratch("no/such/dir/out.trms");
	const char *args[] = { "-o", out, good, NULL };
	const char *needles[] = { "trms merge: cannot write", out,
				  "No such file", NULL };

	expect_failure(1, out, NULL, args, needles);
	/* A directory in the way: OUT stays a directory. */
	ck_assert_int_eq(mkdir(in_scratch("dir.trms"), 0755), 0);
	const char *dir = in_scratch("dir.trms");
	const char *args2[] = { "-o", dir, good, NULL };
	const char *needles2[] = { "trms merge: cannot write", NULL };
	expect_failure(1, NULL, NULL, args2, needles2);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
}
END_TEST

START_TEST(usage)
{
	const char *good = write_file("good.trms", minimal);
	const char *out = in_scratch("out.trms");
	const char *no_output[] = { good, NULL };
	const char *needles[] = { "-o OUT", "Try 'trms merge --help'", NULL };
	expect_failure(2, NULL, NULL, no_output, needles);
	ck_assert(!exists(out));

	const char *no_input[] = { "-o", out, NULL };
	const char *needles2[] = { "no PROFILE", NULL };
	expect_failure(2, out, NULL, no_input, needles2);

	const char *bad_option[] = { "--frobnicate", "-o", out, good, NULL };
	const char *needles3[] = { "Try 'trms merge --help'", NULL };
	expect_failure(2, out, NULL, bad_option, needles3);

	struct spawn_result r;
	run(&r, "merge", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "Usage: trms merge -o OUT PROFILE...") != NULL);
	ck_assert(strstr(r.out, "--output") && strstr(r.out, "Exit status"));
	spawn_free(&r);
	run(&r, "help", NULL);
	ck_assert(strstr(r.out, "  merge ") != NULL);
	spawn_free(&r);

	/* --output works as -o; the output may be an input. */
	const char *copy = write_file("copy.trms", minimal);
	run(&r, "merge", "--output", copy, copy, copy, NULL);
	ck_assert_msg(r.status == 0, "%s", r.err);
	spawn_free(&r);
	char *text = read_file(copy);
	ck_assert(strstr(text, "tuple 0 0 trms 1 2 2 2 4 8 0 0\n") != NULL);
	ck_assert(strstr(text, "meta merged 2\n") != NULL);
	free(text);
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = suite_case(s, "golden", 0, merge_setup, merge_teardown);

	SUITE_TESTS(tc, golden, single_profile, pipe_input);
	tc = suite_case(s, "semantics", 0, merge_setup, merge_teardown);
	SUITE_TESTS(tc, thread_identity, meta_rules);
	add_algebra_tests(s);
	tc = suite_case(s, "errors", 0, merge_setup, merge_teardown);
	SUITE_TESTS(tc, incompatible_inputs, bad_inputs, unwritable_output,
		    usage);
	return s;
}

int main(void)
{
	return run_suite(merge_suite());
}
