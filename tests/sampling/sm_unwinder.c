/*
 * sm_unwinder.c - a program of one thread whose first samples find it in
 * places where the library must not open libunwind (unwind.h), then in
 * its own code.
 *
 *   sm_unwinder maps SECONDS     says whether libunwind is mapped ("start
 *                                no"/"start yes"), burns SECONDS of CPU
 *                                time in burn(), says again ("end ...")
 *   sm_unwinder handler SECONDS  burns SECONDS in burn_in_handler(), a
 *                                handler of SIGUSR1 that interrupted
 *                                raise(), says whether libunwind is
 *                                mapped ("handler no"), then burns
 *                                SECONDS in burn_after() ("end yes")
 *   sm_unwinder chroot SECONDS   changes its root to its working
 *                                directory (as root), burns SECONDS in
 *                                burn(), prints "chroot ok" ("chroot
 *                                refused" if not allowed)
 *   sm_unwinder memset COUNT     COUNT memsets of 1 MiB in fill(), with
 *                                no system call; prints "sum N"
 *   sm_unwinder malloc SECONDS   allocates and frees in a tight loop
 *                                (mostly inside the C library's malloc)
 *                                for SECONDS of CPU time, then burns as
 *                                long in burn(); prints "sum N"
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_common.h"

static double seconds;

static const char *mapped(void)
{
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "r");
	const char *found = "no";

	if (!maps)
		return "unknown";
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "/libunwind"))
			found = "yes";
	fclose(maps);
	return found;
}

SM_NOINLINE static void burn(void)
{
	SM_BURN_CPU(seconds);
}

SM_NOINLINE static void burn_in_handler(void)
{
	SM_BURN_CPU(seconds);
}

SM_NOINLINE static void burn_after(void)
{
	SM_BURN_CPU(seconds);
}

/* Raised by main: it interrupts raise(), not the allocator, and may look
 * at its maps with stdio. */
static void on_usr1(int sig)
{
	(void)sig;
	burn_in_handler();
	printf("handler %s\n", mapped());
}

/* @times memsets of 1 MiB, no system call: the samples find the program
 * inside the C library's memset all along. */
SM_NOINLINE static unsigned long fill(unsigned long times)
{
	static char buffer[1 << 20];
	unsigned long sum = 0;

	for (unsigned long i = 0; i < times; i++) {
		memset(buffer, (int)i, sizeof(buffer));
		sum += (unsigned char)buffer[i % sizeof(buffer)];
	}
	return sum;
}

SM_NOINLINE static unsigned long allocate(void)
{
	double end = sm_thread_cpu() + seconds;
	unsigned long sum = 0;

	while (sm_thread_cpu() < end)
		for (unsigned i = 1; i < 2000; i++) {
			char *p = malloc(i * 8);
			if (!p)
				abort();
			p[0] = (char)i;
			sum += (unsigned char)p[0];
			free(p);
		}
	return sum;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	seconds = atof(argv[2]);
	if (!strcmp(argv[1], "maps")) {
		printf("start %s\n", mapped());
		burn();
		printf("end %s\n", mapped());
	} else if (!strcmp(argv[1], "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		burn_after();
		printf("end %s\n", mapped());
	} else if (!strcmp(argv[1], "chroot")) {
		/* Into the working directory, as daemons lock themselves
		 * in: nothing of /usr inside. */
		if (chroot(".") != 0) {
			printf("chroot refused\n");
			return 0;
		}
		burn();
		printf("chroot ok\n");
	} else if (!strcmp(argv[1], "memset")) {
		printf("sum %lu\n", fill(strtoul(argv[2], NULL, 10)));
	} else if (!strcmp(argv[1], "malloc")) {
		printf("sum %lu\n", allocate());
		burn();
	} else {
		return 2;
	}
	return 0;
}
