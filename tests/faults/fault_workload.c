/*
 * fault_workload.c - an annotated program that makes the library allocate
 * in every way it does, for test_faults.c, which runs it with each of
 * those allocations failing in turn (TRMS_FAULT_ALLOC, tests/faults).
 *
 * Linked with the library built with fault injection (its whole archive,
 * so that its hooks of read, write, pthread_create and sigaction are the
 * ones called).  It names its thread; runs nested regions that read and
 * write buffers of several sizes (tuples, shadow memory); starts three
 * threads that pass data through a pipe (the I/O hooks, induced reads)
 * and write and read back a file of their own; installs a signal handler
 * and raises the signal; loads a shared library (the table of modules);
 * works long enough to be sampled.  What it prints depends on nothing the
 * library does: the data it moved and a checksum.  It exits with status 3,
 * so that a changed status shows.  The profile is written at exit.
 *
 * With FAULT_COUNT_FILE set, it writes there, last of all (after the
 * library's exit), how many allocations the library asked for.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trms.h"

/* In vm.c, built with TRMS_FAULT_INJECTION. */
extern unsigned long vm_allocations;

#define THREADS 3
#define CHUNK 4096

static uint64_t checksum(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

/* CPU work in a region of its own, long enough for a few samples. */
static uint64_t burn(const char *region, unsigned rounds)
{
	static _Alignas(64) unsigned char buf[1 << 16];
	uint64_t h = 14695981039346656037u;

	trms_region_begin(region);
	for (unsigned r = 0; r < rounds; r++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)(i * 31 + r);
		trms_write(buf, sizeof(buf));
		trms_read(buf, (size_t)1 << (6 + r % 10));
		h = checksum(buf, 4096, h);
	}
	trms_region_end(region);
	return h;
}

struct worker {
	int index, read_fd, write_fd;
	uint64_t received; /* checksum of what came through the pipe */
	uint64_t file;	   /* checksum of its file, read back */
	size_t bytes;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned char out[CHUNK], in[CHUNK];
	char name[32], path[64];

	snprintf(name, sizeof(name), "worker %d", w->index);
	trms_thread_name(name);
	trms_region_begin("pipe");
	w->received = 14695981039346656037u;
	for (int round = 0; round < 8; round++) {
		memset(out, 'a' + w->index + round, sizeof(out));
		trms_write(out, sizeof(out));
		if (write(w->write_fd, out, sizeof(out)) != sizeof(out))
			return NULL;
		size_t got = 0;
		while (got < sizeof(in)) {
			ssize_t n = read(w->read_fd, in + got, sizeof(in) - got);
			if (n <= 0)
				return NULL;
			got += (size_t)n;
		}
		w->received = checksum(in, got, w->received);
		w->bytes += got;
	}
	trms_region_end("pipe");

	snprintf(path, sizeof(path), "worker-%d.data", w->index);
	trms_region_begin("file");
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0)
		return NULL;
	for (int i = 0; i < 4; i++) {
		memset(out, '0' + i, sizeof(out));
		if (write(fd, out, sizeof(out)) != sizeof(out))
			return NULL;
	}
	lseek(fd, 0, SEEK_SET);
	w->file = 14695981039346656037u;
	for (ssize_t n; (n = read(fd, in, sizeof(in))) > 0;)
		w->file = checksum(in, (size_t)n, w->file);
	close(fd);
	unlink(path);
	trms_region_end("file");
	burn("worker burn", 400 + 100 * (unsigned)w->index);
	return w;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled += sig == SIGUSR1;
}

int main(void)
{
	struct worker workers[THREADS];
	pthread_t threads[THREADS];
	int pipes[THREADS][2];

	trms_thread_name("main");
	trms_region_begin("main");
	uint64_t h = burn("warm up", 400);

	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		perror("sigaction");
	raise(SIGUSR1);

	/* Worker i writes into pipe i and reads from pipe i - 1: a ring. */
	for (int i = 0; i < THREADS; i++)
		if (pipe(pipes[i])) {
			perror("pipe");
			return 1;
		}
	for (int i = 0; i < THREADS; i++) {
		workers[i] = (struct worker){ i, pipes[(i + THREADS - 1) %
						      THREADS][0],
					      pipes[i][1], 0, 0, 0 };
		int rc = pthread_create(&threads[i], NULL, work, &workers[i]);
		if (rc) {
			fprintf(stderr, "pthread_create: %s\n", strerror(rc));
			return 1;
		}
	}
	for (int i = 0; i < THREADS; i++) {
		void *done;
		pthread_join(threads[i], &done);
		printf("worker %d: %s, %zu bytes, pipe %016llx, file %016llx\n",
		       i, done ? "done" : "FAILED", workers[i].bytes,
		       (unsigned long long)workers[i].received,
		       (unsigned long long)workers[i].file);
	}

	void *lib = dlopen("libm.so.6", RTLD_NOW);
	double (*cosine)(double) = lib ? (double (*)(double))dlsym(lib, "cos")
				       : NULL;
	printf("cos(0) = %.1f\n", cosine ? cosine(0.0) : -1.0);
	if (lib)
		dlclose(lib);

	h = checksum((const unsigned char *)&h, sizeof(h), burn("finish", 400));
	trms_region_end("main");
	printf("signal handled %d time(s); checksum %016llx\n", (int)handled,
	       (unsigned long long)h);
	return 3;
}

/* After the library's own destructor (which writes the profile):
 * destructors of a lower priority run later. */
__attribute__((destructor(101))) static void count_allocations(void)
{
	const char *path = getenv("FAULT_COUNT_FILE");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "%lu\n", vm_allocations);
		fclose(f);
	}
}
