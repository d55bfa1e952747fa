/*
 * merging.h - what the merge tests (test_merge.c, test_algebra.c) share:
 * their scratch directory, files in it, and `trms merge` and `trms
 * report` run on them.
 */
#ifndef TRMS_MERGING_H
#define TRMS_MERGING_H

#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

/* The case's scratch directory, made by merge_setup (the fixture), which also
 * makes it the working directory, and removed by merge_teardown. */
extern char scratch[256];
void merge_setup(void);
void merge_teardown(void);

/* A path in the scratch directory (one of a few rotating buffers). */
const char *in_scratch(const char *name);

/* Write @text to the scratch file @name: its path. */
const char *write_file(const char *name, const char *text);

/* The whole of @path, which must exist (to free). */
char *read_file(const char *path);

bool exists(const char *path);

/* Run trms with the NULL-terminated arguments. */
void run(struct spawn_result *r, ...);

/* trms merge -o OUT INPUT...; it must succeed. */
void merge(const char *out, const char *const *inputs, size_t n);

/* What `trms report OPTION INPUT...` prints (OPTION may be NULL; to
 * free). */
char *report(const char *option, const char *const *inputs, size_t n);

/* The files @x and @y are the same, byte for byte. */
void assert_same_file(const char *x, const char *y);

/* The case "algebra" (test_algebra.c). */
struct Suite;
void add_algebra_tests(struct Suite *s);

#endif
