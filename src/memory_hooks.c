/*
 * memory_hooks.c - the C library's memory and string functions, called
 * from code built with `trms cc --trms-full`, read and write on their
 * caller's behalf: what they read and write is recorded as the caller's
 * accesses (the C library itself is not instrumented).  `trms cc` links
 * such a program with -Wl,--wrap=NAME for each, so that its calls of NAME
 * come here, to __wrap_NAME; each records exactly the bytes the function
 * must look at by its definition (strlen: the string and its NUL; memcmp:
 * up to the first difference; ...), with costs in events one event per
 * cell, then does the C library's work.
 * Other programs never call these.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "access_hooks.h"
#include "hooks.h"

/* The fortified versions glibc's headers call with _FORTIFY_SOURCE. */
void *__memcpy_chk(void *dest, const void *src, size_t n, size_t destlen);
void *__memmove_chk(void *dest, const void *src, size_t n, size_t destlen);
void *__memset_chk(void *s, int c, size_t n, size_t destlen);
char *__strcpy_chk(char *dest, const char *src, size_t destlen);
char *__strncpy_chk(char *dest, const char *src, size_t n, size_t destlen);
char *__strcat_chk(char *dest, const char *src, size_t destlen);

static inline void reads(const void *p, size_t n)
{
	access_record_cells((uintptr_t)p, n, false);
}

static inline void writes(const void *p, size_t n)
{
	access_record_cells((uintptr_t)p, n, true);
}

/* @n bytes copied from @src to @dest. */
static inline void moves(void *dest, const void *src, size_t n)
{
	reads(src, n);
	writes(dest, n);
}

/* strncpy's: the string up to @n bytes and its NUL if within them, and
 * @n bytes written (the rest padded with NULs). */
static void copies_at_most(char *dest, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	reads(src, len < n ? len + 1 : n);
	writes(dest, n);
}

/* strcat's: @dest to its NUL, then @src and its NUL written there. */
static void appends(char *dest, const char *src)
{
	size_t at = strlen(dest), n = strlen(src) + 1;

	reads(dest, at + 1);
	moves(dest + at, src, n);
}

/* How many bytes of @a and @b a comparison of at most @n looks at: up to
 * and including the first that differs, or (@string) the first NUL. */
static size_t compared(const unsigned char *a, const unsigned char *b,
		       size_t n, int string)
{
	size_t i = 0;

	while (i < n && a[i] == b[i] && !(string && !a[i]))
		i++;
	return i < n ? i + 1 : n;
}

#define WRAP(ret, name, params)                                          \
	ret __wrap_##name params;                                        \
	EXPORT ret __wrap_##name params

WRAP(void *, memcpy, (void *dest, const void *src, size_t n))
{
	moves(dest, src, n);
	return memcpy(dest, src, n);
}

WRAP(void *, __memcpy_chk, (void *dest, const void *src, size_t n,
			    size_t destlen))
{
	moves(dest, src, n);
	return __memcpy_chk(dest, src, n, destlen);
}

WRAP(void *, memmove, (void *dest, const void *src, size_t n))
{
	moves(dest, src, n);
	return memmove(dest, src, n);
}

WRAP(void *, __memmove_chk, (void *dest, const void *src, size_t n,
			     size_t destlen))
{
	moves(dest, src, n);
	return __memmove_chk(dest, src, n, destlen);
}

WRAP(void *, memset, (void *s, int c, size_t n))
{
	writes(s, n);
	return memset(s, c, n);
}

WRAP(void *, __memset_chk, (void *s, int c, size_t n, size_t destlen))
{
	writes(s, n);
	return __memset_chk(s, c, n, destlen);
}

WRAP(int, memcmp, (const void *a, const void *b, size_t n))
{
	size_t seen = compared(a, b, n, 0);

	reads(a, seen);
	reads(b, seen);
	return memcmp(a, b, n);
}

WRAP(size_t, strlen, (const char *s))
{
	size_t n = strlen(s);

	reads(s, n + 1);
	return n;
}

WRAP(size_t, strnlen, (const char *s, size_t max))
{
	size_t n = strnlen(s, max);

	reads(s, n < max ? n + 1 : max);
	return n;
}

WRAP(int, strcmp, (const char *a, const char *b))
{
	size_t seen = compared((const unsigned char *)a,
			       (const unsigned char *)b, SIZE_MAX, 1);

	reads(a, seen);
	reads(b, seen);
	return strcmp(a, b);
}

WRAP(int, strncmp, (const char *a, const char *b, size_t n))
{
	size_t seen = compared((const unsigned char *)a,
			       (const unsigned char *)b, n, 1);

	reads(a, seen);
	reads(b, seen);
	return strncmp(a, b, n);
}

WRAP(char *, strchr, (const char *s, int c))
{
	char *found = strchr(s, c);

	reads(s, found ? (size_t)(found - s) + 1 : strlen(s) + 1);
	return found;
}

WRAP(char *, strrchr, (const char *s, int c))
{
	reads(s, strlen(s) + 1);
	return strrchr(s, c);
}

WRAP(char *, strcpy, (char *dest, const char *src))
{
	moves(dest, src, strlen(src) + 1);
	return strcpy(dest, src);
}

WRAP(char *, __strcpy_chk, (char *dest, const char *src, size_t destlen))
{
	moves(dest, src, strlen(src) + 1);
	return __strcpy_chk(dest, src, destlen);
}

WRAP(char *, strncpy, (char *dest, const char *src, size_t n))
{
	copies_at_most(dest, src, n);
	return strncpy(dest, src, n);
}

WRAP(char *, __strncpy_chk, (char *dest, const char *src, size_t n,
			     size_t destlen))
{
	copies_at_most(dest, src, n);
	return __strncpy_chk(dest, src, n, destlen);
}

WRAP(char *, strcat, (char *dest, const char *src))
{
	appends(dest, src);
	return strcat(dest, src);
}

WRAP(char *, __strcat_chk, (char *dest, const char *src, size_t destlen))
{
	appends(dest, src);
	return __strcat_chk(dest, src, destlen);
}

WRAP(char *, strdup, (const char *s))
{
	size_t n = strlen(s) + 1;
	char *copy;

	reads(s, n);
	copy = strdup(s);
	if (copy)
		writes(copy, n);
	return copy;
}
