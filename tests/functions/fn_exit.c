/*
 * fn_exit.c - a program built with `trms cc` that ends with _exit from
 * inside a function (as a forked child or a server stopped by a signal
 * does): the profile is written without reading any file, and `trms
 * report` must still name its functions (tests/functions/functions.sh):
 * work() WORK times, then leave() calls _exit(0).
 */
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define WORK 5

static volatile int sink;

NOINLINE static void work(int i)
{
	sink = i;
}

NOINLINE static void leave(void)
{
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	for (int i = 0; i < WORK; i++)
		work(i);
	printf("worked %d\n", WORK);
	leave();
}
