/*
 * sm_common.h - what the helper programs of the sampling tests share:
 * clocks, and CPU burning that the compiler can neither remove nor move
 * into another function.
 *
 * The helpers are built with -fno-optimize-sibling-calls, and their named
 * functions with SM_NOINLINE, so that every function the tests look for
 * is a frame of its own, under its own name (no inlining, no .constprop
 * or .isra clones, no tail calls).
 */
#ifndef SM_COMMON_H
#define SM_COMMON_H

#include <stdint.h>
#include <time.h>

#if defined(__clang__)
#define SM_NOINLINE __attribute__((noinline, used))
#else
#define SM_NOINLINE __attribute__((noipa, used))
#endif

static volatile uint64_t sm_sink;

static inline double sm_clock(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double sm_thread_cpu(void)
{
	return sm_clock(CLOCK_THREAD_CPUTIME_ID);
}

/* @iters steps of a 64-bit LCG: a few nanoseconds each, in place. */
#define SM_SPIN(iters)                                                     \
	do {                                                               \
		uint64_t x_ = sm_sink;                                     \
		for (unsigned long i_ = 0; i_ < (unsigned long)(iters);    \
		     i_++) {                                               \
			x_ = x_ * 6364136223846793005ull +                 \
			     1442695040888963407ull;                       \
			__asm__ volatile("" : "+r"(x_));                   \
		}                                                          \
		sm_sink = x_;                                              \
	} while (0)

/* Burn @seconds of the calling thread's CPU time, in the caller's frame. */
#define SM_BURN_CPU(seconds)                                               \
	do {                                                               \
		double end_ = sm_thread_cpu() + (seconds);                 \
		while (sm_thread_cpu() < end_)                             \
			SM_SPIN(20000);                                    \
	} while (0)

#endif
