/*
 * scratch.c - scratch directories, settings from meson, small files (see
 * scratch.h).
 */
#define _GNU_SOURCE
#include "scratch.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scratch_make(char *dir, size_t size, const char *what)
{
	snprintf(dir, size, "/tmp/trms-%s-XXXXXX", what);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

bool scratch_remove(const char *dir)
{
	char *cmd = NULL;

	ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s'", dir), 0);
	bool removed = system(cmd) == 0;
	free(cmd);
	return removed;
}

const char *test_env(const char *name)
{
	const char *value = getenv(name);

	ck_assert_msg(value && *value,
		      "%s is not set (tests/meson.build sets it: run the "
		      "tests through meson test)",
		      name);
	return value;
}

void file_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

char *file_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char *data = NULL, buf[4096];
	size_t len = 0, n;

	if (!f)
		return NULL;
	FILE *mem = open_memstream(&data, &len);
	ck_assert_ptr_nonnull(mem);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	fclose(mem);
	return data;
}
