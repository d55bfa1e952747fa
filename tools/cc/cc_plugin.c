/*
 * cc_plugin.c - finding the Clang plugin (see cc_plugin.h).
 */
#define _GNU_SOURCE
#include "cc_plugin.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_family.h"

/* @path (relative: from @dir) if it and the bitcode beside it are
 * there, its real path into @out. */
static bool found(const char *dir, const char *path, char *out, size_t len)
{
	char whole[2 * PATH_MAX], real[PATH_MAX], bitcode[PATH_MAX + 32];
	int n = path[0] == '/'
			? snprintf(whole, sizeof(whole), "%s", path)
			: snprintf(whole, sizeof(whole), "%s/%s", dir, path);

	if (n <= 0 || (size_t)n >= sizeof(whole) || !realpath(whole, real) ||
	    strlen(real) >= len)
		return false;
	snprintf(bitcode, sizeof(bitcode), "%.*s/trms-inline-checks.bc",
		 (int)(strrchr(real, '/') - real), real);
	if (access(real, R_OK) || access(bitcode, R_OK))
		return false;
	strcpy(out, real);
	return true;
}

int cc_find_plugin(const char *installed_libdir, char *out, size_t len)
{
#ifdef TRMS_LLVM_MAJOR
	char exe[PATH_MAX], path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (found(exe, "cc/plugin/trms-pass.so", out, len))
		return 0;
	snprintf(path, sizeof(path), "%s/trms/trms-pass.so", installed_libdir);
	if (found(exe, path, out, len))
		return 0;
#else
	(void)installed_libdir;
	(void)out;
	(void)len;
#endif
	return -ENOENT;
}

bool cc_plugin_fits(const char *compiler)
{
#ifdef TRMS_LLVM_MAJOR
	char real[PATH_MAX], want[32];

	if (cc_resolve(compiler, real, sizeof(real)))
		return false;
	snprintf(want, sizeof(want), "/llvm-%d/", TRMS_LLVM_MAJOR);
	return strstr(real, want) != NULL;
#else
	(void)compiler;
	return false;
#endif
}

int cc_plugin_llvm(void)
{
#ifdef TRMS_LLVM_MAJOR
	return TRMS_LLVM_MAJOR;
#else
	return 0;
#endif
}
