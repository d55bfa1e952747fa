/*
 * hash.h - FNV-1a, the one string hash of the library and the tools: a
 * few instructions a byte, good enough spread for open addressing.
 */
#ifndef TRMS_HASH_H
#define TRMS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS 14695981039346656037ull

/* @len bytes at @data, on top of @h (FNV1A_BASIS to start). */
static inline uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* A NUL-terminated string. */
static inline uint64_t fnv1a_string(const char *s)
{
	uint64_t h = FNV1A_BASIS;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

#endif
