/*
 * fnv1a.h - the 64-bit FNV-1a hash (Fowler, Noll, Vo), for the open-
 * addressing tables of names and keys in the library and the tools.
 * Allocates nothing, touches nothing but its arguments: safe anywhere.
 */
#ifndef TRMS_FNV1A_H
#define TRMS_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_OFFSET 14695981039346656037ull
#define FNV1A_PRIME 1099511628211ull

/* The hash of @n bytes at @data, continuing from @h (FNV1A_OFFSET to
 * start). */
static inline uint64_t fnv1a_bytes(const void *data, size_t n, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV1A_PRIME;
	return h;
}

/* The hash of the string @s. */
static inline uint64_t fnv1a_string(const char *s)
{
	uint64_t h = FNV1A_OFFSET;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * FNV1A_PRIME;
	return h;
}

#endif
