/*
 * test_run.c - `trms run` and the profile's way out of a process:
 *
 *  - the command inherits the signal dispositions and mask trms run was
 *    given (nohup); every signal a process sends to trms run reaches the
 *    command, trms run ends with the command's status; the terminal's
 *    signals are not doubled; a stop of the command stops trms run;
 *  - every profile of the tree lands in the one directory trms run fixed
 *    at start, whatever the processes do (cd, drop privileges, outlive
 *    trms run), nothing else is left behind, and the summary says where;
 *  - processes that recorded nothing leave no profile (--all keeps them);
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
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"

static char scratch[256];
static char tmpdir_env[320];

static void setup(void)
{
	char tmp[300];

	scratch_make(scratch, sizeof(scratch), "run");
	/* Whatever trms run or the library might leave in TMPDIR shows. */
	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	ck_assert_int_eq(mkdir(tmp, 0777), 0);
	snprintf(tmpdir_env, sizeof(tmpdir_env), "TMPDIR=%s", tmp);
}

static void teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

/* Start @argv in @dir (NULL: here) with @env added to the environment;
 * @prepare (may be NULL) runs in the child just before exec. */
static void start(struct spawn_result *b, char *const argv[],
		  const char *dir, char *const env[], void (*prepare)(void))
{
	struct spawn_options options = { .dir = dir, .env = env,
					 .prepare = prepare };

	spawn_start(b, argv, &options);
}

/* Read everything and wait for its end: its wait status.  Still running
 * after @timeout_ms, it is killed, which fails the test. */
static int finish(struct spawn_result *b, int timeout_ms)
{
	int status = spawn_finish(b, timeout_ms);

	ck_assert_msg(!b->timed_out, "%d still running after %d ms; stderr:\n%s",
		      (int)b->pid, timeout_ms, b->err);
	return status;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Start `trms run ARGS...` in the scratch directory (NULL-terminated
 * arguments after @prepare). */
static void start_run(struct spawn_result *b, void (*prepare)(void), ...)
{
	char *argv[32], *env[] = { tmpdir_env, NULL };
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)test_env("TRMS_BIN");
	argv[n++] = "run";
	va_start(ap, prepare);
	for (char *arg; (arg = va_arg(ap, char *)) && n < 31;)
		argv[n++] = arg;
	va_end(ap);
	argv[n] = NULL;
	start(b, argv, scratch, env, prepare);
}

static const char *probe(void)
{
	return test_env("RUN_PROBE");
}

/* ---- what is in the scratch directory ---- */

/* Whether @path is a complete profile: its first line and its "end". */
static bool complete_profile(const char *path)
{
	char line[512], last[512] = "";
	FILE *f = fopen(path, "r");
	bool first_ok;

	if (!f)
		return false;
	first_ok = fgets(line, sizeof(line), f) &&
		   !strcmp(line, "trms-profile 1\n");
	while (fgets(line, sizeof(line), f))
		strcpy(last, line);
	fclose(f);
	return first_ok && !strncmp(last, "end ", 4);
}

struct listing {
	size_t profiles;  /* complete *.trms files */
	size_t others;    /* anything else (temporary files, broken ones) */
	char names[2048]; /* of the others */
};

/* What is in @dir (not recursive). */
static void list_dir(const char *dir, struct listing *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	memset(l, 0, sizeof(*l));
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".trms") &&
		    complete_profile(path)) {
			l->profiles++;
		} else {
			l->others++;
			strncat(l->names, e->d_name,
				sizeof(l->names) - strlen(l->names) - 2);
			strcat(l->names, " ");
		}
	}
	closedir(d);
}

/* The one directory trms run made in the scratch directory (its name
 * starting with @prefix), into @out; false if none. */
