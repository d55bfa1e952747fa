/*
 * cc_plugin.c - finding the compiler plugins (see cc_plugin.h).
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

#if defined(TRMS_LLVM_MAJOR) || defined(TRMS_GCC_MAJOR)
/* The plugin @file next to the trms command in a build tree, and in
 * @installed_libdir/trms/. */
static size_t places(const char *file, const char *installed_libdir,
		     char (*paths)[4096])
{
	snprintf(paths[0], sizeof(paths[0]), "cc/plugin/%s", file);
	snprintf(paths[1], sizeof(paths[1]), "%s/trms/%s", installed_libdir,
		 file);
	return 2;
}
#endif

size_t cc_plugin_places(const char *installed_libdir, char (*paths)[4096])
{
#ifdef TRMS_LLVM_MAJOR
	return places("trms-pass.so", installed_libdir, paths);
#else
	(void)installed_libdir;
	(void)paths;
	return 0;
#endif
}

bool cc_plugin_complete(const char *path)
{
	char bitcode[PATH_MAX + 32];
	const char *slash = strrchr(path, '/');

	snprintf(bitcode, sizeof(bitcode), "%.*s/trms-inline-checks.bc",
		 slash ? (int)(slash - path) : 1, slash ? path : ".");
	return access(bitcode, R_OK) == 0;
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

size_t cc_gcc_plugin_places(const char *installed_libdir,
			    char (*paths)[4096])
{
#ifdef TRMS_GCC_MAJOR
	return places("trms-gcc-plugin.so", installed_libdir, paths);
#else
	(void)installed_libdir;
	(void)paths;
	return 0;
#endif
}

bool cc_gcc_plugin_fits(const char *compiler)
{
#ifdef TRMS_GCC_MAJOR
	char real[PATH_MAX], gcc[32], gxx[32];

	if (cc_resolve(compiler, real, sizeof(real)))
		return false;
	const char *name = strrchr(real, '/');
	name = name ? name + 1 : real;
	snprintf(gcc, sizeof(gcc), "gcc-%d", TRMS_GCC_MAJOR);
	snprintf(gxx, sizeof(gxx), "g++-%d", TRMS_GCC_MAJOR);
	size_t n = strlen(name), k = strlen(gcc);
	return n >= k && (!strcmp(name + n - k, gcc) ||
			  !strcmp(name + n - k, gxx));
#else
	(void)compiler;
	return false;
#endif
}

int cc_gcc_plugin_major(void)
{
#ifdef TRMS_GCC_MAJOR
	return TRMS_GCC_MAJOR;
#else
	return 0;
#endif
}
