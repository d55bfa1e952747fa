/*
 * sort.h - an in-place heapsort: no allocation, so it can run wherever the
 * library runs (libc's qsort may call malloc).
 */
#ifndef TRMS_SORT_H
#define TRMS_SORT_H

#include <stddef.h>

/* Sort @n elements of @size bytes at @base by @cmp (as for qsort). */
void sort_in_place(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *));

#endif
