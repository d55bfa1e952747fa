/*
 * sm_masked.c - a program that keeps every signal blocked while it works.
 *
 *   sm_masked [SECONDS]  burns SECONDS (default 0.5) of CPU time with all
 *                        signals blocked, unblocks them, and prints "cpu C":
 *                        the CPU time it used.
 *
 * A sampling timer that expires meanwhile cannot deliver: its signal stays
 * pending and the kernel counts the further expirations as the timer's
 * overrun, which the library must count as samples all the same.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "sm_common.h"

SM_NOINLINE static void burn_masked(double seconds)
{
	SM_BURN_CPU(seconds);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	sigset_t all, old;

	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, &old))
		return 3;
	double start = sm_thread_cpu();
	burn_masked(seconds);
	double cpu = sm_thread_cpu() - start;
	if (sigprocmask(SIG_SETMASK, &old, NULL))
		return 3;
	printf("cpu %.3f\n", cpu);
	return 0;
}
