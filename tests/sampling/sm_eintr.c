/*
 * sm_eintr.c - a program that never retries EINTR, and has no reason to:
 * it installs no signal handler.  Every call is checked strictly: a
 * blocking call that fails (EINTR or anything else), a read that returns
 * less than asked, or a timeout that comes back early makes the program
 * print what happened and exit 1.
 *
 * main reads 40 single bytes from a pipe that a feeder thread fills one
 * byte every 10 ms (then end of file), and meanwhile a second thread,
 * and then main too, run the timed calls: poll on an empty pipe (30 ms),
 * nanosleep and usleep (15 ms), clock_nanosleep relative and absolute
 * (15 ms), select and epoll_wait (20 ms), sem_timedwait (20 ms, must time
 * out).  Between calls each thread burns about 1 ms of CPU time, so that
 * CPU-time sampling has something to sample.
 *
 * Then main reads 64 MiB from /dev/zero and 16 MiB from /dev/urandom, each
 * in one read() that must return all of it: those devices stop at a
 * pending signal with what they have copied.
 *
 * Prints one line per thread and phase once all is done (the same text
 * every time), and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "sm_common.h"

struct report {
	const char *who;
	char text[2048];
	size_t len;
};

static void say(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(r->text + r->len, sizeof(r->text) - r->len, fmt, ap);
	va_end(ap);
	if (n > 0 && r->len + (size_t)n < sizeof(r->text))
		r->len += (size_t)n;
}

/* Report a failed check and end the process: nothing is retried. */
static void fail(const char *who, const char *call, int i, long rc, int err,
		 double elapsed_ms, double wanted_ms)
{
	printf("FAIL %s: %s #%d returned %ld (errno %d %s) after %.3f ms "
	       "(asked %.3f ms)\n",
	       who, call, i, rc, err, err ? strerror(err) : "-", elapsed_ms,
	       wanted_ms);
	fflush(stdout);
	exit(1);
}

static double now_ms(void)
{
	return sm_clock(CLOCK_MONOTONIC) * 1e3;
}

SM_NOINLINE static void burn_between_calls(void)
{
	SM_BURN_CPU(0.001);
}

static int empty_pipe[2]; /* never written: poll and select time out */

SM_NOINLINE static void timed_calls(struct report *r)
{
	const char *who = r->who;
	double t0, el;
	long rc;

	for (int i = 0; i < 15; i++) {
		struct pollfd p = { empty_pipe[0], POLLIN, 0 };
		burn_between_calls();
		t0 = now_ms();
		rc = poll(&p, 1, 30);
		el = now_ms() - t0;
		if (rc != 0 || el < 30)
			fail(who, "poll", i, rc, rc < 0 ? errno : 0, el, 30);
	}
	say(r, "%s: poll timed out 15 times\n", who);

	for (int i = 0; i < 15; i++) {
		struct timespec req = { 0, 15000000 };
		burn_between_calls();
		t0 = now_ms();
		rc = nanosleep(&req, NULL);
		el = now_ms() - t0;
		if (rc != 0 || el < 15)
			fail(who, "nanosleep", i, rc, rc ? errno : 0, el, 15);
	}
	say(r, "%s: nanosleep slept 15 times\n", who);

	for (int i = 0; i < 15; i++) {
		burn_between_calls();
		t0 = now_ms();
		rc = usleep(15000);
		el = now_ms() - t0;
		if (rc != 0 || el < 15)
			fail(who, "usleep", i, rc, rc ? errno : 0, el, 15);
	}
	say(r, "%s: usleep slept 15 times\n", who);

	for (int i = 0; i < 10; i++) {
		struct timespec req = { 0, 15000000 };
		burn_between_calls();
		t0 = now_ms();
		rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL);
		el = now_ms() - t0;
		if (rc != 0 || el < 15)
			fail(who, "clock_nanosleep", i, rc, (int)rc, el, 15);
	}
	for (int i = 0; i < 10; i++) {
		struct timespec until;
		burn_between_calls();
		t0 = now_ms();
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 15000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_nsec -= 1000000000;
			until.tv_sec++;
		}
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
				     NULL);
		el = now_ms() - t0;
		if (rc != 0 || el < 15)
			fail(who, "clock_nanosleep(TIMER_ABSTIME)", i, rc,
			     (int)rc, el, 15);
	}
	say(r, "%s: clock_nanosleep slept 20 times\n", who);

	for (int i = 0; i < 10; i++) {
		fd_set set;
		struct timeval tv = { 0, 20000 };
		FD_ZERO(&set);
		FD_SET(empty_pipe[0], &set);
		burn_between_calls();
		t0 = now_ms();
		rc = select(empty_pipe[0] + 1, &set, NULL, NULL, &tv);
		el = now_ms() - t0;
		if (rc != 0 || el < 20)
			fail(who, "select", i, rc, rc < 0 ? errno : 0, el, 20);
	}
	say(r, "%s: select timed out 10 times\n", who);

	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, empty_pipe[0], &ev))
		fail(who, "epoll_create1/epoll_ctl", 0, -1, errno, 0, 0);
	for (int i = 0; i < 10; i++) {
		struct epoll_event out;
		burn_between_calls();
		t0 = now_ms();
		rc = epoll_wait(ep, &out, 1, 20);
		el = now_ms() - t0;
		if (rc != 0 || el < 20)
			fail(who, "epoll_wait", i, rc, rc < 0 ? errno : 0, el,
			     20);
	}
	close(ep);
	say(r, "%s: epoll_wait timed out 10 times\n", who);

	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 10; i++) {
		struct timespec until;
		burn_between_calls();
		t0 = now_ms();
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_nsec -= 1000000000;
			until.tv_sec++;
		}
		rc = sem_timedwait(&sem, &until);
		int err = errno;
		el = now_ms() - t0;
		if (rc != -1 || err != ETIMEDOUT || el < 20)
			fail(who, "sem_timedwait", i, rc, err, el, 20);
	}
	sem_destroy(&sem);
	say(r, "%s: sem_timedwait timed out 10 times\n", who);
}

