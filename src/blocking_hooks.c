/*
 * blocking_hooks.c - the calls in which a thread waits.
 *
 * While a thread is inside one of these, it counts as blocked: the samples
 * of the threads that work meanwhile charge their contexts with idleness
 * (HPCToolkit's measure), and with TRMS_SAMPLE_CLOCK=wall its own samples
 * count as blocked time.  The I/O hooks mark their calls the same way.
 *
 * The kernel restarts most calls interrupted by the sampling signal
 * (SA_RESTART), but never poll, select, epoll_wait, nanosleep,
 * clock_nanosleep, sem_wait or sem_timedwait, usleep and sleep: those are
 * retried here, with what remains of their timeout, when the sampling
 * signal alone interrupted them.  An interruption by a signal the program
 * handles returns to the program, as it would have.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/real.h"
#include "runtime/thread.h"
#include "hooks.h"

/* The call failed with EINTR because of the sampling signal only. */
static inline bool ours_only(const struct interruptions *n, int failed)
{
	return failed && errno == EINTR && interrupted_by_us_only(n);
}


/* When a timeout of @ms milliseconds ends (ns), if it is positive. */
static uint64_t deadline_after(int ms)
{
	return ms > 0 ? clock_monotonic_ns() + (uint64_t)ms * 1000000u : 0;
}

/* Milliseconds left of a timeout that ends at @deadline (ns). */
static int ms_left(uint64_t deadline)
{
	uint64_t now = clock_monotonic_ns();

	return now >= deadline ? 0
			       : (int)((deadline - now + 999999) / 1000000);
}

/* ---- calls the kernel never restarts ---- */

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	__typeof__(real.poll) fn = REAL(poll);
	struct sampler_thread *s = thread_block_begin();
	uint64_t deadline = deadline_after(timeout);
	struct interruptions before;
	int rc;

	do {
		interruptions_note(&before);
		rc = fn ? fn(fds, n, timeout) : MISSING(-1);
		if (timeout > 0)
			timeout = ms_left(deadline);
	} while (ours_only(&before, rc < 0));
	thread_block_end(s);
	return rc;
}

EXPORT int select(int n, fd_set *readfds, fd_set *writefds,
		  fd_set *exceptfds, struct timeval *timeout)
{
	__typeof__(real.select) fn = REAL(select);
	struct sampler_thread *s = thread_block_begin();
	struct interruptions before;
	int rc;

	/* Linux leaves the time not slept in *timeout: a retry waits the
	 * rest.  The sets are not changed by an interrupted call. */
	do {
		interruptions_note(&before);
		rc = fn ? fn(n, readfds, writefds, exceptfds, timeout)
			: MISSING(-1);
	} while (ours_only(&before, rc < 0));
	thread_block_end(s);
	return rc;
}

EXPORT int epoll_wait(int epfd, struct epoll_event *events, int max,
		      int timeout)
{
	__typeof__(real.epoll_wait) fn = REAL(epoll_wait);
	struct sampler_thread *s = thread_block_begin();
	uint64_t deadline = deadline_after(timeout);
	struct interruptions before;
	int rc;

	do {
		interruptions_note(&before);
		rc = fn ? fn(epfd, events, max, timeout) : MISSING(-1);
		if (timeout > 0)
			timeout = ms_left(deadline);
	} while (ours_only(&before, rc < 0));
	thread_block_end(s);
	return rc;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	__typeof__(real.nanosleep) fn = REAL(nanosleep);
	struct sampler_thread *s = thread_block_begin();
	struct timespec left = *req, rest;
	struct interruptions before;
	int rc;

	do {
		interruptions_note(&before);
		rc = fn ? fn(&left, &rest) : MISSING(-1);
		if (rc < 0)
			left = rest;
	} while (ours_only(&before, rc < 0));
	if (rc < 0 && rem && errno == EINTR)
		*rem = rest;
	thread_block_end(s);
	return rc;
}

