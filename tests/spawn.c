/*
 * spawn.c - run a program and collect its output (see spawn.h).
 */
#define _GNU_SOURCE
#include "spawn.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct sink {
	char *data;
	size_t len, cap;
};

static void sink_add(struct sink *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = 2 * (s->len + n + 1);
		s->data = realloc(s->data, s->cap);
		ck_assert_ptr_nonnull(s->data);
	}
	memcpy(s->data + s->len, p, n);
	s->len += n;
	s->data[s->len] = '\0';
}

void spawn(char *const argv[], const char *input, char *const env[],
	   struct spawn_result *r)
{
	int in[2], out[2], err[2];
	struct sink so = { 0 }, se = { 0 };

	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	signal(SIGPIPE, SIG_IGN);
	size_t in_len = input ? strlen(input) : 0, in_done = 0;
	if (in_len == 0)
		close(in[1]);
	sink_add(&so, "", 0);
	sink_add(&se, "", 0);
	struct pollfd fds[3] = { { out[0], POLLIN, 0 },
				 { err[0], POLLIN, 0 },
				 { in_len ? in[1] : -1, POLLOUT, 0 } };
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		ck_assert_int_ge(poll(fds, 3, -1), 0);
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			char buf[4096];
			ssize_t n = read(fds[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
			} else {
				sink_add(i ? &se : &so, buf, (size_t)n);
			}
		}
		if (fds[2].fd >= 0 && fds[2].revents) {
			ssize_t n = write(in[1], input + in_done,
					  in_len - in_done);
			if (n > 0)
				in_done += (size_t)n;
			if (n <= 0 || in_done == in_len) {
				close(in[1]);
				fds[2].fd = -1;
			}
		}
	}
	if (fds[2].fd >= 0)
		close(in[1]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status)
				      : 128 + WTERMSIG(status);
	r->out = so.data;
	r->err = se.data;
}

void spawn_free(struct spawn_result *r)
{
	free(r->out);
	free(r->err);
}
