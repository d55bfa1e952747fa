/*
 * clock.h - the cost clock for costs in nanoseconds.
 *
 * Where the processor has an invariant time-stamp counter and the kernel
 * itself keeps time with it, the clock is the TSC (a few nanoseconds a
 * read, no system call); otherwise CLOCK_MONOTONIC.  Costs are kept in
 * ticks and converted to nanoseconds when the profile is written, with a
 * ratio measured against CLOCK_MONOTONIC over the whole run, never by
 * waiting (see clock_ns_per_tick).
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

/* Set once, by clock_init; read with relaxed atomic loads. */
extern bool clock_use_tsc;
/* 0: not chosen yet, 1: being chosen, 2: chosen. */
extern int clock_chosen;

/*
 * Choose the cost clock (the TSC or CLOCK_MONOTONIC) and read the pair
 * that rates are measured from.  Once per process: later calls return at
 * once, or wait for the thread that is choosing (a few microseconds);
 * async-signal-safe.  It costs a file read (the kernel's clock source, in
 * sysfs), so the library makes it only when costs will be measured: at
 * start in a program that can open regions, else at the first region,
 * and before a sandbox closes; and the first clock_ticks of the process
 * makes it if nothing has, so that no interval is ever read in two
 * clocks (one thread inside a call while another chooses).
 */
void clock_init(void);

/* clock_ticks before the choice: make it, then read. */
uint64_t clock_ticks_unchosen(void);

/* Is the cost clock chosen?  A reader that must not make the choice (a
 * signal handler: it opens a file) times nothing until it is. */
static inline bool clock_is_chosen(void)
{
	return __atomic_load_n(&clock_chosen, __ATOMIC_ACQUIRE) == 2;
}

/* In a forked child (its atfork handler). */
void clock_after_fork_child(void);

static inline uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_ticks(void)
{
#ifdef CLOCK_HAVE_TSC
	if (__atomic_load_n(&clock_use_tsc, __ATOMIC_RELAXED))
		return __rdtsc();
#endif
	if (__builtin_expect(
		    __atomic_load_n(&clock_chosen, __ATOMIC_ACQUIRE) != 2, 0))
		return clock_ticks_unchosen();
	return clock_monotonic_ns();
}

/* The same, but only once every instruction before it has completed
 * (its loads included): for measuring code whose time is mostly waiting
 * for memory, which a plain read of the counter can overtake. */
static inline uint64_t clock_ticks_after(void)
{
#ifdef CLOCK_HAVE_TSC
	if (__atomic_load_n(&clock_use_tsc, __ATOMIC_RELAXED)) {
		unsigned aux;
		return __rdtscp(&aux);
	}
#endif
	if (__builtin_expect(
		    __atomic_load_n(&clock_chosen, __ATOMIC_ACQUIRE) != 2, 0))
		return clock_ticks_unchosen();
	return clock_monotonic_ns();
}

/* CLOCK_MONOTONIC and the cost clock read together: @ns is the middle of
 * two monotonic reads around the tick read, which lie @spread_ns apart. */
struct clock_pair {
	uint64_t ns, ticks, spread_ns;
};

void clock_pair_read(struct clock_pair *p);

/* Nanoseconds per tick from @from to @to (0 if no time passed); *@error
 * (if not NULL) bounds its relative error from the reads' spread. */
double clock_rate_between(const struct clock_pair *from,
			  const struct clock_pair *to, double *error);

/* The relative error up to which a measured rate is taken: about 0.5 ms
 * of run where a pair's spread is 25 ns. */
#define CLOCK_RATE_ERROR 1e-4

/*
 * Nanoseconds per tick: measured since clock_init, from a pair of reads
 * now and the pair read then.  Never waits: if the run was too short for
 * CLOCK_RATE_ERROR, the rate the processor states (CPUID), if it states
 * one, else the measurement as it is.  Async-signal-safe, no system call
 * but the vDSO's clock_gettime.
 */
double clock_ns_per_tick(void);

/* @ticks in nanoseconds; the rate is looked for only if @ticks is not 0. */
uint64_t clock_ticks_to_ns(uint64_t ticks);

/* "tsc" or "monotonic". */
const char *clock_source(void);

#endif
