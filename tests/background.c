/*
 * background.c - a program started in the background (see background.h).
 */
#define _GNU_SOURCE
#include "background.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void background_start(struct background *b, char *const argv[],
		      const char *dir, char *const env[],
		      void (*prepare)(void))
{
	int out[2], err[2];

	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	b->pid = fork();
	ck_assert_int_ge(b->pid, 0);
	if (b->pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (dir && chdir(dir))
			_exit(126);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		if (prepare)
			prepare();
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	b->out_fd = out[0];
	b->err_fd = err[0];
	b->out = calloc(1, 1);
	b->err = calloc(1, 1);
	ck_assert(b->out && b->err);
}

static void append(char **data, size_t *len, const char *p, size_t n)
{
	*data = realloc(*data, *len + n + 1);
	ck_assert_ptr_nonnull(*data);
	memcpy(*data + *len, p, n);
	*len += n;
	(*data)[*len] = '\0';
}

/* Read what is there within @wait_ms; false once both pipes ended. */
static bool pump(struct background *b, int wait_ms)
{
	struct pollfd fds[2] = { { b->out_fd, POLLIN, 0 },
				 { b->err_fd, POLLIN, 0 } };
	char buf[4096];

	if (b->out_fd < 0 && b->err_fd < 0)
		return false;
	int r = poll(fds, 2, wait_ms);
	ck_assert(r >= 0 || errno == EINTR);
	for (int i = 0; i < 2 && r > 0; i++) {
		if (fds[i].fd < 0 || !fds[i].revents)
			continue;
		ssize_t n = read(fds[i].fd, buf, sizeof(buf));
		if (n <= 0) {
			close(fds[i].fd);
			*(i ? &b->err_fd : &b->out_fd) = -1;
		} else if (i) {
			append(&b->err, &b->err_len, buf, (size_t)n);
		} else {
			append(&b->out, &b->out_len, buf, (size_t)n);
		}
	}
	return true;
}

bool background_wait_for(struct background *b, const char *text,
			 int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	while (!strstr(b->out, text)) {
		uint64_t now = now_ms();
		if (now >= end || !pump(b, (int)(end - now)))
			return strstr(b->out, text) != NULL;
	}
	return true;
}

int background_finish(struct background *b, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	bool killed = false;

	while (b->out_fd >= 0 || b->err_fd >= 0) {
		uint64_t now = now_ms();
		if (now >= end && !killed) {
			kill(b->pid, SIGKILL);
			killed = true;
		}
		pump(b, now >= end ? 100 : (int)(end - now));
	}
	while (waitpid(b->pid, &b->status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	ck_assert_msg(!killed, "%d still running after %d ms; stderr:\n%s",
		      (int)b->pid, timeout_ms, b->err);
	return b->status;
}

void background_free(struct background *b)
{
	if (b->out_fd >= 0)
		close(b->out_fd);
	if (b->err_fd >= 0)
		close(b->err_fd);
	free(b->out);
	free(b->err);
	memset(b, 0, sizeof(*b));
}