static bool run_directory(const char *prefix, char *out, size_t len)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			ck_assert_msg(!found, "two directories %s*", prefix);
			snprintf(out, len, "%s/%s", scratch, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Nothing was left in TMPDIR. */
static void assert_tmp_empty(void)
{
	struct listing l;
	char tmp[300];

	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	list_dir(tmp, &l);
	ck_assert_msg(!l.profiles && !l.others, "left in TMPDIR: %s", l.names);
}

/* ---- signals ---- */

/* nohup: SIGHUP ignored; and a signal blocked in the mask. */
static void ignore_hup_block_usr2(void)
{
	sigset_t set;

	signal(SIGHUP, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

START_TEST(command_inherits_dispositions_and_mask)
{
	struct spawn_result plain, run;
	char *argv[] = { (char *)probe(), "signals", NULL };

	start(&plain, argv, scratch, NULL, ignore_hup_block_usr2);
	ck_assert_int_eq(finish(&plain, 10000), 0);
	start_run(&run, ignore_hup_block_usr2, "--", probe(), "signals", NULL);
	ck_assert_int_eq(finish(&run, 10000), 0);
	ck_assert_msg(strstr(plain.out, "ignored: 1\n") &&
			      strstr(plain.out, "blocked: 12\n"),
		      "the probe does not see its own setting:\n%s", plain.out);
	ck_assert_msg(!strcmp(run.out, plain.out),
		      "under trms run:\n%swithout:\n%s", run.out, plain.out);
	spawn_free(&plain);
	spawn_free(&run);
}
END_TEST

/* Default dispositions (a test runner may leave some ignored). */
static void default_signals(void)
{
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* @sig sent to trms run reaches the command, which exits with the
 * signal's number; trms run ends with that status, leaving nothing. */
static void passes_on(int sig)
{
	struct spawn_result b;
	char got[32];

	start_run(&b, default_signals, "--all", "--", probe(), "wait", NULL);
	ck_assert_msg(spawn_wait_for(&b, "ready\n", 10000),
		      "the probe did not start: %s", b.err);
	ck_assert_int_eq(kill(b.pid, sig), 0);
	int status = finish(&b, 10000);
	snprintf(got, sizeof(got), "got %d\n", sig);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == sig,
		      "signal %d: trms run status %#x (expected exit %d); "
		      "stdout %s; stderr:\n%s",
		      sig, status, sig, b.out, b.err);
	ck_assert_msg(strstr(b.out, got), "signal %d: stdout %s", sig, b.out);
	ck_assert_msg(strstr(b.err, "1 process, 1 profile in trms-"),
		      "signal %d: stderr:\n%s", sig, b.err);
	assert_tmp_empty();
	spawn_free(&b);
}

START_TEST(signals_sent_to_trms_run_reach_the_command)
{
	static const int sigs[] = { SIGUSR1, SIGQUIT, SIGHUP, SIGTERM,
				    SIGINT,  SIGALRM, SIGWINCH };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		passes_on(sigs[i]);
	passes_on(SIGRTMIN + 1);
}
END_TEST

/* A signal that kills the command kills trms run the same way, and trms
 * run says what happened. */
START_TEST(signal_that_kills_the_command_kills_trms_run)
{
	struct spawn_result b;

	start_run(&b, default_signals, "--", probe(), "wait", NULL);
	ck_assert(spawn_wait_for(&b, "ready\n", 10000));
	ck_assert_int_eq(kill(b.pid, SIGUSR2), 0);
	int status = finish(&b, 10000);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2,
		      "trms run status %#x; stderr:\n%s", status, b.err);
	ck_assert_msg(strstr(b.err, "died of signal 12 ("),
		      "stderr:\n%s", b.err);
	ck_assert_msg(!strstr(b.err, "statically linked"), "stderr:\n%s",
		      b.err);
	assert_tmp_empty();
	spawn_free(&b);

	/* SIGKILL: nothing can be written; say so, not that the library
	 * was not loaded. */
	start_run(&b, default_signals, "--", "/bin/sh", "-c", "kill -KILL $$",
		  NULL);
	status = finish(&b, 10000);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "status %#x", status);
	ck_assert_msg(strstr(b.err, "died of signal 9 (Killed)") &&
			      !strstr(b.err, "statically linked"),
		      "stderr:\n%s", b.err);
	spawn_free(&b);
}
END_TEST

/* A terminal for the run: its own session, the pty its controlling
 * terminal, trms run the foreground process group. */
static char pty_slave[128];

static void on_pty(void)
{
	default_signals();
	setsid();
	int fd = open(pty_slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0))
		_exit(125);
	dup2(fd, 0);
}

