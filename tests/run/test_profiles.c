/*
 * test_profiles.c - the profile's way out of a process under `trms run`:
 * every profile of the tree in the one directory trms run fixed at start,
 * whatever the processes do (cd, drop privileges, outlive trms run),
 * nothing else left behind, the summary saying where; nothing from
 * processes that recorded nothing (--all keeps them); SIGTERM or SIGKILL
 * at a process's exit; RLIMIT_FSIZE; %e; the wall clock's delivered rate;
 * the cost clock chosen only by a process that has a region.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "scratch.h"
#include "suite_main.h"

/* ---- where profiles go ---- */

/* Each process of a tree that changes directory, in one directory
 * trms-NAME.PID/ in the working directory; trms report and merge read
 * the directory. */
START_TEST(profiles_of_a_tree_in_one_directory)
{
	struct spawn_result b;
	char dir[512], all[600];
	struct listing l;

	start_run(&b, NULL, "--all", "--", "/bin/sh", "-c",
		  "cd / && ls >/dev/null; cd /tmp && ls >/dev/null", NULL);
	ck_assert_int_eq(finish(&b, 20000), 0);
	ck_assert_msg(run_directory("trms-sh.", dir, sizeof(dir)),
		      "no trms-sh.PID directory; stderr:\n%s", b.err);
	list_dir(dir, &l);
	ck_assert_msg(l.profiles >= 3 && !l.others,
		      "%zu profiles, others: %s", l.profiles, l.names);
	list_dir(scratch, &l);
	ck_assert_msg(l.others == 2, "in the working directory: %s", l.names);
	ck_assert_msg(!strstr(b.err, "internal error"), "stderr:\n%s", b.err);
	const char *slash = strrchr(dir, '/');
	char expected[600];
	snprintf(expected, sizeof(expected),
		 "profiles in %s/; read them with: trms report %s/\n",
		 slash + 1, slash + 1);
	ck_assert_msg(strstr(b.err, expected), "stderr:\n%s", b.err);
	spawn_free(&b);

	char *report[] = { (char *)test_env("TRMS_BIN"), "report", dir, NULL };
	start(&b, report, scratch, NULL, NULL);
	ck_assert_msg(finish(&b, 20000) == 0, "stderr:\n%s", b.err);
	spawn_free(&b);
	snprintf(all, sizeof(all), "%s/all.trms", scratch);
	char *merge[] = { (char *)test_env("TRMS_BIN"), "merge", "-o", all,
			  dir, NULL };
	start(&b, merge, scratch, NULL, NULL);
	ck_assert_msg(finish(&b, 20000) == 0, "stderr:\n%s", b.err);
	ck_assert(complete_profile(all));
	spawn_free(&b);
}
END_TEST

/* -o relative to trms run's directory, not to where each process is. */
START_TEST(output_template_fixed_at_start)
{
	struct spawn_result b;
	char dir[512];
	struct listing l;

	snprintf(dir, sizeof(dir), "%s/prof", scratch);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	start_run(&b, NULL, "--all", "-o", "prof/%e.%p.trms", "--", "/bin/sh",
		  "-c", "cd /tmp && exec ls", NULL);
	ck_assert_int_eq(finish(&b, 20000), 0);
	list_dir(dir, &l);
	ck_assert_msg(l.profiles == 2 && !l.others, "%zu profiles, others %s; "
		      "stderr:\n%s", l.profiles, l.names, b.err);
	ck_assert_msg(strstr(b.err, "trms report prof/"), "stderr:\n%s", b.err);
	spawn_free(&b);
}
END_TEST

/* -o naming a file: the summary lists the files written, never the
 * directory they are in, which may hold other profiles that trms report
 * would read with them. */
START_TEST(file_template_summary_names_the_files)
{
	struct spawn_result b;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/shared", scratch);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	start_run(&b, NULL, "--all", "-o", "shared/run.trms", "--", "/bin/sh",
		  "-c", "ls >/dev/null", NULL);
	ck_assert_int_eq(finish(&b, 20000), 0);
	ck_assert_msg(strstr(b.err, "2 profiles (shared/run.trms); read them "
				    "with: trms report shared/run."),
		      "stderr:\n%s", b.err);
	ck_assert_msg(strstr(b.err, " shared/run.trms\n") ||
			      strstr(b.err, " shared/run.trms "),
		      "stderr:\n%s", b.err);
	ck_assert_msg(!strstr(b.err, "trms report shared/\n") &&
			      !strstr(b.err, "in shared/"),
		      "stderr:\n%s", b.err);
	spawn_free(&b);
}
END_TEST

/* A process that recorded nothing leaves nothing (the directory made
 * for it goes too); --all keeps it. */
