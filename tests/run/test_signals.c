/*
 * test_signals.c - signals between the caller, `trms run` and the
 * command: the command inherits the dispositions and mask trms run was
 * given (nohup); every signal sent to trms run reaches the command, and
 * trms run ends as the command did; the terminal's signals are not
 * doubled; a stop of the command stops trms run.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "suite_main.h"

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

void add_signal_tests(TCase *tc)
{
	SUITE_TESTS(tc, command_inherits_dispositions_and_mask,
		    signals_sent_to_trms_run_reach_the_command,
		    signal_that_kills_the_command_kills_trms_run,
		    terminal_signals_are_not_doubled,
		    trms_run_stops_with_the_command);
}
