/*
 * cc_args.h - the arguments of `trms cc` and `trms c++`: trms's own
 * options (--trms-*) taken out of the compiler's, and whether the
 * compiler, given the rest, links.
 */
#ifndef TRMS_CC_ARGS_H
#define TRMS_CC_ARGS_H

#include <stdbool.h>

/* What the compiled program measures (docs/whole-program.md). */
enum cc_mode {
	CC_FUNCTIONS,	/* every function a region: --trms-functions */
	CC_FULL,	/* every load and store too: --trms-full, the default */
};

/* What trms's options asked for. */
struct cc_options {
	enum cc_mode mode;	/* the last of --trms-functions, --trms-full */
	bool help;		/* --trms-help */
	char *exclude;		/* every --trms-exclude's names, joined by
				 * commas; NULL if none */
	const char *bad;	/* the option refused, on -EINVAL */
};

/* Take trms's options (every argument that starts with --trms-, wherever
 * it is) out of @argv[0..@argc): the others, in their order, into @rest
 * (room for @argc + 1 pointers; NULL-terminated), their number into
 * *@nrest.  @return 0; -EINVAL for an unknown --trms- option or an
 * --trms-exclude without names (@o->bad is that argument); -ENOMEM.
 * Free @o with cc_options_free() whatever it returns. */
int cc_take_options(int argc, char *const *argv, struct cc_options *o,
		    char **rest, int *nrest);

void cc_options_free(struct cc_options *o);

/* How a compiler given @args (without the compiler's name) ends. */
enum cc_link {
	CC_NO_LINK,	/* compiles, preprocesses or answers a query */
	CC_LINK,	/* links a program or a shared object */
	CC_LINK_STATIC,	/* links statically: a shared library cannot go in */
};

/* Whether a GCC- or Clang-like driver given @args[0..@argc) links: not
 * with -c, -S, -E, -M, -MM, -fsyntax-only or -r, nor for an information
 * query (--version, -dumpversion, -print-*, --help, -###, ...), nor
 * without an operand (an input file, "-" or @FILE; an option's separate
 * value is not one: the "m" of "-l m").  Flags inside a response file
 * (@FILE) are not seen. */
enum cc_link cc_links(int argc, char *const *args);

#endif