START_TEST(recorded_nothing_leaves_nothing)
{
	struct spawn_result b;
	char dir[512];
	struct listing l;

	start_run(&b, NULL, "--", "/bin/true", NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	ck_assert_msg(strstr(b.err, "1 process, no profile: it recorded "
				    "nothing"),
		      "stderr:\n%s", b.err);
	ck_assert(!run_directory("trms-true.", dir, sizeof(dir)));
	spawn_free(&b);
	start_run(&b, NULL, "--all", "--", "/bin/true", NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	ck_assert(run_directory("trms-true.", dir, sizeof(dir)));
	list_dir(dir, &l);
	ck_assert_msg(l.profiles == 1, "stderr:\n%s", b.err);
	spawn_free(&b);
}
END_TEST

/* A daemon that outlives trms run: trms run says it is still running,
 * and its profile comes later, into the same directory. */
START_TEST(daemon_profile_comes_later)
{
	struct spawn_result b;
	char dir[512], proc[64];
	struct listing l;

	start_run(&b, NULL, "--", probe(), "daemon", "1000", NULL);
	/* The pipes close when the daemon ends: trms run is long gone. */
	ck_assert_int_eq(finish(&b, 20000), 0);
	int daemon = atoi(b.out);
	ck_assert_msg(daemon > 0, "stdout %s", b.out);
	char said[128];
	snprintf(said, sizeof(said), "1 process of this run is still running "
				     "(pid %d)",
		 daemon);
	ck_assert_msg(strstr(b.err, said), "stderr:\n%s", b.err);
	snprintf(proc, sizeof(proc), "/proc/%d", daemon);
	for (int i = 0; i < 500 && access(proc, F_OK) == 0; i++)
		pause_ms(10);
	ck_assert(run_directory("trms-run-probe.", dir, sizeof(dir)));
	list_dir(dir, &l);
	ck_assert_msg(l.profiles == 1 && !l.others, "%zu profiles, others %s",
		      l.profiles, l.names);
	spawn_free(&b);
}
END_TEST

/* The name the program was started as: a symbolic link's, not its
 * target's. */
START_TEST(program_named_as_started)
{
	struct spawn_result b;
	char link_path[512], dir[512], name[256];
	struct listing l;

	snprintf(link_path, sizeof(link_path), "%s/alias-of-probe", scratch);
	ck_assert_int_eq(symlink(probe(), link_path), 0);
	start_run(&b, NULL, "--all", "--", link_path, "signals", NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	ck_assert(run_directory("trms-alias-of-probe.", dir, sizeof(dir)));
	list_dir(dir, &l);
	ck_assert_int_eq(l.profiles, 1);
	DIR *d = opendir(dir);
	struct dirent *e;
	name[0] = '\0';
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(d);
	ck_assert_msg(!strncmp(name, "alias-of-probe.", 15), "profile %s",
		      name);
	spawn_free(&b);
}
END_TEST

/* ---- the exit ---- */

/* Workers that exit while their supervisor sends them SIGTERM, each as
 * soon as the library said it began the exit's write: none dies of it,
 * every profile is complete, nothing else is left. */
static void check_exit_race(const char *dir, struct spawn_result *b)
{
	struct listing l;
	int killed = -1, exited = -1, marked = -1;

	ck_assert_msg(sscanf(b->out, "killed %d exited %d marked %d", &killed,
			     &exited, &marked) == 3,
		      "stdout %s; stderr:\n%.2000s", b->out, b->err);
	ck_assert_msg(marked == 40, "%d workers said they were writing",
		      marked);
	ck_assert_msg(killed == 0 && exited == 40,
		      "%d workers died of SIGTERM, %d exited 0", killed,
		      exited);
	list_dir(dir, &l);
	ck_assert_msg(l.profiles == 41 && !l.others,
		      "%zu complete profiles, others: %s", l.profiles, l.names);
}

START_TEST(sigterm_at_exit_under_trms_run)
{
	struct spawn_result b;
	char dir[512];

	start_run(&b, NULL, "-vv", "--", probe(), "exit-race", "40",
		  "exit: writing the profile", NULL);
	ck_assert_int_eq(finish(&b, 60000), 0);
	ck_assert(run_directory("trms-run-probe.", dir, sizeof(dir)));
	check_exit_race(dir, &b);
	assert_tmp_empty();
	spawn_free(&b);
}
END_TEST

START_TEST(sigterm_at_exit_writing_files)
{
	struct spawn_result b;
	char dir[512], output[600], preload[4200];
	char *argv[] = { (char *)probe(), "exit-race", "40",
			 "exit: writing the profile", NULL };

	snprintf(dir, sizeof(dir), "%s/prof", scratch);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	snprintf(output, sizeof(output), "TRMS_OUTPUT=%s/%%e.%%p.trms", dir);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
		 test_env("TRMS_LIB"));
	char *env[] = { output, preload, "TRMS_VERBOSE=2", NULL };
	start(&b, argv, scratch, env, NULL);
	ck_assert_int_eq(finish(&b, 60000), 0);
	check_exit_race(dir, &b);
	spawn_free(&b);
}
END_TEST

/* Workers killed (SIGKILL) as soon as they began the exit's write: what
 * they were writing goes with them (an unnamed file, or a connection cut
 * short); only complete profiles are left, nothing else. */
START_TEST(killed_while_writing_leaves_nothing)
{
	struct spawn_result b;
	char dir[512], output[600], preload[4200], number[16];
	struct listing l;

	snprintf(number, sizeof(number), "%d", SIGKILL);
	snprintf(dir, sizeof(dir), "%s/prof", scratch);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	snprintf(output, sizeof(output), "TRMS_OUTPUT=%s/%%e.%%p.trms", dir);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
		 test_env("TRMS_LIB"));
	char *env[] = { output, preload, "TRMS_VERBOSE=2", NULL };
	char *argv[] = { (char *)probe(), "exit-race", "40",
			 "exit: writing the profile", number, NULL };
	start(&b, argv, scratch, env, NULL);
	ck_assert_int_eq(finish(&b, 60000), 0);
	list_dir(dir, &l);
	ck_assert_msg(!l.others, "left: %s", l.names);
	printf("SIGKILL at the exit's write (files): %s", b.out);
	spawn_free(&b);

	start_run(&b, NULL, "-vv", "--", probe(), "exit-race", "40",
		  "exit: writing the profile", number, NULL);
	ck_assert_int_eq(finish(&b, 60000), 0);
	ck_assert(run_directory("trms-run-probe.", dir, sizeof(dir)));
	list_dir(dir, &l);
	ck_assert_msg(!l.others, "left: %s", l.names);
	printf("SIGKILL at the exit's write (trms run): %s", b.out);
	assert_tmp_empty();
	spawn_free(&b);
}
END_TEST

static void limit_file_size(void)
{
	/* Smaller than any profile: the header alone is longer. */
	struct rlimit limit = { 100, RLIM_INFINITY };

	setrlimit(RLIMIT_FSIZE, &limit);
}

/* trms run itself under a file size limit smaller than the profile: no
 * SIGXFSZ, the command's status, the reason said, no file. */
START_TEST(file_size_limit_of_trms_run)
{
	struct spawn_result b;
	char dir[512];
	struct listing l;

	start_run(&b, limit_file_size, "--all", "--", "/bin/sh", "-c",
		  "exit 3", NULL);
	int status = finish(&b, 10000);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 3,
		      "status %#x; stderr:\n%s", status, b.err);
	ck_assert_msg(strstr(b.err, "profile NOT written: ") &&
			      strstr(b.err, "File too large"),
		      "stderr:\n%s", b.err);
	/* Nothing came into the directory trms run made: it is gone. */
	ck_assert(!run_directory("trms-sh.", dir, sizeof(dir)));
	list_dir(scratch, &l);
	ck_assert_msg(l.others == 1, "left: %s", l.names);
	spawn_free(&b);
}
END_TEST

