/*
 * background.h - a program started in the background, for tests that act
 * on it while it runs (send it signals, wait for a word it prints).
 */
#ifndef TRMS_BACKGROUND_H
#define TRMS_BACKGROUND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct background {
	pid_t pid;
	int out_fd, err_fd; /* -1 once at their end */
	char *out, *err;    /* what came so far, NUL-terminated */
	size_t out_len, err_len;
	int status;         /* raw wait status, once finished */
};

/* Start @argv (argv[0] a path) in @dir (NULL: here) with @env added to
 * the environment; @prepare (may be NULL) runs in the child just before
 * exec (to set signal dispositions, limits, ...). */
void background_start(struct background *b, char *const argv[],
		      const char *dir, char *const env[],
		      void (*prepare)(void));

/* Read its output until @text appears on stdout; false if it ended, or
 * @timeout_ms passed, first. */
bool background_wait_for(struct background *b, const char *text,
			 int timeout_ms);

/* Read everything and wait for it to end; returns its raw wait status.
 * A program still running after @timeout_ms is killed (SIGKILL), which
 * fails the test. */
int background_finish(struct background *b, int timeout_ms);

void background_free(struct background *b);

#endif
