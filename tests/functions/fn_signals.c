/*
 * fn_signals.c - a signal handler that runs instrumented code, arriving
 * every 100 microseconds (a real-time timer) while the program calls a small
 * instrumented function in a loop: most signals land while the thread is
 * inside the library (its hooks, the engine, the trace).  For
 * tests/functions/functions.sh, built with `trms cc` (full mode): the run
 * must end, print what the native build prints, and its profile hold
 * exactly CALLS activations of step and one of main (whatever activations
 * of on_tick the library could not take while busy are left out, never
 * half taken).  The number of signals handled is printed on a line of its
 * own, the last, which differs from run to run.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

static volatile int table[64];
static volatile sig_atomic_t ticks;
static volatile long sink;

NOINLINE void on_tick(int sig)
{
	(void)sig;
	ticks = ticks + 1;
	sink = table[ticks % 64];
}

NOINLINE long step(long i)
{
	return table[i % 64] + i;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	struct sigaction sa = { .sa_handler = on_tick };
	struct itimerval every = { { 0, 100 }, { 0, 100 } }, off = { 0 };
	long total = 0;

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGALRM, &sa, NULL) ||
	    setitimer(ITIMER_REAL, &every, NULL))
		return 1;
	for (long i = 0; i < calls; i++)
		total += step(i);
	if (setitimer(ITIMER_REAL, &off, NULL))
		return 1;
	printf("%ld\n%d\n", total, (int)ticks);
	return 0;
}
