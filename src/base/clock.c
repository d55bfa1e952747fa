/*
 * clock.c - the cost clock (see clock.h).
 */
#define _GNU_SOURCE
#include "base/clock.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/sys.h"

#ifdef CLOCK_HAVE_TSC
#include <cpuid.h>
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#endif
#endif

bool clock_use_tsc;

/* The two clocks read together at clock_init. */
static struct clock_pair anchor;

#ifdef CLOCK_HAVE_TSC
/* Does the TSC tick at a constant rate in all power states (CPUID
 * "invariant TSC")? */
static bool invariant_tsc(void)
{
#ifdef CPU_FEATURE_PRESENT
	/* As the C library read it at start: a CPUID instruction is a trap
	 * to the hypervisor in a virtual machine (5 us here). */
	return CPU_FEATURE_PRESENT(INVARIANT_TSC);
#else
	unsigned eax, ebx, ecx, edx;

	return __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) &&
	       (edx & (1u << 8));
#endif
}
#endif

/* Trust the TSC only if it is invariant and the kernel agrees it is a good
 * clock (its own clock source). */
static bool tsc_usable(void)
{
#ifdef CLOCK_HAVE_TSC
	char source[32] = "";

	if (!invariant_tsc())
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

void clock_pair_read(struct clock_pair *p)
{
	p->spread_ns = UINT64_MAX;
	/* The tightest of three brackets: the first may take the vDSO's
	 * page faults, any may be interrupted. */
	for (int i = 0; i < 3; i++) {
		uint64_t before = clock_monotonic_ns();
		uint64_t ticks = clock_ticks();
		uint64_t after = clock_monotonic_ns();
		if (after - before < p->spread_ns) {
			p->spread_ns = after - before;
			p->ns = before + (after - before) / 2;
			p->ticks = ticks;
		}
	}
}

int clock_chosen;
/* Set while this thread chooses: a signal handler that interrupts it and
 * asks again must not wait for itself. */
static __thread bool choosing __attribute__((tls_model("initial-exec")));

void clock_init(void)
{
	int expected = 0;

	if (__atomic_load_n(&clock_chosen, __ATOMIC_ACQUIRE) == 2 || choosing)
		return;
	if (!__atomic_compare_exchange_n(&clock_chosen, &expected, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&clock_chosen, __ATOMIC_ACQUIRE) != 2)
#ifdef CLOCK_HAVE_TSC
			_mm_pause();
#else
			;
#endif
		return;
	}
	choosing = true;
	bool tsc = tsc_usable();
	/* The anchor in the chosen clock's ticks. */
	__atomic_store_n(&clock_use_tsc, tsc, __ATOMIC_RELAXED);
	clock_pair_read(&anchor);
	choosing = false;
	__atomic_store_n(&clock_chosen, 2, __ATOMIC_RELEASE);
}

uint64_t clock_ticks_unchosen(void)
{
	clock_init();
#ifdef CLOCK_HAVE_TSC
	if (__atomic_load_n(&clock_use_tsc, __ATOMIC_RELAXED))
		return __rdtsc();
#endif
	return clock_monotonic_ns();
}

void clock_after_fork_child(void)
{
	/* A thread that was choosing is not in the child: the choice starts
	 * again there, or clock_init would wait for it for ever. */
	int expected = 1;

	__atomic_compare_exchange_n(&clock_chosen, &expected, 0, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The TSC's rate as the processor states it, in nanoseconds per tick;
 * 0 if it does not.  Leaf 0x15 gives the crystal clock and the TSC's
 * ratio to it (recent Intel processors; the crystal is often left 0),
 * leaf 0x40000010 the TSC's kHz under VMware and hypervisors that copy
 * it.  Leaf 0x16's base frequency is only nominal: not used. */
static double cpuid_ns_per_tick(void)
{
#ifdef CLOCK_HAVE_TSC
	unsigned eax, ebx, ecx, edx;

	if (__get_cpuid_max(0, NULL) >= 0x15) {
		__cpuid_count(0x15, 0, eax, ebx, ecx, edx);
		if (eax && ebx && ecx)
			return 1e9 * eax / ((double)ecx * ebx);
	}
	/* Leaf 1, ECX bit 31: running under a hypervisor, whose leaves
	 * start at 0x40000000. */
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 31))) {
		__cpuid(0x40000000, eax, ebx, ecx, edx);
		if (eax >= 0x40000010 && eax < 0x40010000) {
			__cpuid(0x40000010, eax, ebx, ecx, edx);
			if (eax)
				return 1e6 / eax;
		}
	}
#endif
	return 0.0;
}

double clock_rate_between(const struct clock_pair *from,
			  const struct clock_pair *to, double *error)
{
	uint64_t ns = to->ns - from->ns, ticks = to->ticks - from->ticks;

	/* Each pair's middle is within half its spread of the moment the
	 * ticks were read. */
	if (error)
		*error = ns ? (double)(from->spread_ns + to->spread_ns) / 2 /
				      (double)ns
			    : 1.0;
	return ticks && to->ns > from->ns ? (double)ns / (double)ticks : 0.0;
}

double clock_ns_per_tick(void)
{
	static double stated = -1.0; /* the processor's, once looked up */
	struct clock_pair now;
	double error;

	if (!__atomic_load_n(&clock_use_tsc, __ATOMIC_RELAXED))
		return 1.0;
	clock_pair_read(&now);
	double measured = clock_rate_between(&anchor, &now, &error);
	if (measured > 0 && error <= CLOCK_RATE_ERROR)
		return measured;
	/* Too short a run to measure the rate that precisely: the
	 * processor's own statement, if it makes one (a race between two
	 * writers only looks it up twice). */
	double rate;
	__atomic_load(&stated, &rate, __ATOMIC_RELAXED);
	if (rate < 0) {
		rate = cpuid_ns_per_tick();
		__atomic_store(&stated, &rate, __ATOMIC_RELAXED);
	}
	if (rate > 0)
		return rate;
	return measured > 0 ? measured : 1.0;
}

uint64_t clock_ticks_to_ns(uint64_t ticks)
{
	/* Nothing to convert, no rate to find (which may take the
	 * processor's word for it, a trap to the hypervisor). */
	return ticks ? (uint64_t)((double)ticks * clock_ns_per_tick() + 0.5)
		     : 0;
}

const char *clock_source(void)
{
	return __atomic_load_n(&clock_use_tsc, __ATOMIC_RELAXED) ? "tsc"
								  : "monotonic";
}
