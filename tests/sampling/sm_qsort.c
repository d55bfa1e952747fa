/*
 * sm_qsort.c - a program that spends its time inside the C library's own
 * functions (qsort's merge sort, msort_with_tmp in glibc 2.36), which the
 * stripped libc.so.6 does not name: only its debug file does; then in
 * clock_gettime, which runs in the vDSO, which has no file at all.
 */
#include <stdlib.h>
#include <time.h>

static int compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	enum { N = 1 << 16 };
	static int a[N];
	unsigned seed = 1;

	for (int round = 0; round < 60; round++) {
		for (int i = 0; i < N; i++)
			a[i] = (int)rand_r(&seed);
		qsort(a, N, sizeof(a[0]), compare);
	}
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000000000L +
		       (now.tv_nsec - start.tv_nsec) < 300000000L);
	return a[0] > a[N - 1];
}
