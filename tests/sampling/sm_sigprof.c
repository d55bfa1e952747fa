/*
 * sm_sigprof.c - a program that profiles itself with signals of its own,
 * next to the library's sampling.
 *
 *   sm_sigprof prof [SECONDS]  a SIGPROF handler and ITIMER_PROF at
 *                              100 Hz of process CPU time
 *   sm_sigprof rt [SECONDS]    a handler for SIGRTMAX (the real-time
 *                              signal the library picks first) and a
 *                              POSIX timer on the process CPU clock at
 *                              100 Hz that raises it
 *
 * Burns SECONDS (default 1.5) of CPU time in burn_with_own_timer, then
 * stops the timer and prints "hits H cpu C signal S": how many times its
 * handler ran, the process CPU time while the timer ran, and the signal.
 * Exit status 0; 3 if setting up failed; 4 if sigaction does not report
 * the program's own handler back; 5 if the handler saw another signal.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "sm_common.h"

static volatile sig_atomic_t hits, wrong;
static int own_signal;

static void on_own_signal(int sig)
{
	if (sig != own_signal)
		wrong = 1;
	hits++;
}

SM_NOINLINE static void burn_with_own_timer(double seconds)
{
	SM_BURN_CPU(seconds);
}

int main(int argc, char **argv)
{
	int rt = argc > 1 && !strcmp(argv[1], "rt");
	double seconds = argc > 2 ? atof(argv[2]) : 1.5;
	struct sigaction sa, back;
	timer_t timer;

	own_signal = rt ? SIGRTMAX : SIGPROF;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_own_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(own_signal, &sa, NULL))
		return 3;
	if (sigaction(own_signal, NULL, &back) ||
	    back.sa_handler != on_own_signal)
		return 4;

	double start = sm_clock(CLOCK_PROCESS_CPUTIME_ID);
	if (rt) {
		struct sigevent sev;
		struct itimerspec its = { { 0, 10000000 }, { 0, 10000000 } };
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = own_signal;
		if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer) ||
		    timer_settime(timer, 0, &its, NULL))
			return 3;
	} else {
		struct itimerval itv = { { 0, 10000 }, { 0, 10000 } };
		if (setitimer(ITIMER_PROF, &itv, NULL))
			return 3;
	}
	burn_with_own_timer(seconds);
	if (rt) {
		struct itimerspec off = { { 0, 0 }, { 0, 0 } };
		timer_settime(timer, 0, &off, NULL);
	} else {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_PROF, &off, NULL);
	}
	double cpu = sm_clock(CLOCK_PROCESS_CPUTIME_ID) - start;
	printf("hits %d cpu %.3f signal %d\n", (int)hits, cpu, own_signal);
	return wrong ? 5 : 0;
}
