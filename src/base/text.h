/*
 * text.h - formatting text where the C library's printf family and
 * strerror may not be called: in signal handlers and _exit, where the
 * library writes a last profile and its messages.  (snprintf may take
 * locks and allocate for some conversions; strerror translates through
 * the locale.)  Async-signal-safe, no allocation.
 */
#ifndef TRMS_TEXT_H
#define TRMS_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* printf into @buf of @cap bytes (always NUL-terminated if @cap > 0) with
 * the conversions the library uses: %s (with a precision, %.40s or
 * %.*s), %c, %d, %u, %ld, %lu, %lld, %llu, %zd, %zu, %x, %p, %% and %f
 * with a precision (%.3f; at most 9 digits, for values below 1e18).
 * @return the length the text would have had (as vsnprintf). */
int text_vformat(char *buf, size_t cap, const char *fmt, va_list ap);
int text_format(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @v in decimal into @buf (at least 21 bytes); @return its length. */
size_t text_u64(char *buf, uint64_t v);

/* What strerror says of @err in the C locale, for the errors the library
 * meets; "error N" for others (in a buffer of the calling thread's). */
const char *text_errno(int err);

#endif
