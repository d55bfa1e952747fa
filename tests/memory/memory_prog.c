/*
 * memory_prog.c - memory mapped and unmapped under the library, for
 * tests/memory/memory.sh (costs in events, one thread):
 *
 *   again MODE  a region "span" reads 16 KiB of a mapping, the memory is
 *               made new by MODE, and the region reads the same 16 KiB
 *               again: munmap then mmap at the same address, madvise
 *               (MADV_DONTNEED), mremap (moved, read at its new address),
 *               sbrk (the heap shrunk and grown back).  Forgotten
 *               memory is new: span's trms and rms are 2 x 4096 cells.
 *   churn N     N times: map 8 MiB at an address that drifts, write it,
 *               read it in a region, unmap it (the program of issue 26);
 *   unseen N    the same, unmapped by a raw system call the library does
 *               not see (as the C library's own unmapping is not);
 *   soak S      churn for S seconds, unmapping one round in two unseen,
 *               and every round a region that reads a 4 KiB block of a
 *               malloc'd buffer of 1 MiB (freed and malloc'd again every
 *               64 rounds): for tests/soak;
 *   threads N US  N threads, one after another, each spinning US
 *               microseconds in a region "work" that reads a 4 KiB block
 *               of its own, after reading 100 bytes of /dev/zero (data
 *               in): what threads that ended leave (thread_fold.h);
 *   native ...  the same modes without touching the library (built with
 *               -DNATIVE: the annotations compiled out).
 * Prints its peak resident memory (VmHWM, KiB) on the last line.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef NATIVE
static int trms_region_begin(const char *n) { (void)n; return 0; }
static int trms_region_end(const char *n) { (void)n; return 0; }
static int trms_read(const void *a, size_t s) { (void)a; (void)s; return 0; }
static int trms_write(const void *a, size_t s) { (void)a; (void)s; return 0; }
#else
#include <trms.h>
#endif

#define SPAN (16u << 10)
#define CHURN_BYTES ((size_t)8 << 20)
/* Far from everything the loader and the C library place. */
#define CHURN_BASE ((char *)0x300000000000ull)

static long peak_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

static char *map_at(void *where, size_t n)
{
	char *p = mmap(where, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static int again(const char *mode)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p, *q;

	if (!strcmp(mode, "sbrk")) {
		p = sbrk(0);
		/* A page boundary: what shrinks and grows is whole pages. */
		size_t pad = (page - (uintptr_t)p % page) % page;
		if (sbrk((intptr_t)(pad + SPAN)) == (void *)-1)
			return 1;
		p += pad;
	} else {
		p = map_at(NULL, 2 * SPAN);
	}
	memset(p, 1, SPAN);
	trms_region_begin("span");
	trms_read(p, SPAN);
	q = p;
	if (!strcmp(mode, "munmap")) {
		munmap(p, 2 * SPAN);
		q = map_at(p, 2 * SPAN);
		if (q != p)
			return 2; /* the kernel would not map it there again */
	} else if (!strcmp(mode, "dontneed")) {
		madvise(p, SPAN, MADV_DONTNEED);
	} else if (!strcmp(mode, "mremap")) {
		/* Moved to a new place, at an address that held memory
		 * the region read before: what is there is new too. */
		char *r = map_at(NULL, 2 * SPAN);
		trms_read(r, SPAN);
		q = mremap(p, 2 * SPAN, 2 * SPAN, MREMAP_MAYMOVE | MREMAP_FIXED,
			   r);
		if (q != r)
			return 3;
	} else if (!strcmp(mode, "sbrk")) {
		if (sbrk(-(intptr_t)SPAN) == (void *)-1 ||
		    sbrk((intptr_t)SPAN) == (void *)-1)
			return 4;
	} else {
		return 5;
	}
	memset(q, 2, SPAN);
	trms_read(q, SPAN);
	trms_region_end("span");
	return 0;
}

/* Round @i of the churn: 8 MiB mapped at its drifting address, written,
 * read in a region and unmapped, by munmap if @seen, else by a system
 * call the library does not see. */
static void churn_round(long i, int seen)
{
	/* Drifting addresses wrap at 64 GiB of address. */
	char *p = map_at(CHURN_BASE + (i % 8000) * (CHURN_BYTES + (68u << 10)),
			 CHURN_BYTES);

	memset(p, (int)i, CHURN_BYTES);
	trms_write(p, CHURN_BYTES);
	trms_region_begin("use");
	trms_read(p, CHURN_BYTES);
	trms_region_end("use");
	if (seen)
		munmap(p, CHURN_BYTES);
	else
		syscall(SYS_munmap, p, CHURN_BYTES);
}

static int churn(long rounds, int seen)
{
	for (long i = 0; i < rounds; i++)
		churn_round(i, seen);
	return 0;
}

static int soak(double seconds)
{
	struct timespec start, now;
	char *heap = NULL;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0;; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) +
			    (double)(now.tv_nsec - start.tv_nsec) * 1e-9 >=
		    seconds)
			break;
		churn_round(i, i % 2);
		if (i % 64 == 0) {
			free(heap);
			heap = malloc(1 << 20);
			if (!heap)
				return 1;
			memset(heap, 1, 1 << 20);
			trms_write(heap, 1 << 20);
		}
		trms_region_begin("block");
		trms_read(heap + (i % 256) * 4096, 4096);
		trms_region_end("block");
	}
	free(heap);
	return 0;
}

static void *one_thread(void *arg)
{
	static __thread char block[4096];
	struct timespec start, now;
	long us = *(const long *)arg;
	int fd = open("/dev/zero", O_RDONLY);
	char in[100];

	if (fd < 0 || read(fd, in, sizeof(in)) != (ssize_t)sizeof(in))
		return arg;
	close(fd);
	trms_region_begin("work");
	memset(block, in[0], sizeof(block));
	trms_read(block, sizeof(block));
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000000 +
		       (now.tv_nsec - start.tv_nsec) / 1000 <
	       us);
	trms_region_end("work");
	return NULL;
}

static int threads(long n, long us)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *failed;
		if (pthread_create(&t, NULL, one_thread, &us) ||
		    pthread_join(t, &failed) || failed)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 1;

	if (argc == 3 && !strcmp(argv[1], "again"))
		rc = again(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "churn"))
		rc = churn(atol(argv[2]), 1);
	else if (argc == 3 && !strcmp(argv[1], "unseen"))
		rc = churn(atol(argv[2]), 0);
	else if (argc == 3 && !strcmp(argv[1], "soak"))
		rc = soak(atof(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "threads"))
		rc = threads(atol(argv[2]), atol(argv[3]));
	printf("%ld\n", peak_kib());
	return rc;
}
