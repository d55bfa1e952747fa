/*
 * clock.c - the cost clock (see clock.h).
 */
#define _GNU_SOURCE
#include "clock.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"

#ifdef CLOCK_HAVE_TSC
#include <cpuid.h>
#endif

bool clock_use_tsc;

static uint64_t anchor_ticks, anchor_ns;

/* Trust the TSC only if it ticks at a constant rate in all power states
 * (CPUID "invariant TSC") and the kernel agrees it is a good clock. */
static bool tsc_usable(void)
{
#ifdef CLOCK_HAVE_TSC
	unsigned eax, ebx, ecx, edx;
	char source[32] = "";

	if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) ||
	    !(edx & (1u << 8)))
		return false;
	int fd = open("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = sys_read(fd, source, sizeof(source) - 1);
	close(fd);
	return n >= 3 && strncmp(source, "tsc", 3) == 0;
#else
	return false;
#endif
}

void clock_init(void)
{
	clock_use_tsc = tsc_usable();
	anchor_ns = clock_monotonic_ns();
	anchor_ticks = clock_ticks();
}

double clock_ns_per_tick(void)
{
	if (!clock_use_tsc)
		return 1.0;
	uint64_t ns, ticks;
	do {
		ns = clock_monotonic_ns();
		ticks = clock_ticks();
	} while (ns - anchor_ns < 10000000u);
	return (double)(ns - anchor_ns) / (double)(ticks - anchor_ticks);
}

const char *clock_source(void)
{
	return clock_use_tsc ? "tsc" : "monotonic";
}
