/*
 * merging.c - what the merge tests share: their scratch directory, files
 * in it, and `trms merge` and `trms report` run on them (see merging.h).
 */
#define _GNU_SOURCE
#include "merging.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"
#include "spawn.h"

char scratch[256];

void merge_setup(void)
{
	scratch_make(scratch, sizeof(scratch), "merge");
	ck_assert_int_eq(chdir(scratch), 0);
}

void merge_teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

/* A path in the scratch directory (one of a few rotating buffers). */
const char *in_scratch(const char *name)
{
	static char paths[32][512];
	static unsigned next;
	char *p = paths[next++ % 32];

	snprintf(p, sizeof(paths[0]), "%s/%s", scratch, name);
	return p;
}

const char *write_file(const char *name, const char *text)
{
	const char *path = in_scratch(name);

	file_write(path, text);
	return path;
}

/* The whole of @path, which must exist. */
char *read_file(const char *path)
{
	char *text = file_read(path);

	ck_assert_msg(text != NULL, "cannot open %s", path);
	return text;
}

bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Run trms with the NULL-terminated arguments. */
void run(struct spawn_result *r, ...)
{
	char *argv[32];
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)test_env("TRMS_BIN");
	va_start(ap, r);
	for (char *arg; (arg = va_arg(ap, char *));) {
		ck_assert(n < 31);
		argv[n++] = arg;
	}
	va_end(ap);
	argv[n] = NULL;
	spawn(argv, NULL, NULL, r);
}

/* trms merge -o OUT INPUT...; it must succeed. */
void merge(const char *out, const char *const *inputs, size_t n)
{
	char *argv[32];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "merge";
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)inputs[i];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "merge into %s: exit %d: %s", out,
		      r.status, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
}

/* What `trms report OPTION INPUT...` prints (OPTION may be NULL). */
char *report(const char *option, const char *const *inputs,
		    size_t n)
{
	char *argv[32];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "report";
	if (option)
		argv[k++] = (char *)option;
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)inputs[i];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "report %s: exit %d: %s",
		      option ? option : "", r.status, r.err);
	char *out = r.out;
	r.out = NULL;
	spawn_free(&r);
	return out;
}

void assert_same_file(const char *x, const char *y)
{
	char *a = read_file(x), *b = read_file(y);

	ck_assert_msg(!strcmp(a, b), "%s and %s differ:\n%s\n---\n%s", x, y,
		      a, b);
	free(a);
	free(b);
}
