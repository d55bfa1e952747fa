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
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(char **data, size_t *len, const char *p, size_t n)
{
	*data = realloc(*data, *len + n + 1);
	ck_assert_ptr_nonnull(*data);
	memcpy(*data + *len, p, n);
	*len += n;
	(*data)[*len] = '\0';
}

/* SIGPIPE as the test process had it: the runner ignores it (a program
 * that stops reading its input must not kill the test), its programs
 * get it back. */
static struct sigaction sigpipe_at_start;

static void ignore_sigpipe(void)
{
	static bool ignored;

	if (ignored)
		return;
	ck_assert_int_eq(sigaction(SIGPIPE, NULL, &sigpipe_at_start), 0);
	signal(SIGPIPE, SIG_IGN);
	ignored = true;
}

/* In the child: become the program. */
static void exec_child(char *const argv[], const struct spawn_options *o,
		       int in, int out, int err)
{
	sigaction(SIGPIPE, &sigpipe_at_start, NULL);
	if (o->own_group)
		setpgid(0, 0);
	if (in < 0)
		in = open("/dev/null", O_RDONLY);
	if (in < 0 || (o->dir && chdir(o->dir)))
		_exit(126);
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	for (size_t i = 0; o->unset && o->unset[i]; i++)
		unsetenv(o->unset[i]);
	for (size_t i = 0; o->env && o->env[i]; i++)
		putenv(o->env[i]);
	if (o->prepare)
		o->prepare();
	execv(argv[0], argv);
	_exit(127);
}

void spawn_start(struct spawn_result *r, char *const argv[],
		 const struct spawn_options *options)
{
	static const struct spawn_options none;
	const struct spawn_options *o = options ? options : &none;
	int in[2] = { -1, -1 }, out[2], err[2];

	memset(r, 0, sizeof(*r));
	if (o->input)
		ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	ignore_sigpipe();
	r->start = now_s();
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0)
		exec_child(argv, o, in[0], out[1], err[1]);
	if (o->own_group)
		setpgid(r->pid, r->pid); /* whichever of the two runs first */
	close(out[1]);
	close(err[1]);
	r->out_fd = out[0];
	r->err_fd = err[0];
	r->in_fd = -1;
	if (o->input) {
		close(in[0]);
		r->input = o->input;
		r->input_len = strlen(o->input);
		r->in_fd = in[1];
		if (r->input_len == 0) {
			close(r->in_fd);
			r->in_fd = -1;
		} else {
			fcntl(r->in_fd, F_SETFL, O_NONBLOCK);
		}
	}
	r->own_group = o->own_group;
	r->before_kill = o->before_kill;
	r->before_kill_arg = o->before_kill_arg;
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	ck_assert(r->out && r->err);
}

static void feed_input(struct spawn_result *r)
{
	ssize_t n = write(r->in_fd, r->input + r->input_done,
			  r->input_len - r->input_done);

	if (n > 0)
		r->input_done += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
	    r->input_done == r->input_len) {
		close(r->in_fd);
		r->in_fd = -1;
	}
}

/* Move what there is within @wait_ms; false once both outputs ended. */
static bool pump(struct spawn_result *r, int wait_ms)
{
	struct pollfd fds[3] = { { r->out_fd, POLLIN, 0 },
				 { r->err_fd, POLLIN, 0 },
				 { r->in_fd, POLLOUT, 0 } };
	char buf[4096];

	if (r->out_fd < 0 && r->err_fd < 0)
		return false;
	int ready = poll(fds, 3, wait_ms);
	ck_assert(ready >= 0 || errno == EINTR);
	for (int i = 0; i < 2 && ready > 0; i++) {
		if (fds[i].fd < 0 || !fds[i].revents)
			continue;
		ssize_t n = read(fds[i].fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fds[i].fd);
			*(i ? &r->err_fd : &r->out_fd) = -1;
		} else if (i) {
			append(&r->err, &r->err_len, buf, (size_t)n);
		} else {
			append(&r->out, &r->out_len, buf, (size_t)n);
		}
	}
	if (ready > 0 && r->in_fd >= 0 && fds[2].revents)
		feed_input(r);
	return true;
}

bool spawn_wait_for(struct spawn_result *r, const char *text,
		    int timeout_ms)
{
	double end = now_s() + timeout_ms / 1e3;

	while (!strstr(r->out, text)) {
		double left = end - now_s();
		if (left <= 0 || !pump(r, (int)(left * 1e3) + 1))
			return strstr(r->out, text) != NULL;
	}
	return true;
}

static void kill_at_deadline(struct spawn_result *r)
{
	if (r->before_kill)
		r->before_kill(r->pid, r->before_kill_arg);
	r->timed_out = true;
	if (r->own_group)
		kill(-r->pid, SIGKILL);
	kill(r->pid, SIGKILL);
}

/* Milliseconds to @end for poll (-1: no deadline), at least 1. */
static int ms_until(double end, bool deadline)
{
	double left = end - now_s();

	if (!deadline)
		return -1;
	return left <= 0 ? 0 : (int)(left * 1e3) + 1;
}

int spawn_finish(struct spawn_result *r, int timeout_ms)
{
	bool deadline = timeout_ms >= 0;
	double end = now_s() + (deadline ? timeout_ms / 1e3 : 0);

	/* Its output to the end, then its status: a program that closed
	 * its output early is still waited for, under the same deadline. */
	do {
		if (deadline && now_s() >= end && !r->timed_out)
			kill_at_deadline(r);
	} while (pump(r, r->timed_out ? 100 : ms_until(end, deadline)));
	if (r->in_fd >= 0) {
		close(r->in_fd);
		r->in_fd = -1;
	}
	for (;;) {
		pid_t w = waitpid(r->pid, &r->wait_status, WNOHANG);
		if (w == r->pid)
			break;
		ck_assert_msg(w == 0 || errno == EINTR, "waitpid: %s",
			      strerror(errno));
		if (deadline && now_s() >= end && !r->timed_out)
			kill_at_deadline(r);
		struct timespec nap = { 0, 5000000 };
		nanosleep(&nap, NULL);
	}
	r->seconds = now_s() - r->start;
	r->status = WIFEXITED(r->wait_status) ? WEXITSTATUS(r->wait_status)
					      : 128 + WTERMSIG(r->wait_status);
	return r->wait_status;
}

void spawn_run(char *const argv[], const struct spawn_options *options,
	       int timeout_ms, struct spawn_result *r)
{
	spawn_start(r, argv, options);
	spawn_finish(r, timeout_ms);
}

void spawn(char *const argv[], const char *input, char *const env[],
	   struct spawn_result *r)
{
	struct spawn_options o = { .env = env, .input = input ? input : "" };

	spawn_run(argv, &o, -1, r);
}

void spawn_free(struct spawn_result *r)
{
	if (r->in_fd >= 0)
		close(r->in_fd);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
	r->in_fd = r->out_fd = r->err_fd = -1;
}
