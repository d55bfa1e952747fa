/*
 * run_tool.c - run a helper program and read its output (see run_tool.h).
 */
#define _GNU_SOURCE
#include "run_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int tool_start(struct tool_run *run, char *const argv[])
{
	int fds[2];

	run->out = NULL;
	run->child = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	fflush(NULL);
	run->child = fork();
	if (run->child == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int rc = run->child < 0 ? -errno : 0;
	close(fds[1]);
	if (run->child > 0 && !(run->out = fdopen(fds[0], "r")))
		rc = -errno;
	if (rc) {
		close(fds[0]);
		tool_finish(run);
	}
	return rc;
}

int tool_finish(struct tool_run *run)
{
	int status = 0;

	if (run->out)
		fclose(run->out);
	run->out = NULL;
	if (run->child <= 0)
		return -ECHILD;
	while (waitpid(run->child, &status, 0) < 0 && errno == EINTR)
		;
	/* 127: the program could not be run (not installed). */
	return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : 0;
}