/* ^C on the terminal reaches the command once: the terminal signals the
 * whole foreground group, trms run does not pass it on again. */
START_TEST(terminal_signals_are_not_doubled)
{
	struct spawn_result b;
	int master, slave;
	char number[16];

	if (openpty(&master, &slave, pty_slave, NULL, NULL)) {
		printf("no pseudo-terminal (%s): ^C not tested\n",
		       strerror(errno));
		return;
	}
	snprintf(number, sizeof(number), "%d", SIGINT);
	start_run(&b, on_pty, "--", probe(), "count", number, "1500", NULL);
	close(slave);
	ck_assert_msg(spawn_wait_for(&b, "ready\n", 10000), "stderr:\n%s",
		      b.err);
	pause_ms(100);
	ck_assert_int_eq(write(master, "\003", 1), 1);
	int status = finish(&b, 10000);
	close(master);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "status %#x; stderr:\n%s", status, b.err);
	ck_assert_msg(strstr(b.out, "count 1\n"),
		      "^C reached the command other than once: %s", b.out);
	spawn_free(&b);
}
END_TEST

/* A stop passed on to the command stops trms run too (a shell sees the
 * job stopped); SIGCONT continues both. */
START_TEST(trms_run_stops_with_the_command)
{
	struct spawn_result b;
	int status;

	start_run(&b, default_signals, "--", probe(), "wait", NULL);
	ck_assert(spawn_wait_for(&b, "ready\n", 10000));
	ck_assert_int_eq(kill(b.pid, SIGTSTP), 0);
	ck_assert_int_eq(waitpid(b.pid, &status, WUNTRACED), b.pid);
	ck_assert_msg(WIFSTOPPED(status), "status %#x", status);
	ck_assert_int_eq(kill(b.pid, SIGCONT), 0);
	pause_ms(200);
	ck_assert_int_eq(kill(b.pid, SIGUSR1), 0);
	status = finish(&b, 10000);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == SIGUSR1,
		      "status %#x; stdout %s; stderr:\n%s", status, b.out,
		      b.err);
	spawn_free(&b);
}
END_TEST

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
	struct rlimit limit = { 1000, RLIM_INFINITY };

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

static Suite *privileges_suite(void)
{
	Suite *s = suite_create("run-privileges");
	TCase *tc = tcase_create("privileges");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, profile_of_a_process_that_became_nobody);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *run_suite_make(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("signals");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, command_inherits_dispositions_and_mask);
	tcase_add_test(tc, signals_sent_to_trms_run_reach_the_command);
	tcase_add_test(tc, signal_that_kills_the_command_kills_trms_run);
	tcase_add_test(tc, terminal_signals_are_not_doubled);
	tcase_add_test(tc, trms_run_stops_with_the_command);
	suite_add_tcase(s, tc);
	tc = tcase_create("profiles");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, profiles_of_a_tree_in_one_directory);
	tcase_add_test(tc, output_template_fixed_at_start);
	tcase_add_test(tc, recorded_nothing_leaves_nothing);
	tcase_add_test(tc, daemon_profile_comes_later);
	tcase_add_test(tc, program_named_as_started);
	tcase_add_test(tc, sigterm_at_exit_under_trms_run);
	tcase_add_test(tc, sigterm_at_exit_writing_files);
	tcase_add_test(tc, killed_while_writing_leaves_nothing);
	tcase_add_test(tc, file_size_limit_of_trms_run);
	tcase_add_test(tc, wall_clock_rate_delivered);
	suite_add_tcase(s, tc);
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
