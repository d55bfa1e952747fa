/*
 * test_cli.c - the `trms` command: replay's fixed output format and its
 * errors, report --tuples, and the handling of bad profiles.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"

static char scratch[256];

/* Write @text to a scratch file called @name; returns its path. */
static const char *scratch_file(const char *name, const char *text)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	file_write(path, text);
	return path;
}

static void run(struct spawn_result *r, const char *input, ...)
{
	char *argv[16];
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)test_env("TRMS_BIN");
	va_start(ap, input);
	for (char *arg; (arg = va_arg(ap, char *));)
		argv[n++] = arg;
	va_end(ap);
	argv[n] = NULL;
	spawn(argv, input, NULL, r);
}

static void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "cli");
	/* The commands run here: nothing they do may leave a profile of
	 * the command itself behind. */
	ck_assert_int_eq(chdir(scratch), 0);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q '^trms\\..*\\.trms$'",
		 scratch);
	int stray = system(cmd) == 0;
	ck_assert(scratch_remove(scratch));
	ck_assert_msg(!stray, "the trms command left a profile of itself");
}

static const char worked_case[] =
	"# worked case 1 of DESIGN section 2\n"
	"0 call f\n0 read 0 4\n0 write 4 4\n0 call g\n0 read 0x0 4\n"
	"0 read 4 4\n0 read 8 4   # z\n\n0 write 12 4\n0 return\n"
	"0 read 12 4\n0 return\n";

START_TEST(replay_prints_activations)
{
	struct spawn_result r;

	run(&r, worked_case, "replay", "-", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out,
			 "0 g trms=3 rms=3 induced_thread=0 induced_external=0 "
			 "cost=4\n"
			 "0 f trms=2 rms=2 induced_thread=0 induced_external=0 "
			 "cost=7\n");
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
}
END_TEST

/* Pending activations close innermost first, thread ids ascending. */
START_TEST(replay_closes_pending_in_order)
{
	struct spawn_result r;

	run(&r,
	    "9 call a9\n9 call b9\n2 call a2\n2 read 0 4\n2 call b2\n"
	    "9 read 0 4\n",
	    "replay", "-", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out,
			 "2 b2 trms=0 rms=0 induced_thread=0 induced_external=0 "
			 "cost=0\n"
			 "2 a2 trms=1 rms=1 induced_thread=0 induced_external=0 "
			 "cost=1\n"
			 "9 b9 trms=1 rms=1 induced_thread=0 induced_external=0 "
			 "cost=1\n"
			 "9 a9 trms=1 rms=1 induced_thread=0 induced_external=0 "
			 "cost=1\n");
	spawn_free(&r);
}
END_TEST

START_TEST(replay_granularity_option)
{
	struct spawn_result r;

	run(&r, "0 call f\n0 read 0 16\n0 return\n", "replay", "--granularity",
	    "1", "-", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, " trms=16 rms=16 ") != NULL);
	spawn_free(&r);
	run(&r, "", "replay", "--granularity", "3", "-", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert(strstr(r.err, "granularity") != NULL);
	spawn_free(&r);
}
END_TEST

/* Each malformed line: exit 2, the line number, nothing on stdout. */
/* Case @i was refused as bad input: exit status 2, @message on stderr,
 * nothing on stdout.  Frees @r. */
static void refused_with(struct spawn_result *r, size_t i,
			 const char *message)
{
	ck_assert_msg(r->status == 2, "case %zu: exit %d", i, r->status);
	ck_assert_msg(strstr(r->err, message) != NULL,
		      "case %zu: stderr '%s' lacks '%s'", i, r->err, message);
	ck_assert_msg(r->out[0] == '\0', "case %zu: stdout '%s'", i, r->out);
	spawn_free(r);
}

