/*
 * sm_systime.c - CPU time spent in the kernel.
 *
 * Burns 1 s of the thread's CPU time (default; or argv[1] seconds) in
 * kernel_burn, reading 64 KiB from /dev/zero at a time: nearly all of it
 * is system time, in read(2).  The reads are made with syscall(2), past
 * the library's read hook, so that the time is the kernel's alone and not
 * the hook's bookkeeping; with argv[2] "hooked", through the library's
 * read() (whose thread counts as inside a blocking call meanwhile).
 *
 * Prints "user U sys S" (getrusage(RUSAGE_THREAD), seconds); exit 0, or 3
 * if /dev/zero cannot be read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sm_common.h"

static char buf[65536];

static int hooked;

SM_NOINLINE static int kernel_burn(int fd, double seconds)
{
	double end = sm_thread_cpu() + seconds;

	/* A signal arriving in the middle makes the read return early with
	 * what it has (or EINTR before any byte): allowed, and what any
	 * signal does to a read of /dev/zero. */
	while (sm_thread_cpu() < end)
		if ((hooked ? read(fd, buf, sizeof(buf))
			    : syscall(SYS_read, fd, buf, sizeof(buf))) <= 0 &&
		    errno != EINTR)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	hooked = argc > 2 && !strcmp(argv[2], "hooked");
	struct rusage ru;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || kernel_burn(fd, seconds) || getrusage(RUSAGE_THREAD, &ru))
		return 3;
	printf("user %.3f sys %.3f\n",
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return 0;
}
