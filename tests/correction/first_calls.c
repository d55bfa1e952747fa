/*
 * first_calls.c - threads whose first calls of the library come at the
 * same moment, costs in ns: for tests/correction/first_calls.sh.
 *
 *   first_calls linked   the API called as the header's inline forms do
 *   first_calls dlsym    the API found with dlsym (the library preloaded,
 *                        the program importing none of it: built with
 *                        DLSYM_ONLY): the library learns of regions only
 *                        when the first begins
 *
 * Four threads, released together by a barrier, each begins a region,
 * reads a buffer of its own cell by cell and ends the region, 200 times.
 * Each thread's first call is its first contact with the library, and
 * in the dlsym form the first begin of the process is the one that
 * chooses the cost clock while the other threads are already inside
 * their calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trms.h>

#define THREADS 4
#define CELLS 256

static int (*begin)(const char *);
static int (*end)(const char *);
static int (*read_cells)(const void *, size_t);
static pthread_barrier_t start;

#ifndef DLSYM_ONLY
static int begin_linked(const char *name) { return trms_region_begin(name); }
static int end_linked(const char *name) { return trms_region_end(name); }
static int read_linked(const void *addr, size_t size)
{
	return trms_read(addr, size);
}
#endif

static void *work(void *arg)
{
	static __thread int cells[CELLS];
	long sum = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (int round = 0; round < 200; round++) {
		begin("first");
		for (int i = 0; i < CELLS; i++) {
			read_cells(&cells[i], sizeof(int));
			sum += cells[i];
		}
		end("first");
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];

#ifndef DLSYM_ONLY
	if (argc == 2 && !strcmp(argv[1], "linked")) {
		begin = begin_linked;
		end = end_linked;
		read_cells = read_linked;
	} else
#endif
	if (argc == 2 && !strcmp(argv[1], "dlsym")) {
		begin = (int (*)(const char *))dlsym(RTLD_DEFAULT,
						     "trms_region_begin");
		end = (int (*)(const char *))dlsym(RTLD_DEFAULT,
						   "trms_region_end");
		read_cells = (int (*)(const void *, size_t))dlsym(
			RTLD_DEFAULT, "trms_read");
		if (!begin || !end || !read_cells) {
			fprintf(stderr, "first_calls: the library is not loaded\n");
			return 2;
		}
	} else {
		fprintf(stderr, "usage: first_calls linked|dlsym\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, work, NULL))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
