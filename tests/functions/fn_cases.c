/*
 * fn_cases.c - a program with no annotations, built with every function
 * a region (tests/functions/functions.sh), whose activations and inputs
 * follow from DESIGN §2 by hand:
 *
 *  - leaf(): called LEAF_CALLS times, touches nothing the library sees:
 *    LEAF_CALLS activations of trms 0;
 *  - rec(n): rec(RECURSION) recurses down to rec(0): RECURSION + 1
 *    activations;
 *  - pass(in, n): read()s n bytes from a pipe into a 4-byte-aligned
 *    buffer (the kernel writes them) and write()s them to /dev/null (the
 *    thread reads them): trms = rms = n / 4 cells at the default
 *    granularity, every one an external induced read; once for each n in
 *    SIZES;
 *  - deep(n): recurses JUMP_DEPTH times and longjmps back to main:
 *    JUMP_DEPTH + 1 activations of trms 0, closed by the jump; the 64
 *    bytes main then writes into the pipe are main's reads, not deep's,
 *    and pass(64) counts its 16 cells in pass; landed() is called once;
 *  - helper(): a static function of this file; fn_other.c has another of
 *    the same name: two regions, told apart;
 *  - worker(): the start routine of THREADS threads, each calling leaf()
 *    once more.
 * It prints a checksum that must not change with the instrumentation.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#define NOINLINE __attribute__((noinline))
#define LEAF_CALLS 10
#define RECURSION 1000
#define JUMP_DEPTH 5
#define THREADS 2

int other_helper(int x); /* fn_other.c */

static jmp_buf jump;
static volatile int sink;

/* Each function stores to sink: an optimiser may drop a call to a
 * function without side effects, and then no entry is seen. */
NOINLINE static int helper(int x)
{
	sink = x;
	return x + 3;
}

NOINLINE int leaf(int x)
{
	sink = x;
	return 2 * x;
}

/* The empty asm after the call keeps the recursion a recursion (a
 * compiler may turn an accumulating tail call into a loop). */
NOINLINE int rec(int n)
{
	if (!n)
		return 0;
	int r = rec(n - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

NOINLINE static void deep(int n)
{
	if (!n)
		longjmp(jump, 1);
	deep(n - 1);
	sink = n;
}

NOINLINE int landed(void)
{
	sink = 1;
	return 1;
}

NOINLINE size_t pass(int in, int out, size_t n)
{
	_Alignas(64) char buf[512];
	ssize_t got = read(in, buf, n);

	if (got > 0 && write(out, buf, (size_t)got) != got)
		return 0;
	return got > 0 ? (size_t)got : 0;
}

static void *worker(void *arg)
{
	leaf((int)(long)arg);
	return NULL;
}

int main(void)
{
	static const size_t sizes[] = { 64, 128, 192, 256, 320, 384, 448, 512 };
	char data[512];
	int p[2], out = open("/dev/null", O_WRONLY);
	long sum = 0;

	memset(data, 'x', sizeof(data));
	if (pipe(p) || out < 0)
		return 1;
	for (int i = 0; i < LEAF_CALLS; i++)
		sum += leaf(i);
	sum += rec(RECURSION);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		if (write(p[1], data, sizes[i]) != (ssize_t)sizes[i])
			return 1;
		sum += (long)pass(p[0], out, sizes[i]);
	}
	if (!setjmp(jump))
		deep(JUMP_DEPTH);
	sum += landed();
	if (write(p[1], data, 64) != 64)
		return 1;
	sum += (long)pass(p[0], out, 64);
	sum += helper(1) + other_helper(1);

	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("checksum %ld\n", sum);
	return 0;
}
