/*
 * cc_argv.h - the argument list `trms cc` hands the compiler: its name,
 * the flags that instrument every function (before the user's
 * arguments, which may override them), the user's arguments, and when it
 * links, libtrms (at the end).
 */
#ifndef TRMS_CC_ARGV_H
#define TRMS_CC_ARGV_H

#include <stdbool.h>

#include "cc_family.h"

/* GCC: every function entered and left calls __cyg_profile_func_enter
 * and _exit, except those of files under these directories (the inline
 * functions of system headers). */
/* The annotations of trms.h as calls: every function is a region and
 * every access checked anyway, and the header's inline forms would be
 * checked accesses of their own. */
#define CC_NO_INLINE "-DTRMS_NO_INLINE"
#define CC_GCC_INSTRUMENT "-finstrument-functions"
#define CC_GCC_EXCLUDE_FILES                                            \
	"-finstrument-functions-exclude-file-list=/usr/include/,/usr/lib/gcc/"
/* Clang 14 has no exclusion list: instrumenting after inlining keeps the
 * system headers' inlined helpers out, and trms's plugin, where it is,
 * takes the instrumentation off the functions of system headers left out
 * of line and those --trms-exclude names (its options below). */
#define CC_CLANG_FLAGS "-finstrument-functions-after-inlining"
#define CC_GCC_EXCLUDE "-finstrument-functions-exclude-function-list="
/* --trms-full: every load and store calls __asan_loadN_noabort and
 * __asan_storeN_noabort (kernel-address instrumentation with every check
 * a call, and neither the stack's nor the globals' redzones: no runtime
 * of the sanitizer's is needed), and the program's calls of the C
 * library's memory and string functions go to libtrms's __wrap_ versions,
 * which record what those functions read and write. */
#define CC_FULL_SANITIZE "-fsanitize=kernel-address"
#define CC_GCC_PARAM "--param"
#define CC_GCC_CALLS "asan-instrumentation-with-call-threshold=0"
#define CC_GCC_NO_STACK "asan-stack=0"
#define CC_GCC_NO_GLOBALS "asan-globals=0"
#define CC_CLANG_LLVM "-mllvm"
#define CC_CLANG_CALLS "-asan-instrumentation-with-call-threshold=0"
#define CC_CLANG_NO_STACK "-asan-stack=0"
#define CC_CLANG_NO_GLOBALS "-asan-globals=0"
/* Clang's plugin where it is (followed by its path), in either mode.
 * With options for it, it is loaded with -Xclang -load too, so that clang
 * knows them when it reads them (-mllvm, through -Xclang: the driver
 * says nothing of it when it only links). */
#define CC_CLANG_PLUGIN "-fpass-plugin="
#define CC_CLANG_XCLANG "-Xclang"
#define CC_CLANG_LOAD "-load"
#define CC_CLANG_FUNCTIONS_ONLY "-trms-functions-only"
#define CC_CLANG_EXCLUDE "-trms-exclude="
/* GCC's plugin where it is (followed by its path), in either mode:
 * functions instrumented after inlining, so that the optimiser inlines as
 * natively and what it inlines is no region; with --trms-full the
 * accesses to the file's own variables at constant offsets, which GCC's
 * pass leaves out, are instrumented too. */
#define CC_GCC_PLUGIN "-fplugin="
#define CC_FULL_WRAP                                                     \
	"-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset,--wrap=memcmp,"    \
	"--wrap=strlen,--wrap=strnlen,--wrap=strcmp,--wrap=strncmp,"       \
	"--wrap=strchr,--wrap=strrchr,--wrap=strcpy,--wrap=strncpy,"       \
	"--wrap=strcat,--wrap=strdup,--wrap=__memcpy_chk,"                 \
	"--wrap=__memmove_chk,--wrap=__memset_chk,--wrap=__strcpy_chk,"    \
	"--wrap=__strncpy_chk,--wrap=__strcat_chk"

/* The library goes in even under --as-needed (the C library's empty
 * __cyg_profile_func_* would otherwise do) and after a -Bstatic. */
#define CC_LIB_BEFORE "-Wl,--push-state,--no-as-needed,-Bdynamic"
#define CC_LIB_AFTER "-Wl,--pop-state"

struct cc_plan {
	const char *compiler;	/* argv[0] */
	enum cc_family family;
	bool full;		/* --trms-full: accesses too */
	const char *exclude;	/* function names not instrumented,
				 * comma-separated, or NULL (GCC, or Clang
				 * with the plugin) */
	const char *library;	/* libtrms's real path, appended; or NULL:
				 * the invocation does not link */
	const char *plugin;	/* Clang's plugin, in either mode, which
				 * excludes functions and with --trms-full
				 * checks accesses inline (NULL: no
				 * exclusion, every access a call); or GCC's,
				 * in either mode, which instruments
				 * functions after inlining and the accesses
				 * GCC's pass leaves out (NULL: neither);
				 * cc_plugin.h */
};

struct cc_argv {
	char **argv;		/* NULL-terminated */
	char *owned[3];		/* the strings built for it */
};

/* @p's argument list around @args[0..@argc) into @a.  @return 0,
 * -EINVAL if @p->library is not a path, or -ENOMEM; @a holds nothing on
 * failure.  Free with cc_argv_free(). */
int cc_argv_build(const struct cc_plan *p, int argc, char *const *args,
		  struct cc_argv *a);

void cc_argv_free(struct cc_argv *a);

#endif
