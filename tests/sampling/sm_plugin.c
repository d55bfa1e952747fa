/*
 * sm_plugin.c - a plugin that sm_dlopen loads, runs and unloads.
 */
#include "sm_common.h"

double burn_in_plugin(double seconds);

/* Burn @seconds of the calling thread's CPU time, in this function's own
 * frame.  @return the CPU time it took. */
SM_NOINLINE double burn_in_plugin(double seconds)
{
	double start = sm_thread_cpu();

	SM_BURN_CPU(seconds);
	return sm_thread_cpu() - start;
}
