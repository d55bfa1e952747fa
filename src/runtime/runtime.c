/*
 * runtime.c - the library's state in the process (see runtime.h): set up
 * by the start-up (preload.c), used by every layer from the threads up.
 */
#include "runtime/runtime.h"

#include <time.h>

/* Within one page (it is 1 KiB at most): its locks, taken before a fork
 * and released after it on both sides, then cost each side one page
 * copied, not two. */
struct runtime runtime __attribute__((aligned(1024)));
_Static_assert(sizeof(struct runtime) <= 1024, "runtime fits its page");
atomic_int runtime_state;

uint64_t runtime_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

