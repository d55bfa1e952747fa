/*
 * prog.c - a small C program built by trms cc in tests/cc/compilers.sh:
 * recursion, a callback through qsort, a static inline function called
 * through a pointer; it prints what it computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static inline int square(int x)
{
	return x * x;
}

int main(int argc, char **argv)
{
	int v[] = { 5, 3, 9, 1, 7, 2 };
	size_t n = sizeof(v) / sizeof(*v);
	int (*f)(int) = square;
	char line[64];

	qsort(v, n, sizeof(*v), compare);
	for (size_t i = 0; i < n; i++)
		printf("%d%c", f(v[i]), i + 1 < n ? ' ' : '\n');
	printf("fib(20) = %lu\n", fib(20));
	snprintf(line, sizeof(line), "%s with %d argument(s)",
		 strrchr(argv[0], '/') ? "a path" : "a name", argc - 1);
	puts(line);
	return 0;
}
