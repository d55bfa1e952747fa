/*
 * xalloc.h - allocation for the trms command: out of memory is reported
 * and ends the command (it runs outside the profiled program, where
 * there is nothing better to do).
 */
#ifndef TRMS_XALLOC_H
#define TRMS_XALLOC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Say so and end the command. */
__attribute__((noreturn)) static inline void out_of_memory(void)
{
	fputs("trms: out of memory\n", stderr);
	exit(1);
}

static inline void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory();
	return q;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

static inline char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

static inline char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		out_of_memory();
	return p;
}

/* xasprintf: asprintf, or the end of the command. */
#define xasprintf(out, ...)                                                	do {                                                               		if (asprintf((out), __VA_ARGS__) < 0)                      			out_of_memory();                                   	} while (0)

#endif
