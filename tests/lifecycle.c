/*
 * lifecycle.c - a program linked with the library that exercises the
 * process life cycle, for test_lifecycle.c:
 *
 *   lifecycle fork     region "before" (2 cells), fork; the child runs
 *                      region "in_child" (3 cells), the parent region
 *                      "in_parent" (4 cells); both exit normally
 *   lifecycle exec     region "before_exec" (5 cells), then execs
 *                      /bin/true (a failed exec would exit 3)
 *   lifecycle threads  1000 short-lived threads, one at a time, each
 *                      reading a private buffer in a region; prints the
 *                      shadow memory and open descriptors after the
 *                      first 10 threads and after all of them
 *   lifecycle _exit    region "until_exit" left open, then _exit(5)
 *   lifecycle idle     no region at all
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trms.h"

#include "runtime.h"

static int cells_region(const char *name, unsigned cells)
{
	static _Alignas(64) char buf[256];

	trms_region_begin(name);
	trms_read(buf, 4 * cells);
	return trms_region_end(name);
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
	fprintf(stderr, "usage: lifecycle fork|exec|threads|_exit|idle\n");
	return 2;
}
