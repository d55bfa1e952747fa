/*
 * spawn_time.c - what it takes to run a command, for bench/startup.sh:
 *
 *   spawn_time N [NAME=VALUE...] COMMAND [ARG...]
 *
 * runs COMMAND N times, one after the other, with NAME=VALUE added to its
 * environment only (so that an LD_PRELOAD reaches the command, not this
 * program), and prints one line: the mean wall time per run and the mean
 * CPU time (user + system, from wait4, which counts the process's whole
 * run precisely, its waited-for children included) per run, in
 * microseconds.  The command's standard output is discarded.  posix_spawn,
 * not a shell: the launcher's own cost is small and the same for every
 * variant.  Exits non-zero if a run failed to start or exited non-zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The environment with @n assignments @set added (replacing a variable of
 * the same name). */
static char **environment_with(char **set, int n)
{
	size_t count = 0;

	while (environ[count])
		count++;
	char **env = calloc(count + (size_t)n + 1, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < count; i++) {
		bool replaced = false;
		for (int j = 0; j < n && !replaced; j++) {
			size_t len = strcspn(set[j], "=") + 1;
			replaced = !strncmp(environ[i], set[j], len);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (int j = 0; j < n; j++)
		env[k++] = set[j];
	env[k] = NULL;
	return env;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: spawn_time N [NAME=VALUE...] COMMAND "
				"[ARG...]\n");
		return 2;
	}
	long runs = strtol(argv[1], NULL, 10);
	int first = 2;
	while (first < argc && strchr(argv[first], '=') &&
	       argv[first][0] != '=' && argv[first][0] != '/')
		first++;
	if (runs <= 0 || first == argc) {
		fprintf(stderr, "spawn_time: a positive N and a command, "
				"please\n");
		return 2;
	}
	char **env = environment_with(argv + 2, first - 2);
	posix_spawn_file_actions_t actions;
	if (!env || posix_spawn_file_actions_init(&actions) ||
	    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO,
					     "/dev/null", O_WRONLY, 0))
		return 2;
	double cpu_us = 0, start = now_us();
	for (long r = 0; r < runs; r++) {
		pid_t pid;
		int status, rc;
		struct rusage ru;
		rc = posix_spawnp(&pid, argv[first], &actions, NULL,
				  argv + first, env);
		if (rc) {
			fprintf(stderr, "spawn_time: %s: %s\n", argv[first],
				strerror(rc));
			return 1;
		}
		if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "spawn_time: %s failed (status %#x)\n",
				argv[first], status);
			return 1;
		}
		cpu_us += (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				  1e6 +
			  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	}
	printf("%.1f %.1f\n", (now_us() - start) / (double)runs,
	       cpu_us / (double)runs);
	return 0;
}
