/*
 * sm_stress.c - everything at once, for a long time, under fast sampling.
 *
 *   sm_stress SECONDS THREADS DIR
 *
 * THREADS threads each loop for SECONDS of wall time: malloc, calloc,
 * realloc and free of blocks from 1 byte to 64 KiB kept in a ring; a
 * round trip of 256 bytes through a pipe of its own; pwrite and pread of
 * 4 KiB in a file of its own in DIR; every 64 rounds, a line written with
 * fprintf to another file and read back with fgets; a shared counter
 * under a shared mutex.  Meanwhile one more thread creates and joins a
 * short-lived thread every few milliseconds.  Every result is checked;
 * the first wrong one is printed and the process exits 1.
 *
 * Prints "stress ok: THREADS threads, N rounds, M threads churned" and
 * exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_common.h"

#define RING 64

static double deadline;
static const char *dir;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_counter;
static atomic_ulong rounds_done, churned;
static atomic_int finished;

static void die(int thread, const char *what, long rc)
{
	printf("FAIL thread %d: %s returned %ld (errno %d %s)\n", thread, what,
	       rc, errno, strerror(errno));
	fflush(stdout);
	exit(1);
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

SM_NOINLINE static void memory_round(int id, void **ring, uint64_t *rnd)
{
	unsigned slot = (unsigned)(next_random(rnd) % RING);
	size_t size = 1 + (size_t)(next_random(rnd) % 65536);

	switch (next_random(rnd) % 4) {
	case 0:
		free(ring[slot]);
		ring[slot] = malloc(size);
		break;
	case 1:
		free(ring[slot]);
		ring[slot] = calloc(1, size);
		break;
	default: {
		void *p = realloc(ring[slot], size);
		if (!p)
			die(id, "realloc", 0);
		ring[slot] = p;
		break;
	}
	}
	if (!ring[slot])
		die(id, "malloc/calloc", 0);
	memset(ring[slot], id, size < 256 ? size : 256);
}

SM_NOINLINE static void pipe_round(int id, const int *p, unsigned round)
{
	char out[256], in[256];
	size_t got = 0;

	memset(out, (int)(round & 0xff), sizeof(out));
	ssize_t rc = write(p[1], out, sizeof(out));
	if (rc != (ssize_t)sizeof(out))
		die(id, "write to pipe", rc);
	while (got < sizeof(in)) {
		rc = read(p[0], in + got, sizeof(in) - got);
		if (rc <= 0)
			die(id, "read from pipe", rc);
		got += (size_t)rc;
	}
	if (memcmp(in, out, sizeof(in)))
		die(id, "pipe round trip (data differs)", 0);
}

SM_NOINLINE static void file_round(int id, int fd, unsigned round)
{
	char out[4096], in[4096];
	off_t at = (off_t)(round % 16) * 4096;

	memset(out, (int)((round * 7 + (unsigned)id) & 0xff), sizeof(out));
	ssize_t rc = pwrite(fd, out, sizeof(out), at);
	if (rc != (ssize_t)sizeof(out))
		die(id, "pwrite", rc);
	rc = pread(fd, in, sizeof(in), at);
	if (rc != (ssize_t)sizeof(in))
		die(id, "pread", rc);
	if (memcmp(in, out, sizeof(in)))
		die(id, "pread (data differs)", 0);
}

SM_NOINLINE static void stdio_round(int id, unsigned round)
{
	char path[4096], line[128], want[128];

	snprintf(path, sizeof(path), "%s/stdio.%d", dir, id);
	snprintf(want, sizeof(want), "thread %d round %u\n", id, round);
	FILE *f = fopen(path, "w");
	if (!f || fputs(want, f) < 0 || fclose(f))
		die(id, "fopen/fputs/fclose", 0);
	f = fopen(path, "r");
	if (!f)
		die(id, "fopen for reading", 0);
	char *s = fgets(line, sizeof(line), f);
	fclose(f);
	if (!s || strcmp(line, want))
		die(id, "fgets (line differs)", 0);
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg, p[2];
	void *ring[RING] = { 0 };
	uint64_t rnd = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
	char path[4096];
	unsigned round = 0;

	snprintf(path, sizeof(path), "%s/data.%d", dir, id);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(id, "open", fd);
	if (pipe(p))
		die(id, "pipe", -1);
	while (sm_clock(CLOCK_MONOTONIC) < deadline) {
		memory_round(id, ring, &rnd);
		pipe_round(id, p, round);
		file_round(id, fd, round);
		if (round % 64 == 0)
			stdio_round(id, round);
		pthread_mutex_lock(&shared_lock);
		shared_counter++;
		pthread_mutex_unlock(&shared_lock);
		SM_SPIN(2000);
		round++;
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	close(fd);
	close(p[0]);
	close(p[1]);
	atomic_fetch_add(&rounds_done, round);
	return NULL;
}

static void *short_lived(void *arg)
{
	char *s = strdup("short-lived");

	(void)arg;
	SM_SPIN(50000);
	free(s);
	return NULL;
}

static void *churner(void *arg)
{
	(void)arg;
	while (!atomic_load(&finished)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL))
			die(-1, "pthread_create", -1);
		if (pthread_join(t, NULL))
			die(-1, "pthread_join", -1);
		atomic_fetch_add(&churned, 1);
		usleep(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: sm_stress SECONDS THREADS DIR\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	int n = atoi(argv[2]);
	pthread_t t[64], churn;

	dir = argv[3];
	if (n < 1 || n > 64)
		return 2;
	deadline = sm_clock(CLOCK_MONOTONIC) + seconds;
	if (pthread_create(&churn, NULL, churner, NULL))
		return 3;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 3;
	for (int i = 0; i < n; i++)
		if (pthread_join(t[i], NULL))
			return 3;
	atomic_store(&finished, 1);
	if (pthread_join(churn, NULL))
		return 3;
	printf("stress ok: %d threads, %lu rounds, %lu threads churned\n", n,
	       (unsigned long)atomic_load(&rounds_done),
	       (unsigned long)atomic_load(&churned));
	return 0;
}
