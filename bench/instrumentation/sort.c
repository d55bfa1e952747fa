/*
 * sort.c - the workload of bench/instrumentation/run.sh: a merge sort of
 * N pseudo-random ints (default 10 million), the kind of program the
 * aprof figures of issue 11 were measured on.  Prints the number of
 * out-of-order pairs (0) and the median, so that every build's output
 * can be compared with the native one's.
 */
#include <stdio.h>
#include <stdlib.h>
static void merge(int *a, int *tmp, long lo, long mid, long hi)
{
	long i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid) tmp[k++] = a[i++];
	while (j < hi) tmp[k++] = a[j++];
	for (k = lo; k < hi; k++) a[k] = tmp[k];
}
static void msort(int *a, int *tmp, long lo, long hi)
{
	if (hi - lo < 2) return;
	long mid = lo + (hi - lo) / 2;
	msort(a, tmp, lo, mid);
	msort(a, tmp, mid, hi);
	merge(a, tmp, lo, mid, hi);
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int *a = malloc(n * sizeof *a), *t = malloc(n * sizeof *t);
	unsigned s = 1;
	for (long i = 0; i < n; i++) { s = s * 1103515245u + 12345u; a[i] = (int)(s >> 1); }
	msort(a, t, 0, n);
	long bad = 0;
	for (long i = 1; i < n; i++) bad += a[i-1] > a[i];
	printf("%ld %d\n", bad, a[n/2]);
	return 0;
}