/* ---- sampling ---- */

/* Under the wall clock a thread is sampled per second of its elapsed
 * time, whether it works or sleeps: the rate delivered is the rate
 * asked, per thread and second of elapsed time. */
START_TEST(wall_clock_rate_delivered)
{
	struct spawn_result b;
	char path[512], line[256];
	long hz = -1;

	start_run(&b, NULL, "--sample-clock", "wall", "-o", "wall.trms", "--",
		  "/bin/sleep", "0.6", NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	snprintf(path, sizeof(path), "%s/wall.trms", scratch);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s; stderr:\n%s", path, b.err);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "meta sample_hz_delivered %ld", &hz);
	fclose(f);
	ck_assert_msg(hz >= 80 && hz <= 110,
		      "100 Hz of wall-clock time asked, %ld delivered", hz);
	spawn_free(&b);
}
END_TEST

/* In the profile @name (in the scratch directory): the number of objects
 * listed, the samples taken and those dropped as not unwound. */
static void objects_and_samples(const char *name, long *objects,
				long *samples, long *unwound_not)
{
	char path[512], line[4096];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s", path);
	*objects = 0;
	*samples = *unwound_not = -1;
	while (fgets(line, sizeof(line), f)) {
		*objects += !strncmp(line, "module ", 7);
		sscanf(line, "meta samples %ld", samples);
		sscanf(line, "meta samples_dropped_unwind %ld", unwound_not);
	}
	fclose(f);
}

/* The table of loaded objects is taken at the first sample, in the
 * handler, not at start: a process never sampled lists none, and one
 * sampled loses no sample to it. */
START_TEST(objects_taken_at_the_first_sample)
{
	struct spawn_result b;
	long objects, samples, unwound_not;

	start_run(&b, NULL, "--all", "-o", "idle.trms", "--", "/bin/true",
		  NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	objects_and_samples("idle.trms", &objects, &samples, &unwound_not);
	ck_assert_int_eq(samples, 0);
	ck_assert_int_eq(objects, 0);
	spawn_free(&b);
	/* A shell counting for some 0.2 s of CPU time, on one thread. */
	start_run(&b, NULL, "-o", "busy.trms", "--", "/bin/sh", "-c",
		  "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done", NULL);
	ck_assert_int_eq(finish(&b, 60000), 0);
	objects_and_samples("busy.trms", &objects, &samples, &unwound_not);
	ck_assert_msg(samples >= 5, "%ld samples", samples);
	ck_assert_int_eq(unwound_not, 0);
	ck_assert_msg(objects >= 3, "%ld objects", objects);
	spawn_free(&b);
}
END_TEST

/* Run @argv with the library preloaded after open_log.so; whether it
 * opened the kernel's clock source (the cost clock's choice). */
static bool opens_clock_source(char *const argv[], const char *log_name)
{
	char preload[1024], log_env[600], log_path[512], line[4096];
	struct spawn_result b;
	bool opened = false;

	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s:%s",
		 getenv("OPEN_LOG_LIB"), getenv("TRMS_LIB"));
	snprintf(log_path, sizeof(log_path), "%s/%s", scratch, log_name);
	snprintf(log_env, sizeof(log_env), "OPEN_LOG=%s", log_path);
	char *const env[] = { preload, log_env, "TRMS_SAMPLE_HZ=0", NULL };
	start(&b, argv, scratch, env, NULL);
	ck_assert_int_eq(finish(&b, 10000), 0);
	spawn_free(&b);
	FILE *f = fopen(log_path, "r");
	while (f && fgets(line, sizeof(line), f))
		opened |= strstr(line, "current_clocksource") != NULL;
	if (f)
		fclose(f);
	return opened;
}

/* The processor says its TSC is invariant: then the choice between it and
 * CLOCK_MONOTONIC asks the kernel, in sysfs. */
static bool invariant_tsc(void)
{
#if defined(__x86_64__)
	unsigned eax = 0x80000007, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid"
			 : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return (edx >> 8) & 1;
#else
	return false;
#endif
}

/* The cost clock is chosen (a file read in sysfs) only by a process that
 * measures costs: not by /bin/true, but by a program that opens a region
 * through the API it finds at run time (where the TSC is invariant:
 * elsewhere no file is needed, and the check that the log works is
 * skipped). */
START_TEST(clock_chosen_only_with_a_region)
{
	char *const idle[] = { "/bin/true", NULL };
	char *const region[] = { (char *)probe(), "region", NULL };

	ck_assert(!opens_clock_source(idle, "true.opens"));
	if (invariant_tsc())
		ck_assert(opens_clock_source(region, "region.opens"));
}
END_TEST

/* ---- privileges (root only) ---- */

/* A child that becomes nobody after fork: its profile is handed to trms
 * run (which writes it as root, in a directory nobody may not write to)
 * and listed with the others. */
START_TEST(profile_of_a_process_that_became_nobody)
{
	struct spawn_result b;
	char dir[512];
	struct listing l;

	start_run(&b, NULL, "--", probe(), "nobody", NULL);
	int status = finish(&b, 20000);
	ck_assert_msg(status == 0, "status %#x; stderr:\n%s", status, b.err);
	ck_assert(run_directory("trms-run-probe.", dir, sizeof(dir)));
	list_dir(dir, &l);
	ck_assert_msg(l.profiles == 2 && !l.others,
		      "%zu profiles, others %s; stderr:\n%s", l.profiles,
		      l.names, b.err);
	ck_assert_msg(strstr(b.err, "2 processes, 2 profiles in"),
		      "stderr:\n%s", b.err);
	spawn_free(&b);
}
END_TEST

void add_profile_tests(TCase *tc)
{
	SUITE_TESTS(tc, profiles_of_a_tree_in_one_directory,
		    output_template_fixed_at_start,
		    file_template_summary_names_the_files,
		    recorded_nothing_leaves_nothing, daemon_profile_comes_later,
		    program_named_as_started, sigterm_at_exit_under_trms_run,
		    sigterm_at_exit_writing_files,
		    killed_while_writing_leaves_nothing,
		    file_size_limit_of_trms_run, wall_clock_rate_delivered,
		    objects_taken_at_the_first_sample,
		    clock_chosen_only_with_a_region);
}

void add_privilege_tests(TCase *tc)
{
	tcase_add_test(tc, profile_of_a_process_that_became_nobody);
}
