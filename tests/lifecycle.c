/*
 * lifecycle.c - a program linked with the library that exercises the
 * process life cycle, for test_lifecycle.c:
 *
 *   lifecycle fork     region "before" (2 cells), fork; the child runs
 *                      region "in_child" (3 cells), the parent region
 *                      "in_parent" (4 cells); both exit normally
 *   lifecycle exec     region "before_exec" (5 cells), then execs
 *                      /bin/true (a failed exec would exit 3)
 *   lifecycle exec-self  region "first_image" (6 cells), then execs itself
 *                      as "lifecycle exec-self-2": region "second_image"
 *                      (7 cells), then execs itself as "lifecycle
 *                      after-exec": region "third_image" (8 cells)
 *   lifecycle threads  1000 short-lived threads, one at a time, each
 *                      reading a private buffer in a region; prints the
 *                      shadow memory and open descriptors after the
 *                      first 10 threads and after all of them
 *   lifecycle _exit    region "until_exit" left open, then _exit(5)
 *   lifecycle idle     no region at all
 *   lifecycle flush    no region, but asks for the profile (trms_flush);
 *                      exits with 0 if it was written
 *   lifecycle flush-busy  works some 0.2 s of CPU time (to be sampled),
 *                      asks for the profile, and exits with 0 if it was
 *                      written (the exit writes it again)
 *   lifecycle spin     counts to 2 billion with no system call (some
 *                      0.7 s of CPU time, to be sampled), exits 0
 *   lifecycle io       no region, but reads a file and writes its
 *                      standard output through the hooked calls
 *   lifecycle sigterm  region "until_signal" (7 cells) left open, then
 *                      SIGTERM, which the program does not handle
 *   lifecycle handled  asks for SIGTERM's disposition (must be the
 *                      default: exit 4 otherwise), handles SIGTERM
 *                      itself (exit 9 from its handler), and raises it
 *   lifecycle exec-loop  300 times: fork, and the child execs /bin/true;
 *                      exit 0 if every child exited 0 (run with fast
 *                      sampling: no sample signal may outlive the exec)
 *   lifecycle fsize N  lower RLIMIT_FSIZE to N bytes, run 300 regions of
 *                      distinct names (a profile of some 20 KB), exit 0
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trms.h"

#include "runtime/thread.h"

static int cells_region(const char *name, unsigned cells)
{
	static _Alignas(64) char buf[256];

	trms_region_begin(name);
	trms_read(buf, 4 * cells);
	return trms_region_end(name);
}

static void exit_on_signal(int sig)
{
	(void)sig;
	exit(9);
}

static int open_descriptors(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void *short_lived(void *arg)
{
	char buf[4096];

	(void)arg;
	memset(buf, 1, sizeof(buf));
	trms_region_begin("worker");
	trms_write(buf, sizeof(buf));
	trms_read(buf, sizeof(buf));
	trms_region_end("worker");
	return NULL;
}

static int run_threads(void)
{
	for (int i = 0; i < 1000; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) ||
		    pthread_join(t, NULL))
			return 1;
		if (i == 9)
			printf("after 10: shadow %zu fds %d\n",
			       engine_shadow_bytes(&runtime.engine),
			       open_descriptors());
	}
	printf("after 1000: shadow %zu fds %d\n",
	       engine_shadow_bytes(&runtime.engine), open_descriptors());
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "fork")) {
		cells_region("before", 2);
		pid_t child = fork();
		if (child < 0)
			return 1;
		if (child == 0)
			return cells_region("in_child", 3) ? 1 : 0;
		cells_region("in_parent", 4);
		int status;
		waitpid(child, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	if (!strcmp(mode, "exec")) {
		cells_region("before_exec", 5);
		execl("/bin/true", "true", (char *)NULL);
		return 3;
	}
	if (!strcmp(mode, "exec-self") || !strcmp(mode, "exec-self-2")) {
		bool first = !strcmp(mode, "exec-self");
		cells_region(first ? "first_image" : "second_image",
			     first ? 6 : 7);
		execl("/proc/self/exe", "lifecycle",
		      first ? "exec-self-2" : "after-exec", (char *)NULL);
		return 3;
	}
	if (!strcmp(mode, "after-exec"))
		return cells_region("third_image", 8) ? 1 : 0;
	if (!strcmp(mode, "threads"))
		return run_threads();
	if (!strcmp(mode, "_exit")) {
		static _Alignas(64) char buf[24];
		trms_region_begin("until_exit");
		trms_read(buf, sizeof(buf));
		_exit(5);
	}
	if (!strcmp(mode, "idle"))
		return 0;
	if (!strcmp(mode, "flush"))
		return trms_flush() == 0 ? 0 : 1;
	if (!strcmp(mode, "flush-busy")) {
		volatile unsigned long sum = 0;
		for (unsigned long i = 0; i < 200000000ul && clock() <
						       CLOCKS_PER_SEC / 5;
		     i++)
			sum += i;
		return trms_flush() == 0 ? 0 : 1;
	}
	if (!strcmp(mode, "spin")) {
		volatile unsigned long sum = 0;
		for (unsigned long i = 0; i < 2000000000ul; i++)
			sum += i;
		return 0;
	}
	if (!strcmp(mode, "io")) {
		char buf[256];
		int fd = open("/proc/self/stat", O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
		if (fd >= 0)
			close(fd);
		return n > 0 && write(STDOUT_FILENO, "read\n", 5) == 5 ? 0 : 1;
	}
	if (!strcmp(mode, "sigterm")) {
		static _Alignas(64) char buf[28];
		trms_region_begin("until_signal");
		trms_read(buf, sizeof(buf));
		raise(SIGTERM);
		return 6; /* not reached: the signal kills the process */
	}
	if (!strcmp(mode, "handled")) {
		struct sigaction old, sa;
		if (sigaction(SIGTERM, NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			return 4;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = exit_on_signal;
		sigaction(SIGTERM, &sa, NULL);
		cells_region("before_signal", 1);
		raise(SIGTERM);
		return 8;
	}
	if (!strcmp(mode, "exec-loop")) {
		for (int i = 0; i < 300; i++) {
			int status;
			pid_t child = fork();
			if (child < 0)
				return 1;
			if (child == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(3);
			}
			if (waitpid(child, &status, 0) != child ||
			    !WIFEXITED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, "child %d: status %#x\n", i,
					status);
				return 1;
			}
		}
		return 0;
	}
	if (!strcmp(mode, "fsize") && argc > 2) {
		struct rlimit limit = { (rlim_t)atol(argv[2]), RLIM_INFINITY };
		char name[32];
		if (setrlimit(RLIMIT_FSIZE, &limit))
			return 1;
		for (int i = 0; i < 300; i++) {
			snprintf(name, sizeof(name), "region_%d", i);
			cells_region(name, 1 + (unsigned)i % 8);
		}
		return 0;
	}
	fprintf(stderr, "usage: lifecycle fork|exec|threads|_exit|idle|flush|flush-busy|io|"
			"sigterm|handled|exec-loop|fsize N\n");
	return 2;
}
