/*
 * fn_full.c - a program with no annotations for `trms cc --trms-full`
 * (tests/functions/functions.sh), whose activations' inputs follow from
 * DESIGN §2 by hand at granularity K = 4 (int-aligned data):
 *
 *  - fill(a, n) writes n ints: trms 0 (writes are no input);
 *  - sum(a, n) reads the n ints fill wrote: trms = rms = n, no induced
 *    read (the same thread wrote them), once for each n in SIZES;
 *  - measure(s) calls strlen on a string of LEN bytes and its NUL, in a
 *    buffer aligned to 4: the C library's reads count as measure's,
 *    trms = (LEN + 1) / 4 = 25;
 *  - consume(a, n), in a second thread, reads n ints that main wrote
 *    before creating it: trms = n, all of them induced by another thread,
 *    rms = n as well (rms counts first reads: the thread never read them);
 *    the thread's function, consumer, reads besides main's local seed
 *    (8 bytes, 2 cells), whose address main handed it and which main
 *    wrote: trms = n + 2, all induced.  (GCC's pass sees main's store to
 *    its own local only through trms's GCC plugin.)
 * It prints a checksum that must not change with the instrumentation.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define LEN 99
#define SHARED 300

static int data[1024];
static int shared[SHARED];
static _Alignas(4) char text[LEN + 1];
static volatile long sink;

NOINLINE void fill(int *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = i * 7;
}

NOINLINE long sum(const int *a, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

NOINLINE size_t measure(const char *s)
{
	return strlen(s);
}

NOINLINE long consume(const int *a, int n)
{
	return sum(a, n) == 0 ? 0 : 1;
}

static void *consumer(void *arg)
{
	sink = consume(shared, SHARED) + *(const long *)arg;
	return NULL;
}

int main(void)
{
	static const int sizes[] = { 16, 32, 64, 128, 256, 512, 1024 };
	long total = 0, seed = 5;
	pthread_t t;

	memset(text, 'a', LEN);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		fill(data, sizes[i]);
		total += sum(data, sizes[i]);
	}
	total += (long)measure(text);
	fill(shared, SHARED);
	if (pthread_create(&t, NULL, consumer, &seed) ||
	    pthread_join(t, NULL))
		return 1;
	printf("checksum %ld %ld\n", total, sink);
	return 0;
}
