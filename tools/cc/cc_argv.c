/*
 * cc_argv.c - the compiler's argument list (see cc_argv.h).
 */
#define _GNU_SOURCE
#include "cc_argv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most arguments added: fifteen before the user's (the define that
 * makes trms.h's annotations calls; GCC: two, the exclusion, seven for
 * --trms-full, its plugin; Clang: one, five for its plugin, eight for
 * the plugin's two options), eight after (the wrapped functions, the
 * library between two, and -rpath through -Xlinker). */
#define ADDED 23

/* The linker's run-time search path for the library's directory, so the
 * program runs as it is.  -Wl, splits at commas: a directory with one
 * goes through -Xlinker (four arguments).  @return how many arguments
 * went into @out, or -ENOMEM. */
static int rpath(const char *library, struct cc_argv *a, char **out)
{
	int dir = (int)(strrchr(library, '/') - library);
	char *s;

	if (!dir)
		dir = 1;	/* the library is in / */
	if (!memchr(library, ',', (size_t)dir)) {
		if (asprintf(&s, "-Wl,-rpath,%.*s", dir, library) < 0)
			return -ENOMEM;
		out[0] = a->owned[1] = s;
		return 1;
	}
	if (!(a->owned[1] = strndup(library, (size_t)dir)))
		return -ENOMEM;
	out[0] = "-Xlinker";
	out[1] = "-rpath";
	out[2] = "-Xlinker";
	out[3] = a->owned[1];
	return 4;
}

/* --trms-full's flags into @out (GCC's, or Clang's without its plugin).
 * @return how many. */
static int instrument_accesses(const struct cc_plan *p, char **out)
{
	const char *const gcc[] = { CC_FULL_SANITIZE, CC_GCC_PARAM,
				    CC_GCC_CALLS, CC_GCC_PARAM,
				    CC_GCC_NO_STACK, CC_GCC_PARAM,
				    CC_GCC_NO_GLOBALS };
	const char *const clang[] = { CC_FULL_SANITIZE, CC_CLANG_LLVM,
				      CC_CLANG_CALLS, CC_CLANG_LLVM,
				      CC_CLANG_NO_STACK, CC_CLANG_LLVM,
				      CC_CLANG_NO_GLOBALS };
	const char *const *flags = p->family == CC_CLANG ? clang : gcc;
	int n = 0;

	if (!p->full)
		return 0;
	for (; n < 7; n++)
		out[n] = (char *)flags[n];
	return n;
}

/* "-Xclang @first -Xclang @second" into @out: arguments for clang's
 * compiler proper.  @return 4. */
static int to_cc1(char **out, const char *first, const char *second)
{
	out[0] = CC_CLANG_XCLANG;
	out[1] = (char *)first;
	out[2] = CC_CLANG_XCLANG;
	out[3] = (char *)second;
	return 4;
}

/* Clang's plugin and its options into @out.  @return how many, or
 * -ENOMEM. */
static int clang_plugin(const struct cc_plan *p, struct cc_argv *a,
			char **out)
{
	int n = 0;

	if (!p->full || p->exclude)
		n += to_cc1(out + n, CC_CLANG_LOAD, p->plugin);
	if (asprintf(&a->owned[2], "%s%s", CC_CLANG_PLUGIN, p->plugin) < 0)
		return -ENOMEM;
	out[n++] = a->owned[2];
	if (!p->full)
		n += to_cc1(out + n, CC_CLANG_LLVM, CC_CLANG_FUNCTIONS_ONLY);
	if (p->exclude) {
		if (asprintf(&a->owned[0], "%s%s", CC_CLANG_EXCLUDE,
			     p->exclude) < 0)
			return -ENOMEM;
		n += to_cc1(out + n, CC_CLANG_LLVM, a->owned[0]);
	}
	return n;
}

/* The compiler's own flags before the user's arguments.  @return how
 * many, or -ENOMEM. */
static int instrument_flags(const struct cc_plan *p, struct cc_argv *a,
			    char **out)
{
	if (p->family == CC_CLANG) {
		out[0] = CC_CLANG_FLAGS;
		int n = p->plugin ? clang_plugin(p, a, out + 1)
				  : instrument_accesses(p, out + 1);
		return n < 0 ? n : 1 + n;
	}
	out[0] = CC_GCC_INSTRUMENT;
	out[1] = CC_GCC_EXCLUDE_FILES;
	int n = instrument_accesses(p, out + 2) + 2;
	/* GCC's plugin, in either mode: functions instrumented after
	 * inlining; the accesses the sanitizer's pass leaves out. */
	if (p->plugin) {
		if (asprintf(&a->owned[2], "%s%s", CC_GCC_PLUGIN, p->plugin) <
		    0)
			return -ENOMEM;
		out[n++] = a->owned[2];
	}
	if (!p->exclude)
		return n;
	char *s;
	if (asprintf(&s, "%s%s", CC_GCC_EXCLUDE, p->exclude) < 0)
		return -ENOMEM;
	out[n] = a->owned[0] = s;
	return n + 1;
}

/* The flags before the user's arguments.  @return how many, or -ENOMEM. */
static int instrument(const struct cc_plan *p, struct cc_argv *a, char **out)
{
	out[0] = CC_NO_INLINE;
	int n = instrument_flags(p, a, out + 1);
	return n < 0 ? n : 1 + n;
}

int cc_argv_build(const struct cc_plan *p, int argc, char *const *args,
		  struct cc_argv *a)
{
	*a = (struct cc_argv){ 0 };
	if (p->library && !strchr(p->library, '/'))
		return -EINVAL;
	a->argv = calloc((size_t)argc + ADDED + 2, sizeof(*a->argv));
	if (!a->argv)
		return -ENOMEM;
	char **out = a->argv;

	*out++ = (char *)p->compiler;
	int n = instrument(p, a, out);
	if (n < 0)
		goto fail;
	out += n;
	for (int i = 0; i < argc; i++)
		*out++ = args[i];
	if (p->library) {
		if (p->full)
			*out++ = CC_FULL_WRAP;
		*out++ = CC_LIB_BEFORE;
		*out++ = (char *)p->library;
		*out++ = CC_LIB_AFTER;
		if ((n = rpath(p->library, a, out)) < 0)
			goto fail;
		out += n;
	}
	*out = NULL;
	return 0;
fail:
	cc_argv_free(a);
	return -ENOMEM;
}

void cc_argv_free(struct cc_argv *a)
{
	for (size_t i = 0; i < sizeof(a->owned) / sizeof(*a->owned); i++)
		free(a->owned[i]);
	free(a->argv);
	*a = (struct cc_argv){ 0 };
}