EXPORT int clock_nanosleep(clockid_t clock, int flags,
			   const struct timespec *req, struct timespec *rem)
{
	__typeof__(real.clock_nanosleep) fn = REAL(clock_nanosleep);
	struct sampler_thread *s = thread_block_begin();
	struct timespec left = *req, rest;
	int rc;

	/* clock_nanosleep returns the error instead of setting errno. */
	for (;;) {
		struct interruptions before;
		interruptions_note(&before);
		rc = fn ? fn(clock, flags, &left, &rest) : ENOSYS;
		errno = rc;
		if (!ours_only(&before, rc == EINTR))
			break;
		/* An absolute deadline stays; a relative one shrinks. */
		if (!(flags & TIMER_ABSTIME))
			left = rest;
	}
	if (rc == EINTR && rem && !(flags & TIMER_ABSTIME))
		*rem = rest;
	thread_block_end(s);
	return rc;
}

EXPORT int usleep(useconds_t usec)
{
	struct timespec req = { (time_t)(usec / 1000000),
				(long)(usec % 1000000) * 1000 };

	/* As the C library's usleep: a nanosleep that reports EINTR. */
	return nanosleep(&req, NULL);
}

EXPORT unsigned int sleep(unsigned int seconds)
{
	__typeof__(real.sleep) fn = REAL(sleep);
	struct sampler_thread *s = thread_block_begin();
	unsigned left = seconds;
	struct interruptions before;

	/* sleep reports whole seconds left: a retry waits those, which can
	 * shorten the sleep by less than a second per sample that
	 * interrupts it. */
	do {
		interruptions_note(&before);
		left = fn ? fn(left) : 0;
	} while (left && interrupted_by_us_only(&before));
	thread_block_end(s);
	return left;
}

EXPORT int sem_wait(sem_t *sem)
{
	__typeof__(real.sem_wait) fn = REAL(sem_wait);
	struct sampler_thread *s = thread_block_begin();
	struct interruptions before;
	int rc;

	do {
		interruptions_note(&before);
		rc = fn ? fn(sem) : MISSING(-1);
	} while (ours_only(&before, rc < 0));
	thread_block_end(s);
	return rc;
}

EXPORT int sem_timedwait(sem_t *sem, const struct timespec *deadline)
{
	__typeof__(real.sem_timedwait) fn = REAL(sem_timedwait);
	struct sampler_thread *s = thread_block_begin();
	struct interruptions before;
	int rc;

	do {
		interruptions_note(&before);
		rc = fn ? fn(sem, deadline) : MISSING(-1);
	} while (ours_only(&before, rc < 0));
	thread_block_end(s);
	return rc;
}

/* ---- calls that are restarted, or never fail with EINTR ---- */

/* A mutex that is free is taken without counting the thread blocked: the
 * common case pays one extra try. */
EXPORT int pthread_mutex_lock(pthread_mutex_t *mutex)
{
	__typeof__(real.pthread_mutex_lock) fn = REAL(pthread_mutex_lock);
	struct sampler_thread *s;
	int rc;

	if (!fn)
		return ENOSYS;
	if (sampler_active()) {
		rc = pthread_mutex_trylock(mutex);
		if (rc != EBUSY)
			return rc;
	}
	s = thread_block_begin();
	rc = fn(mutex);
	thread_block_end(s);
	return rc;
}

#define BLOCKING(type, name, params, args, fail)                           \
	PASS_ON(type, name, name, fail, params, args, (void)0)

BLOCKING(int, pthread_cond_wait,
	 (pthread_cond_t *cond, pthread_mutex_t *mutex), (cond, mutex),
	 ENOSYS)
BLOCKING(int, pthread_cond_timedwait,
	 (pthread_cond_t *cond, pthread_mutex_t *mutex,
	  const struct timespec *deadline),
	 (cond, mutex, deadline), ENOSYS)
BLOCKING(int, pthread_join, (pthread_t thread, void **result),
	 (thread, result), ENOSYS)
BLOCKING(int, pthread_barrier_wait, (pthread_barrier_t *barrier),
	 (barrier), ENOSYS)
BLOCKING(int, accept,
	 (int fd, struct sockaddr *addr, socklen_t *len), (fd, addr, len),
	 MISSING(-1))
BLOCKING(int, accept4,
	 (int fd, struct sockaddr *addr, socklen_t *len, int flags),
	 (fd, addr, len, flags), MISSING(-1))
BLOCKING(int, connect,
	 (int fd, const struct sockaddr *addr, socklen_t len),
	 (fd, addr, len), MISSING(-1))
