/*
 * lock.h - taking a mutex from where waiting for ever is not an option:
 * a signal handler (or _exit) that may have interrupted the lock's owner,
 * perhaps in this very thread.
 */
#ifndef TRMS_LOCK_H
#define TRMS_LOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

/* Take @m within @wait_ns, yielding then sleeping a millisecond at a time
 * (raw nanosleep: not the library's own hook); give up at once if
 * @give_up (may be NULL) says so.  @return whether @m was taken. */
static inline bool mutex_lock_within(pthread_mutex_t *m, uint64_t wait_ns,
				     bool (*give_up)(void))
{
	uint64_t deadline = clock_monotonic_ns() + wait_ns;

	for (int i = 0;; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return true;
		if ((give_up && give_up()) || clock_monotonic_ns() > deadline)
			return false;
		if (i < 100) {
			sched_yield();
		} else {
			struct timespec ms = { 0, 1000000 };
			syscall(SYS_nanosleep, &ms, NULL);
		}
	}
}

#endif
