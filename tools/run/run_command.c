/*
 * run_command.c - start the command and wait for it (see run_command.h).
 */
#define _GNU_SOURCE
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/run_protocol.h"
#include "run_metrics.h"
#include "run_summary.h"
#include "xalloc.h"

/* Whether @path (relative to directory @dir, unless absolute) is a
 * readable file: then its real path into @out. */
static bool found(const char *dir, const char *path, char *out, size_t len)
{
	char whole[2 * PATH_MAX];
	int n = path[0] == '/'
			? snprintf(whole, sizeof(whole), "%s", path)
			: snprintf(whole, sizeof(whole), "%s/%s", dir, path);

	return n > 0 && (size_t)n < sizeof(whole) && access(whole, R_OK) == 0 &&
	       realpath(whole, out) && strlen(out) < len;
}

int run_find_near(const char *const *paths, size_t n, char *out,
		  size_t len)
{
	char exe[PATH_MAX];
	ssize_t got = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (got <= 0)
		return -ENOENT;
	exe[got] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < n; i++)
		if (found(exe, paths[i], out, len))
			return 0;
	return -ENOENT;
}

int run_find_library(const char *installed_libdir, char *out, size_t len)
{
	char so0[PATH_MAX], so[PATH_MAX];
	const char *const paths[] = { "../src/libtrms.so", so0, so };

	snprintf(so0, sizeof(so0), "%s/libtrms.so.0", installed_libdir);
	snprintf(so, sizeof(so), "%s/libtrms.so", installed_libdir);
	return run_find_near(paths, 3, out, len);
}

int run_set_preload(const char *library)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;

	if (!old || !*old)
		return setenv("LD_PRELOAD", library, 1) ? -errno : 0;
	xasprintf(&value, "%s:%s", library, old);
	int rc = setenv("LD_PRELOAD", value, 1) ? -errno : 0;
	free(value);
	return rc;
}

pid_t run_start(char **argv, const struct run_signals *s, int *exec_error)
{
	int pipe_fds[2];

	*exec_error = 0;
	if (pipe2(pipe_fds, O_CLOEXEC)) {
		int e = errno;
		fprintf(stderr, "trms run: pipe: %s\n", strerror(e));
		return -e;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		close(pipe_fds[0]);
		run_signals_restore(s);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t ignored = write(pipe_fds[1], &e, sizeof(e));
		(void)ignored;
		_exit(127);
	}
	close(pipe_fds[1]);
	if (child < 0) {
		int e = errno;
		fprintf(stderr, "trms run: fork: %s\n", strerror(e));
		close(pipe_fds[0]);
		return -e;
	}
	ssize_t n;
	while ((n = read(pipe_fds[0], exec_error, sizeof(*exec_error))) < 0 &&
	       errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*exec_error))
		*exec_error = 0;
	close(pipe_fds[0]);
	if (*exec_error)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	return child;
}

/* Stopped, as /proc says (the kernel continues a whole process group at
 * once, before trms run hears of it). */
static bool is_stopped(pid_t pid)
{
	char path[64], stat[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	const char *end = strrchr(stat, ')');
	return end && (end[2] == 'T' || end[2] == 't');
}

/* Pass on the signals waiting on @signal_fd; then, if @child changed
 * state, follow it.  @return true if it ended, its wait status in
 * *@status (or -errno if it cannot be waited for). */
static bool take_signals(int signal_fd, pid_t child, int *status)
{
	struct signalfd_siginfo info;
	pid_t w;

	while (read(signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info))
		run_signals_forward(&info, child,
				    info.ssi_signo == SIGCONT &&
					    is_stopped(child));
	while ((w = waitpid(child, status,
			    WNOHANG | WUNTRACED | WCONTINUED)) == child) {
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return true;
		if (WIFSTOPPED(*status))
			run_signals_follow_stop(WSTOPSIG(*status));
	}
	if (w < 0 && errno == ECHILD) {
		*status = -ECHILD;
		return true;
	}
	return false;
}

int run_wait(struct run_collector *c, int signal_fd, pid_t child,
	     struct run_metrics *metrics)
{
	int status;

	for (;;) {
		size_t cap = c->n_connections + 2;
		struct pollfd *fds = xcalloc(cap, sizeof(*fds));
		fds[0] = (struct pollfd){ signal_fd, POLLIN, 0 };
		size_t n = 1 + run_collector_pollfds(c, fds + 1, cap - 1);
		int wait = run_collector_wait_ms(c);
		if (metrics && (wait < 0 || run_metrics_wait_ms(metrics) < wait))
			wait = run_metrics_wait_ms(metrics);
		int r = poll(fds, n, wait);
		if (r < 0 && errno != EINTR) {
			int e = errno;
			free(fds);
			return -e;
		}
		if (r >= 0)
			run_collector_serve(c, fds + 1, n - 1);
		bool signalled = r > 0 && fds[0].revents;
		free(fds);
		if (metrics && !run_metrics_wait_ms(metrics))
			run_metrics_write(metrics, false);
		if (signalled && take_signals(signal_fd, child, &status))
			return status;
	}
}

size_t run_wait_for_stragglers(struct run_collector *c, pid_t *pids,
			       size_t max)
{
	char variable[sizeof(c->variable) + 32];

	snprintf(variable, sizeof(variable), "%s=%s", RUN_SOCKET_VARIABLE,
		 c->variable);
	size_t n = run_still_running(c, variable, pids, max);
	for (int round = 0; n && round < 6; round++) {
		run_collector_drain(c, 50);
		n = run_still_running(c, variable, pids, max);
	}
	return n;
}
