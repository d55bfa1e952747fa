/*
 * cc_family.c - GCC or Clang, by the compiler's name and the name of
 * the file it resolves to (see cc_family.h).
 */
#define _GNU_SOURCE
#include "cc_family.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum cc_family cc_family_of_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strstr(slash ? slash + 1 : path, "clang") ? CC_CLANG : CC_GCC;
}

/* Whether @path is a file execvp() would run. */
static bool runnable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The first runnable @name in PATH's directories, as execvp() searches
 * them (an empty entry is the current directory; no PATH is the C
 * library's default), into @out.  @return 0 or -ENOENT. */
static int search_path(const char *name, char *out, size_t len)
{
	const char *dirs = getenv("PATH");
	char fallback[256];

	if (!dirs) {
		size_t n = confstr(_CS_PATH, fallback, sizeof(fallback));
		dirs = n && n <= sizeof(fallback) ? fallback : "/bin:/usr/bin";
	}
	for (const char *d = dirs;; d++) {
		size_t dlen = strcspn(d, ":");
		int n = dlen ? snprintf(out, len, "%.*s/%s", (int)dlen, d, name)
			     : snprintf(out, len, "%s", name);

		if (n > 0 && (size_t)n < len && runnable(out))
			return 0;
		d += dlen;
		if (!*d)
			return -ENOENT;
	}
}

int cc_resolve(const char *compiler, char *out, size_t len)
{
	char found[PATH_MAX], real[PATH_MAX];

	if (!*compiler)
		return -ENOENT;
	if (strchr(compiler, '/')) {
		if (strlen(compiler) >= sizeof(found))
			return -ENAMETOOLONG;
		strcpy(found, compiler);
	} else if (search_path(compiler, found, sizeof(found))) {
		return -ENOENT;
	}
	if (!realpath(found, real))
		return -errno;
	if (strlen(real) >= len)
		return -ENAMETOOLONG;
	strcpy(out, real);
	return 0;
}

enum cc_family cc_family_of(const char *compiler)
{
	char real[PATH_MAX];

	if (cc_family_of_name(compiler) == CC_CLANG)
		return CC_CLANG;
	if (cc_resolve(compiler, real, sizeof(real)))
		return CC_GCC;
	return cc_family_of_name(real);
}
