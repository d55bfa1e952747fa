/*
 * sm_waits.c - a thread that waits often beside one that only works:
 *
 *   sm-waits SECONDS
 *
 * "waiter" burns about 100 µs of its CPU time, then calls poll() with no
 * descriptor and no timeout (a blocking call that returns at once), over
 * and over: some 10,000 waits per second of its CPU time, a server's
 * pace.  "worker" only burns.  Each runs for SECONDS of its CPU time;
 * the program prints "done" once both have.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sm_common.h"

static double seconds;

SM_NOINLINE static void *waiter(void *arg)
{
	double end = sm_thread_cpu() + seconds;

	(void)arg;
	while (sm_thread_cpu() < end) {
		SM_BURN_CPU(0.0001);
		poll(NULL, 0, 0);
	}
	return NULL;
}

SM_NOINLINE static void *worker(void *arg)
{
	(void)arg;
	SM_BURN_CPU(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	seconds = argc > 1 ? atof(argv[1]) : 0.5;
	if (pthread_create(&a, NULL, waiter, NULL) ||
	    pthread_create(&b, NULL, worker, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("done");
	return 0;
}