static int slow_pipe[2];

static void *feeder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		struct timespec req = { 0, 10000000 };
		double t0 = now_ms();
		long rc = nanosleep(&req, NULL);
		double el = now_ms() - t0;
		if (rc != 0 || el < 10)
			fail("feeder", "nanosleep", i, rc, rc ? errno : 0, el,
			     10);
		rc = write(slow_pipe[1], "x", 1);
		if (rc != 1)
			fail("feeder", "write", i, rc, rc < 0 ? errno : 0, 0,
			     0);
	}
	close(slow_pipe[1]);
	return NULL;
}

static void *second(void *arg)
{
	timed_calls(arg);
	return NULL;
}

SM_NOINLINE static void read_slow_pipe(struct report *r)
{
	char c;

	for (int i = 0; i < 40; i++) {
		burn_between_calls();
		double t0 = now_ms();
		long rc = read(slow_pipe[0], &c, 1);
		if (rc != 1 || c != 'x')
			fail(r->who, "read", i, rc, rc < 0 ? errno : 0,
			     now_ms() - t0, 0);
	}
	long rc = read(slow_pipe[0], &c, 1);
	if (rc != 0)
		fail(r->who, "read at end of file", 40, rc, rc < 0 ? errno : 0,
		     0, 0);
	say(r, "%s: read 40 bytes one by one, then end of file\n", r->who);
}

/* One read() of @bytes from the device @path must bring all of them. */
SM_NOINLINE static void read_device(struct report *r, const char *path,
				    size_t bytes)
{
	char *buf = malloc(bytes);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0)
		fail(r->who, path, 0, -1, errno, 0, 0);
	double t0 = now_ms();
	long rc = read(fd, buf, bytes);
	if (rc != (long)bytes)
		fail(r->who, path, 0, rc, rc < 0 ? errno : 0, now_ms() - t0, 0);
	close(fd);
	free(buf);
}

int main(void)
{
	static struct report mine = { "main", "", 0 }, other = { "second", "", 0 };
	pthread_t feed, two;

	if (pipe(slow_pipe) || pipe(empty_pipe))
		return 3;
	if (pthread_create(&feed, NULL, feeder, NULL) ||
	    pthread_create(&two, NULL, second, &other))
		return 3;
	read_slow_pipe(&mine);
	timed_calls(&mine);
	if (pthread_join(feed, NULL) || pthread_join(two, NULL))
		return 3;
	read_device(&mine, "/dev/zero", (size_t)64 << 20);
	read_device(&mine, "/dev/urandom", (size_t)16 << 20);
	say(&mine, "main: read 64 MiB of /dev/zero and 16 MiB of /dev/urandom "
		   "in one call each\n");
	fputs(mine.text, stdout);
	fputs(other.text, stdout);
	return 0;
}
