/*
 * fn_worked.c - the worked cases of DESIGN §2 as plain C functions, no
 * annotation, built with `trms cc` (full mode) by tests/functions/
 * functions.sh, which expects the values the specification gives.  Every
 * cell is an int of its own (K = 4), volatile so that each read and write
 * of the text is one load or store; the threads take turns through POSIX
 * semaphores, whose memory only the C library touches (not seen).
 *
 *  1. one thread: call f; read x; write y; call g; read x; read y;
 *     read z; write w; return; read w; return:
 *     rms(g) = trms(g) = 3, rms(f) = trms(f) = 2;
 *  2. T1: call f; read x; T2 writes x; T1: read x; return:
 *     trms(f) = 2, rms(f) = 1, one thread-induced read;
 *  3. T1: call f; read x; T2 writes x; T1: call h; read x; return;
 *     read x; return: trms(h) = 1, trms(f) = 2, rms(f) = rms(h) = 1;
 *  4. producer and consumer through one cell, ITEMS items:
 *     rms(consumer) = 1, trms(consumer) = ITEMS, all thread-induced;
 *  5. a loop that read()s 2 cells from a device READS times into the
 *     same buffer and reads the first cell each time:
 *     rms = 1, trms = READS, all external.
 * No function reads `seen`, which they write what they read into.  It
 * prints what it read, which must not change with the instrumentation.
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define ITEMS 9
#define READS 7

static volatile int x1, y1, z1, w1; /* case 1 */
static volatile int x2, x3;	    /* cases 2 and 3 */
static volatile int cell;	    /* case 4 */
static volatile int device[2];	    /* case 5: two cells */
static volatile long seen;
static volatile int items = ITEMS, reads = READS;
static sem_t go, done;		    /* T1 hands to T2 and back */

NOINLINE void one_g(void)
{
	seen = x1 + y1 + z1;
	w1 = 1;
}

NOINLINE void one_f(void)
{
	seen = x1;
	y1 = 2;
	one_g();
	seen = w1;
}

/* T2's side of cases 2 and 3: write @x when T1 says. */
NOINLINE void other_write(volatile int *x)
{
	*x = 5;
}

static void *other(void *arg)
{
	(void)arg;
	sem_wait(&go);
	other_write(&x2);
	sem_post(&done);
	sem_wait(&go);
	other_write(&x3);
	sem_post(&done);
	return NULL;
}

NOINLINE void two_f(void)
{
	int before = x2;

	sem_post(&go);
	sem_wait(&done);
	seen = before + x2;
}

NOINLINE void three_h(void)
{
	seen = x3;
}

NOINLINE void three_f(void)
{
	int before = x3;

	sem_post(&go);
	sem_wait(&done);
	three_h();
	seen = before + x3;
}

static sem_t empty, full;

NOINLINE void produce(int i)
{
	cell = i;
}

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		sem_wait(&empty);
		produce(i);
		sem_post(&full);
	}
	return NULL;
}

/* @n: ITEMS, unknown to the compiler (a loop it keeps). */
NOINLINE long consumer(int n)
{
	long total = 0;

	for (int i = 0; i < n; i++) {
		sem_wait(&full);
		total += cell;
		sem_post(&empty);
	}
	return total;
}

NOINLINE long parse_device(int fd, int n)
{
	long total = 0;

	for (int i = 0; i < n; i++) {
		if (read(fd, (void *)device, sizeof(device)) !=
		    (ssize_t)sizeof(device))
			return -1;
		total += device[0];
	}
	return total;
}

int main(void)
{
	pthread_t t;
	long out[4];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || sem_init(&go, 0, 0) || sem_init(&done, 0, 0) ||
	    sem_init(&empty, 0, 1) || sem_init(&full, 0, 0))
		return 1;
	one_f();
	out[0] = seen;
	if (pthread_create(&t, NULL, other, NULL))
		return 1;
	two_f();
	three_f();
	out[1] = seen;
	if (pthread_join(t, NULL) || pthread_create(&t, NULL, producer, NULL))
		return 1;
	out[2] = consumer(items);
	if (pthread_join(t, NULL))
		return 1;
	out[3] = parse_device(fd, reads);
	printf("%ld %ld %ld %ld\n", out[0], out[1], out[2], out[3]);
	return 0;
}
