/*
 * sort.c - in-place heapsort (see sort.h).
 */
#include "base/sort.h"

#include <stdint.h>
#include <string.h>

static void swap(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char tmp = *a;
		*a++ = *b;
		*b++ = tmp;
	}
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n &&
		    cmp(base + (child + 1) * size, base + child * size) > 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap(base + root * size, base + child * size, size);
		root = child;
	}
}

void sort_in_place(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;

	for (size_t i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	for (size_t end = n; end-- > 1;) {
		swap(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}
