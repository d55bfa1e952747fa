/*
 * cc_family.h - which compiler `trms cc` runs: GCC or Clang, told by
 * name, without running it (a build runs thousands of compilations).
 */
#ifndef TRMS_CC_FAMILY_H
#define TRMS_CC_FAMILY_H

#include <stddef.h>

enum cc_family {
	CC_GCC,
	CC_CLANG,
};

/* Clang if the last component of @path contains "clang"; else GCC. */
enum cc_family cc_family_of_name(const char *path);

/* The file execvp() would run for @compiler (a name searched in PATH, or
 * a path), with every symbolic link resolved (/usr/bin/cc through
 * /etc/alternatives/cc to the compiler itself): into @out.  @return 0,
 * -ENOENT if there is none, or realpath's -errno. */
int cc_resolve(const char *compiler, char *out, size_t len);

/* Clang if @compiler's name or the name of the file it resolves to says
 * so; GCC otherwise (also if it cannot be found: the exec will say). */
enum cc_family cc_family_of(const char *compiler);

#endif
