/*
 * run_metrics.c - the run's metrics into a textfile-collector directory
 * (see run_metrics.h).  `trms report --prometheus` is run as a program of
 * its own, its output into a temporary file of DIR renamed over the .prom
 * file when complete, so that the collector never reads half a file (it
 * reads *.prom only).
 */
#define _GNU_SOURCE
#include "run_metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile_paths.h"
#include "xalloc.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int run_metrics_init(struct run_metrics *m, const char *dir,
		     const char *profiles, const char *command,
		     uint64_t period_ms)
{
	struct stat st;
	char *copy = xstrdup(command);

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		int e = errno ? errno : ENOTDIR;
		fprintf(stderr, "trms run: --metrics-dir %s: %s\n", dir,
			strerror(e));
		free(copy);
		return -e;
	}
	*m = (struct run_metrics){ .dir = dir, .profiles = profiles,
				   .trms = "/proc/self/exe",
				   .period_ms = period_ms,
				   .next_ms = now_ms() + period_ms };
	snprintf(m->file, sizeof(m->file), "%s/trms-%s-%d.prom", dir,
		 basename(copy), (int)getpid());
	snprintf(m->temporary, sizeof(m->temporary), "%s/.trms-%s-%d.prom.tmp",
		 dir, basename(copy), (int)getpid());
	free(copy);
	return 0;
}

int run_metrics_wait_ms(const struct run_metrics *m)
{
	uint64_t now = now_ms();

	return m->next_ms > now ? (int)(m->next_ms - now) : 0;
}

/* `trms report --prometheus` and its profiles: the windows in the run's
 * directory, or its directory (its profiles at exit); NULL if there are
 * no windows yet. */
static char **report_command(const struct run_metrics *m, bool at_end)
{
	static const char *const head[] = { "trms", "report", "--prometheus" };
	struct profile_paths windows = { 0 };
	char *dir = (char *)m->profiles, err[256];

	if (!at_end &&
	    profile_paths_expand_windows(&dir, 1, true, &windows, err,
					 sizeof(err)))
		return NULL;
	size_t n = at_end ? 1 : windows.n;
	char **argv = xcalloc(3 + n + 1, sizeof(*argv));
	for (size_t i = 0; i < 3; i++)
		argv[i] = xstrdup(head[i]);
	for (size_t i = 0; i < n; i++)
		argv[3 + i] = xstrdup(at_end ? dir : windows.paths[i]);
	profile_paths_free(&windows);
	return argv;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void run_metrics_write(struct run_metrics *m, bool at_end)
{
	char **argv = report_command(m, at_end);

	m->next_ms = now_ms() + m->period_ms;
	if (!argv)
		return;
	int fd = open(m->temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (fd < 0) {
		fprintf(stderr, "trms run: cannot write %s: %s\n",
			m->temporary, strerror(errno));
		free_argv(argv);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		/* trms report is not the run's: not profiled, no socket. */
		unsetenv("LD_PRELOAD");
		unsetenv("TRMS_RUN_SOCKET");
		dup2(fd, STDOUT_FILENO);
		execv(m->trms, argv);
		_exit(127);
	}
	close(fd);
	int status = -1;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) &&
	    !rename(m->temporary, m->file)) {
		free_argv(argv);
		return;
	}
	fprintf(stderr, "trms run: the metrics for %s could not be made "
			"(trms report --prometheus: status %d)\n",
		m->file, status);
	unlink(m->temporary);
	free_argv(argv);
}
