/*
 * scratch.h - what the tests that run programs share besides the runner
 * (spawn.h): a scratch directory of their own, the paths meson hands
 * them, small files in and out.
 */
#ifndef TRMS_SCRATCH_H
#define TRMS_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Make a fresh directory /tmp/trms-@what-XXXXXX, its path into @dir. */
void scratch_make(char *dir, size_t size, const char *what);

/* Remove @dir and everything in it; false if that failed. */
bool scratch_remove(const char *dir);

/* The value of @name, which tests/meson.build sets (TRMS_BIN, TRMS_LIB,
 * ...); fails the test if it is not set. */
const char *test_env(const char *name);

/* Write @text into @path, which is created or truncated. */
void file_write(const char *path, const char *text);

/* The whole of @path, NUL-terminated (to free); NULL if it cannot be
 * opened. */
char *file_read(const char *path);

#endif