START_TEST(replay_rejects_malformed_lines)
{
	static const struct {
		const char *trace;
		const char *message; /* expected in stderr, after FILE:LINE: */
	} cases[] = {
		{ "0 call f\n0 jump 4 4\n", "bad.trace:2: unknown operation" },
		{ "0 call f\n0 read 4\n", "bad.trace:2: missing" },
		{ "0 call\n", "bad.trace:1: missing" },
		{ "0 return extra\n", "bad.trace:1: extra field" },
		{ "0 call f g\n", "bad.trace:1: extra field" },
		{ "0 read 0 4 5\n", "bad.trace:1: extra field" },
		{ "x call f\n", "bad.trace:1: bad thread id" },
		{ "-1 call f\n", "bad.trace:1: bad thread id" },
		{ "0 read 0xZZ 4\n", "bad.trace:1: bad address" },
		{ "0 read 12 -4\n", "bad.trace:1: bad size" },
		{ "0 read 12 0x4\n", "bad.trace:1: bad size" },
		{ "0 read 12 99999999999999999999999\n",
		  "bad.trace:1: bad size" },
		{ "0 call f\n\n# c\n0 read 12 0\n", "bad.trace:4: size must be" },
		{ "0 call f\n0 return\n0 return\n",
		  "bad.trace:3: return on thread 0" },
		{ "0 call f\n1 return\n", "bad.trace:2: return on thread 1" },
		{ "0 read 0x7ffffffffffc 8\n", "bad.trace:1: range beyond" },
		{ "0\n", "bad.trace:1: missing operation" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spawn_result r;
		const char *path = scratch_file("bad.trace", cases[i].trace);
		run(&r, NULL, "replay", path, NULL);
		refused_with(&r, i, cases[i].message);
	}
}
END_TEST

START_TEST(replay_missing_file)
{
	struct spawn_result r;

	run(&r, NULL, "replay", "/nonexistent/trace", NULL);
	ck_assert_int_eq(r.status, 1);
	ck_assert(strstr(r.err, "/nonexistent/trace") != NULL);
	spawn_free(&r);
	run(&r, NULL, "replay", NULL);
	ck_assert_int_eq(r.status, 2);
	spawn_free(&r);
}
END_TEST

/* --profile, then report --tuples on it: the rows follow from the
 * activations printed by replay. */
START_TEST(replay_profile_and_tuples)
{
	struct spawn_result r;
	char profile[512];
	const char *trace = scratch_file(
		"p.trace", "3 call f\n3 read 0 8\n3 return\n"
			   "3 call f\n3 read 0 8\n3 read 16 4\n3 return\n"
			   "3 call f\n3 read 0 8\n3 return\n"
			   "7 call g\n7 kwrite 0 4\n7 read 0 4\n7 return\n");

	snprintf(profile, sizeof(profile), "%s/out.trms", scratch);
	run(&r, NULL, "replay", "--profile", profile, trace, NULL);
	ck_assert_int_eq(r.status, 0);
	spawn_free(&r);
	run(&r, NULL, "report", "--tuples", profile, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(
		r.out,
		"region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
		"induced_thread\tinduced_external\n"
		"f\t3\ttrms\t2\t2\t1\t1\t2\t2\t0\t0\n"
		"f\t3\ttrms\t3\t1\t2\t2\t2\t4\t0\t0\n"
		"f\t3\trms\t2\t2\t1\t1\t2\t2\t0\t0\n"
		"f\t3\trms\t3\t1\t2\t2\t2\t4\t0\t0\n"
		"g\t7\ttrms\t1\t1\t2\t2\t2\t4\t0\t1\n"
		"g\t7\trms\t1\t1\t2\t2\t2\t4\t0\t1\n");
	spawn_free(&r);
	/* Two copies merge: counts and sums double, bounds stay. */
	run(&r, NULL, "report", "--tuples", profile, profile, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "f\t3\ttrms\t2\t4\t1\t1\t4\t4\t0\t0\n") != NULL);
	spawn_free(&r);
}
END_TEST

/* A directory stands for the profiles in it (*.trms, not hidden ones):
 * for report and merge as the files named one by one; a directory with
 * none is an error naming it. */
START_TEST(report_and_merge_take_directories)
{
	struct spawn_result r, one_by_one;
	char dir[400], a[450], b[450], merged[450], empty[400];
	const char *trace = scratch_file(
		"d.trace", "3 call f\n3 read 0 8\n3 return\n"
			   "7 call g\n7 kwrite 0 4\n7 read 0 4\n7 return\n");

	snprintf(dir, sizeof(dir), "%s/profiles", scratch);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	snprintf(a, sizeof(a), "%s/a.trms", dir);
	snprintf(b, sizeof(b), "%s/b.trms", dir);
	for (int i = 0; i < 2; i++) {
		run(&r, NULL, "replay", "--profile", i ? b : a, trace, NULL);
		ck_assert_int_eq(r.status, 0);
		spawn_free(&r);
	}
	scratch_file("profiles/.hidden.trms", "not a profile\n");
	scratch_file("profiles/notes.txt", "not a profile\n");
	run(&one_by_one, NULL, "report", "--tuples", a, b, NULL);
	ck_assert_int_eq(one_by_one.status, 0);
	run(&r, NULL, "report", "--tuples", dir, NULL);
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_str_eq(r.out, one_by_one.out);
	spawn_free(&r);
	spawn_free(&one_by_one);
	snprintf(merged, sizeof(merged), "%s/merged.trms", scratch);
	run(&r, NULL, "merge", "-o", merged, dir, NULL);
	ck_assert_msg(r.status == 0, "%s", r.err);
	spawn_free(&r);
	run(&r, NULL, "report", "--tuples", merged, NULL);
	ck_assert(strstr(r.out, "f\t3\ttrms\t2\t2\t") != NULL);
	spawn_free(&r);
	snprintf(empty, sizeof(empty), "%s/empty", scratch);
	ck_assert_int_eq(mkdir(empty, 0777), 0);
	run(&r, NULL, "report", empty, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "empty: no profile (*.trms) in this "
				    "directory"),
		      "%s", r.err);
	spawn_free(&r);
	run(&r, NULL, "merge", "-o", merged, empty, NULL);
	ck_assert_int_eq(r.status, 2);
	spawn_free(&r);
}
END_TEST

