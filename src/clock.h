/*
 * clock.h - the cost clock for costs in nanoseconds.
 *
 * Where the processor has an invariant time-stamp counter and the kernel
 * itself keeps time with it, the clock is the TSC (a few nanoseconds a
 * read, no system call); otherwise CLOCK_MONOTONIC.  Costs are kept in
 * ticks and converted to nanoseconds when the profile is written, with a
 * ratio measured against CLOCK_MONOTONIC over the whole run.
 */
#ifndef TRMS_CLOCK_H
#define TRMS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CLOCK_HAVE_TSC 1
#endif

extern bool clock_use_tsc;

void clock_init(void);

static inline uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_ticks(void)
{
#ifdef CLOCK_HAVE_TSC
	if (clock_use_tsc)
		return __rdtsc();
#endif
	return clock_monotonic_ns();
}

/* The same, but only once every instruction before it has completed
 * (its loads included): for measuring code whose time is mostly waiting
 * for memory, which a plain read of the counter can overtake. */
static inline uint64_t clock_ticks_after(void)
{
#ifdef CLOCK_HAVE_TSC
	if (clock_use_tsc) {
		unsigned aux;
		return __rdtscp(&aux);
	}
#endif
	return clock_monotonic_ns();
}

/* Nanoseconds per tick, measured since clock_init (waits until at least
 * 10 ms have passed, for precision). */
double clock_ns_per_tick(void);

/* "tsc" or "monotonic". */
const char *clock_source(void);

#endif
