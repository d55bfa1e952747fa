/*
 * run_probe.c - a program for test_run.c to run under `trms run` (not
 * linked with trms: trms run preloads the library):
 *
 *   run_probe signals      print the signals it was given ignored and
 *                          blocked: "ignored: N N ...", "blocked: N ..."
 *   run_probe wait         handle SIGUSR1, SIGQUIT, SIGHUP, SIGTERM,
 *                          SIGINT, SIGALRM, SIGWINCH and SIGRTMIN+1
 *                          (not SIGUSR2), print "ready", and exit with the
 *                          number of the first signal that comes (after
 *                          printing "got N"); exit 99 after 20 s
 *   run_probe count SIG MS handle signal SIG, print "ready", and after MS
 *                          milliseconds print "count N": how many came
 *   run_probe nobody       fork a child that writes to a pipe, becomes
 *                          user and group 65534 (nobody) and exits; exit
 *                          with its status
 *   run_probe daemon MS    fork a grandchild in a session of its own that
 *                          prints its pid, lives MS milliseconds doing
 *                          I/O, and exits; exit at once
 *   run_probe exit-race N [TEXT [SIG]]
 *                          fork N workers, one at a time, that each
 *                          write to a pipe (their stderr too) and exit(0),
 *                          saying "exiting" from a destructor of their own
 *                          (the program's last code); send each worker SIG
 *                          (default SIGTERM) as soon as TEXT came through
 *                          its pipe (default "exiting"; with
 *                          TRMS_VERBOSE=2, "exit: writing the profile" is
 *                          the library's word that it has begun the exit's
 *                          write); print how many died of SIG, exited 0,
 *                          and said TEXT ("killed K exited E marked M")
 *   run_probe region       open and close one region through the API of
 *                          the library preloaded (found with dlsym);
 *                          exit 3 if there is none
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

static bool exists(int sig)
{
	return sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

static int show_signals(void)
{
	sigset_t mask;

	sigprocmask(SIG_SETMASK, NULL, &mask);
	printf("ignored:");
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (exists(sig) && sigaction(sig, NULL, &sa) == 0 &&
		    !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN)
			printf(" %d", sig);
	}
	printf("\nblocked:");
	for (int sig = 1; sig < NSIG; sig++)
		if (exists(sig) && sigismember(&mask, sig))
			printf(" %d", sig);
	printf("\n");
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int wait_signal(void)
{
	static const int handled[] = { SIGUSR1, SIGQUIT, SIGHUP, SIGTERM,
				       SIGINT,	SIGALRM, SIGWINCH };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaction(handled[i], &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 2000 && !got; i++)
		pause_ms(10);
	if (!got)
		return 99;
	printf("got %d\n", (int)got);
	return got;
}

static volatile sig_atomic_t counted;

static void count_signal(int sig)
{
	(void)sig;
	counted++;
}

static int count_signals(int sig, long ms)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;
	sigaction(sig, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	for (long t = 0; t < ms; t += 10)
		pause_ms(10);
	printf("count %d\n", (int)counted);
	return 0;
}

static int drop_to_nobody(void)
{
	int fds[2], status;

	if (pipe(fds))
		return 1;
	pid_t child = fork();
	if (child == 0) {
		ssize_t w = write(fds[1], "x", 1);
		if (w != 1 || setgid(65534) || setuid(65534))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	char c;
	ssize_t r = read(fds[0], &c, 1);
	if (child < 0 || r != 1 || waitpid(child, &status, 0) != child)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

static int daemon_after(long ms)
{
	int status;
	pid_t child = fork();

	if (child == 0) {
		setsid();
		pid_t grandchild = fork();
		if (grandchild == 0) {
			printf("%d\n", (int)getpid());
			fflush(stdout);
			int null = open("/dev/null", O_WRONLY);
			for (long t = 0; t < ms; t += 10) {
				ssize_t w = write(null, "x", 1);
				(void)w;
				pause_ms(10);
			}
			_exit(0);
		}
		_exit(grandchild > 0 ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* A worker's pipe to the supervisor, for its destructor. */
static int exiting_fd = -1;

__attribute__((destructor)) static void say_exiting(void)
{
	if (exiting_fd >= 0) {
		ssize_t w = write(exiting_fd, "exiting\n", 8);
		(void)w;
	}
}

/* Read @fd until @text has come (true) or the end (false). */
static bool wait_for_text(int fd, const char *text)
{
	char seen[4096];
	size_t len = 0, want = strlen(text);
	ssize_t n;

	while ((n = read(fd, seen + len, sizeof(seen) - 1 - len)) > 0) {
		len += (size_t)n;
		seen[len] = '\0';
		if (strstr(seen, text))
			return true;
		if (len > sizeof(seen) / 2) {
			memmove(seen, seen + len - want, want);
			len = want;
		}
	}
	return false;
}

static int exit_race(int workers, const char *marker, int sig)
{
	int killed = 0, exited = 0, marked = 0;

	for (int i = 0; i < workers; i++) {
		int fds[2], status;
		if (pipe(fds))
			return 1;
		pid_t child = fork();
		if (child == 0) {
			close(fds[0]);
			dup2(fds[1], STDERR_FILENO);
			exiting_fd = fds[1];
			/* Some I/O, so that there is a profile. */
			ssize_t w = write(fds[1], "working\n", 8);
			(void)w;
			exit(0);
		}
		close(fds[1]);
		marked += wait_for_text(fds[0], marker);
		kill(child, sig);
		close(fds[0]);
		if (waitpid(child, &status, 0) != child)
			return 1;
		if (WIFSIGNALED(status) && WTERMSIG(status) == sig)
			killed++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			exited++;
	}
	printf("killed %d exited %d marked %d\n", killed, exited, marked);
	return 0;
}

static int one_region(void)
{
	int (*begin)(const char *) =
		(int (*)(const char *))dlsym(RTLD_DEFAULT, "trms_region_begin");
	int (*end)(const char *) =
		(int (*)(const char *))dlsym(RTLD_DEFAULT, "trms_region_end");

	if (!begin || !end)
		return 3;
	return begin("probe") || end("probe") ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "signals"))
		return show_signals();
	if (!strcmp(mode, "wait"))
		return wait_signal();
	if (!strcmp(mode, "count") && argc > 3)
		return count_signals(atoi(argv[2]), atol(argv[3]));
	if (!strcmp(mode, "nobody"))
		return drop_to_nobody();
	if (!strcmp(mode, "daemon") && argc > 2)
		return daemon_after(atol(argv[2]));
	if (!strcmp(mode, "exit-race") && argc > 2)
		return exit_race(atoi(argv[2]), argc > 3 ? argv[3] : "exiting",
				 argc > 4 ? atoi(argv[4]) : SIGTERM);
	if (!strcmp(mode, "region"))
		return one_region();
	fprintf(stderr, "usage: run_probe signals|wait|count SIG MS|nobody|"
			"daemon MS|exit-race N [TEXT [SIG]]|region\n");
	return 2;
}
