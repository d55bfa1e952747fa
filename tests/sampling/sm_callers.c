/*
 * sm_callers.c - csprof's Figure 1: one function whose cost per call
 * depends on its caller.
 *
 * Each round, a() calls work(1) 8 times and b() calls work(8) 4 times:
 * b calls work half as often as a does, yet 32 of the 40 units of work
 * are b's.  A profiler that splits work's time by call counts (gprof)
 * gives b a third of it; one that keeps calling contexts gives b 80%.
 *
 *   sm_callers [SECONDS]   rounds until the thread has used SECONDS of
 *                          CPU time (default 1.2), then prints the CPU
 *                          time measured inside a() and b()
 */
#include <stdio.h>
#include <stdlib.h>

#include "sm_common.h"

#define UNIT 20000ul /* LCG steps per unit of work */

SM_NOINLINE static void work(unsigned n)
{
	SM_SPIN(n * UNIT);
}

SM_NOINLINE static void a(void)
{
	for (int i = 0; i < 8; i++)
		work(1);
}

SM_NOINLINE static void b(void)
{
	for (int i = 0; i < 4; i++)
		work(8);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.2;
	double start = sm_thread_cpu(), in_a = 0, in_b = 0, now = start;
	unsigned long rounds = 0;

	while (now - start < seconds) {
		a();
		double mid = sm_thread_cpu();
		b();
		double end = sm_thread_cpu();
		in_a += mid - now;
		in_b += end - mid;
		now = end;
		rounds++;
	}
	printf("rounds %lu cpu_a %.3f cpu_b %.3f\n", rounds, in_a, in_b);
	return 0;
}