/* Bad profiles: one message naming file and line, exit 2. */
START_TEST(report_rejects_bad_profiles)
{
	static const struct {
		const char *name, *text, *message;
	} cases[] = {
		{ "empty.trms", "", "empty.trms: empty file" },
		{ "other.trms", "hello\n", "other.trms:1: not a trms profile" },
		{ "v9.trms", "trms-profile 9\nend 0\n",
		  "v9.trms:1: profile format version 9" },
		{ "trunc.trms",
		  "trms-profile 1\nregion 0 f\nthread 0\n"
		  "tuple 0 0 trms 1 1 2 2 2 4 0 0\n",
		  "trunc.trms:5: truncated profile" },
		{ "cut.trms", "trms-profile 1\nregion 0 f\nthread 0\ntuple 0 0",
		  "cut.trms:4: truncated line" },
		{ "count.trms", "trms-profile 1\nend 3\n",
		  "count.trms:2: end line promises 3" },
		{ "undeclared.trms",
		  "trms-profile 1\nthread 0\ntuple 5 0 trms 1 1 2 2 2 4 0 0\n"
		  "end 1\n",
		  "undeclared.trms:3: tuple for undeclared region 5" },
		{ "number.trms",
		  "trms-profile 1\nregion 0 f\nthread 0\n"
		  "tuple 0 0 trms 1 x 2 2 2 4 0 0\nend 1\n",
		  "number.trms:4: bad number" },
		{ "metric.trms",
		  "trms-profile 1\nregion 0 f\nthread 0\n"
		  "tuple 0 0 wrong 1 1 2 2 2 4 0 0\nend 1\n",
		  "metric.trms:4: unknown metric" },
		{ "garbage.trms", "trms-profile 1\n\x01\x02\nend 0\n",
		  "garbage.trms:2: unknown line type" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spawn_result r;
		const char *path = scratch_file(cases[i].name, cases[i].text);
		run(&r, NULL, "report", "--tuples", path, NULL);
		refused_with(&r, i, cases[i].message);
	}
}
END_TEST

START_TEST(help_and_usage)
{
	struct spawn_result r;

	run(&r, NULL, "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "replay") && strstr(r.out, "TRMS_OUTPUT"));
	spawn_free(&r);
	run(&r, NULL, "replay", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "--granularity") && strstr(r.out, "--profile"));
	spawn_free(&r);
	run(&r, NULL, "frobnicate", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert(strstr(r.err, "unknown command 'frobnicate'") != NULL);
	spawn_free(&r);
	run(&r, NULL, "version", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strncmp(r.out, "trms ", 5) == 0);
	spawn_free(&r);
}
END_TEST

/* The sampling options become the library's settings, and bad values
 * are refused before anything runs.  (/dev/null stands in for the
 * library: the loader ignores it, so this works in sanitizer builds.) */
START_TEST(run_sampling_options)
{
	struct spawn_result r;

	run(&r, NULL, "run", "--library", "/dev/null", "-F", "1000",
	    "--sample-clock", "wall", "--", "sh", "-c",
	    "echo \"$TRMS_SAMPLE_HZ $TRMS_SAMPLE_CLOCK\"", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "1000 wall\n");
	spawn_free(&r);
	static const char *const bad[][2] = {
		{ "-F", "10001" }, { "-F", "-1" }, { "-F", "" },
		{ "-F", "12x" }, { "--sample-clock", "cycles" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, NULL, "run", "--library", "/dev/null", bad[i][0],
		    bad[i][1], "--", "sh", "-c", "echo ran", NULL);
		ck_assert_int_eq(r.status, 2);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.err, "--sample-"),
			      "no message naming the option: %s", r.err);
		spawn_free(&r);
	}
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = suite_case(s, "cli", 60, setup, teardown);

	SUITE_TESTS(tc, replay_prints_activations,
		    replay_closes_pending_in_order, replay_granularity_option,
		    replay_rejects_malformed_lines, replay_missing_file,
		    replay_profile_and_tuples, report_rejects_bad_profiles,
		    report_and_merge_take_directories, help_and_usage,
		    run_sampling_options);
	return s;
}

int main(void)
{
	return run_suite(cli_suite());
}
