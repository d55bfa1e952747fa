/*
 * hostile_fds.c DIR - a daemon's habit under sampling: close every
 * descriptor but 0-2, then open files and write them while the CPU is
 * busy (so that samples arrive), with a thread that started before the
 * clean-up and ends after it.  Then read every file back.
 *
 * Exit 0 if every file holds exactly what was written, the program's
 * descriptors are all still its own, and no descriptor it did not open
 * appeared; else 1 with a message saying what differs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILES 4
#define ROUNDS 400

static volatile double sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Work at the bottom of a deep stack of large frames, partly inside the C
 * library (qsort calling back): each sample walks many pages of stack and
 * the unwind tables of several objects. */
static void deep(int depth, double end)
{
	volatile char frame[1000];

	frame[0] = (char)depth;
	if (depth > 0) {
		deep(depth - 1, end);
		sink += frame[0];
		return;
	}
	double v[256];
	while (now() < end) {
		for (int i = 0; i < 256; i++)
			v[i] = (double)((i * 7919) % 256);
		qsort(v, 256, sizeof(v[0]), by_value);
		sink += v[0];
	}
}

static void burn(double seconds)
{
	deep(40, now() + seconds);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int may_end;

static void *worker(void *arg)
{
	(void)arg;
	burn(0.1);
	pthread_mutex_lock(&lock);
	while (!may_end)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
	burn(0.05);
	return NULL;
}

/* The descriptors open now, besides 0-2, in @fds (up to @max). */
static int open_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, own = d ? dirfd(d) : -1;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > 2 &&
		    atoi(e->d_name) != own && n < max)
			fds[n++] = atoi(e->d_name);
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	int fd[FILES];
	char path[FILES][4096], line[64];

	if (argc != 2) {
		fprintf(stderr, "usage: hostile-fds DIR\n");
		return 2;
	}
	pthread_create(&thread, NULL, worker, NULL);
	burn(0.1);
	/* closefrom(3) */
	for (int i = 3; i < 65536; i++)
		close(i);
	for (int f = 0; f < FILES; f++) {
		snprintf(path[f], sizeof(path[f]), "%s/file%d", argv[1], f);
		fd[f] = open(path[f], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd[f] < 0) {
			perror(path[f]);
			return 1;
		}
	}
	/* The thread ends while the program's files sit where the
	 * library's descriptors were. */
	pthread_mutex_lock(&lock);
	may_end = 1;
	pthread_cond_signal(&go);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		for (int f = 0; f < FILES; f++) {
			int len = snprintf(line, sizeof(line), "%d:%d\n", f, r);
			if (write(fd[f], line, (size_t)len) != len) {
				fprintf(stderr, "write to %s: %m\n", path[f]);
				return 1;
			}
		}
		burn(0.001);
	}
	int bad = 0;
	for (int f = 0; f < FILES; f++) {
		char expect[64], got[64];
		FILE *in = fopen(path[f], "r");
		if (!in) {
			perror(path[f]);
			return 1;
		}
		for (int r = 0; r < ROUNDS; r++) {
			snprintf(expect, sizeof(expect), "%d:%d\n", f, r);
			if (!fgets(got, sizeof(got), in) || strcmp(got, expect)) {
				fprintf(stderr, "%s line %d: \"%.20s\"\n",
					path[f], r + 1, got);
				bad = 1;
				break;
			}
		}
		if (fgetc(in) != EOF) {
			fprintf(stderr, "%s: bytes after the last line\n",
				path[f]);
			bad = 1;
		}
		fclose(in);
	}
	int now_open[64], n = open_fds(now_open, 64);
	for (int i = 0; i < n; i++) {
		int mine = 0;
		for (int f = 0; f < FILES; f++)
			mine |= now_open[i] == fd[f];
		if (!mine) {
			fprintf(stderr, "descriptor %d appeared\n", now_open[i]);
			bad = 1;
		}
	}
	if (n != FILES) {
		fprintf(stderr, "%d of the %d files are still open\n", n, FILES);
		bad = 1;
	}
	if (!bad)
		puts("files intact");
	return bad;
}
