/*
 * sm_sigtrap.c - a program with uses of SIGTRAP of its own, which the
 * library's sampling may arrive on.
 *
 *   sm_sigtrap handler N  installs a SIGTRAP handler, then burns CPU while
 *                         raising SIGTRAP N times and executing int3 N
 *                         times; prints "hits H" (its handler's runs) and
 *                         exits 0; 4 if sigaction does not report its
 *                         handler back, 5 if its handler saw a SIGTRAP
 *                         that was neither of its own
 *   sm_sigtrap ignore N   ignores SIGTRAP, raises it N times while
 *                         burning CPU, prints "survived", exits 0
 *   sm_sigtrap default    burns CPU 0.3 s, then raises SIGTRAP at its
 *                         default disposition: dies of it
 *   sm_sigtrap exec N     burns 0.1 s of CPU with SIGTRAP blocked and
 *                         executes itself with N - 1, until 0, the last
 *                         time without LD_PRELOAD; that one unblocks
 *                         SIGTRAP and exits 0
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_common.h"

static volatile sig_atomic_t hits, foreign;

static void on_trap(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	/* raise() sends SI_TKILL; int3 comes from the kernel. */
	if (sig != SIGTRAP ||
	    (info->si_code != SI_TKILL && info->si_code != SI_KERNEL))
		foreign = 1;
	hits++;
}

SM_NOINLINE static void burn_and_trap(int n, bool int3)
{
	for (int i = 0; i < n; i++) {
		SM_BURN_CPU(0.01);
		raise(SIGTRAP);
		if (int3)
			__asm__ volatile("int3");
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0;
	struct sigaction sa, back;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (!strcmp(mode, "handler")) {
		sa.sa_sigaction = on_trap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		if (sigaction(SIGTRAP, &sa, NULL))
			return 3;
		if (sigaction(SIGTRAP, NULL, &back) ||
		    back.sa_sigaction != on_trap)
			return 4;
		burn_and_trap(n, true);
		printf("hits %d\n", (int)hits);
		return foreign ? 5 : 0;
	}
	if (!strcmp(mode, "ignore")) {
		sa.sa_handler = SIG_IGN;
		if (sigaction(SIGTRAP, &sa, NULL))
			return 3;
		burn_and_trap(n, false);
		printf("survived\n");
		return 0;
	}
	if (!strcmp(mode, "default")) {
		SM_BURN_CPU(0.3);
		raise(SIGTRAP);
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		/* Burn with SIGTRAP blocked, so that a sample's stays
		 * pending; the last image runs without the library, and
		 * unblocks it: one still pending after exec kills it. */
		sigset_t trap;
		sigemptyset(&trap);
		sigaddset(&trap, SIGTRAP);
		sigprocmask(SIG_BLOCK, &trap, NULL);
		SM_BURN_CPU(0.1);
		if (n <= 0) {
			sigprocmask(SIG_UNBLOCK, &trap, NULL);
			return 0;
		}
		if (n == 1)
			unsetenv("LD_PRELOAD");
		char next[16];
		snprintf(next, sizeof(next), "%d", n - 1);
		char *args[] = { argv[0], "exec", next, NULL };
		execv("/proc/self/exe", args);
		return 3;
	}
	return 2;
}
