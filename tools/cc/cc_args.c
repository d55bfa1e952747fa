/*
 * cc_args.c - trms's options out of the compiler's arguments, and
 * whether the compiler links (see cc_args.h).
 */
#define _GNU_SOURCE
#include "cc_args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "--trms-"
#define EXCLUDE PREFIX "exclude="

/* Add @names to @o's exclusion list.  @return 0 or -ENOMEM. */
static int add_exclude(struct cc_options *o, const char *names)
{
	size_t old = o->exclude ? strlen(o->exclude) : 0;
	char *list = realloc(o->exclude, old + 1 + strlen(names) + 1);

	if (!list)
		return -ENOMEM;
	if (old)
		list[old++] = ',';
	strcpy(list + old, names);
	o->exclude = list;
	return 0;
}

/* One argument that starts with --trms-.  @return 0, -EINVAL, -ENOMEM. */
static int take_option(const char *arg, struct cc_options *o)
{
	if (!strcmp(arg, PREFIX "functions"))
		o->mode = CC_FUNCTIONS;
	else if (!strcmp(arg, PREFIX "full"))
		o->mode = CC_FULL;
	else if (!strcmp(arg, PREFIX "help"))
		o->help = true;
	else if (!strncmp(arg, EXCLUDE, strlen(EXCLUDE)) &&
		 arg[strlen(EXCLUDE)])
		return add_exclude(o, arg + strlen(EXCLUDE));
	else
		return -EINVAL;
	return 0;
}

int cc_take_options(int argc, char *const *argv, struct cc_options *o,
		    char **rest, int *nrest)
{
	int n = 0;

	*o = (struct cc_options){ .mode = CC_FULL };
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], PREFIX, strlen(PREFIX))) {
			rest[n++] = argv[i];
			continue;
		}
		int rc = take_option(argv[i], o);
		if (rc) {
			if (rc == -EINVAL)
				o->bad = argv[i];
			rest[n] = NULL;
			*nrest = n;
			return rc;
		}
	}
	rest[n] = NULL;
	*nrest = n;
	return 0;
}

void cc_options_free(struct cc_options *o)
{
	free(o->exclude);
	o->exclude = NULL;
}

/* Whether @arg is one of the NULL-terminated @list. */
static bool among(const char *arg, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(arg, *list))
			return true;
	return false;
}

/* The options after which the driver stops before linking. */
static const char *const no_link[] = {
	"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only",
	"-r",		/* a relocatable object: the final link gets trms */
	/* information queries */
	"--version", "-dumpversion", "-dumpfullversion", "-dumpmachine",
	"-dumpspecs", "--help", "--target-help", "-###", NULL,
};

/* The options whose value is the next argument when it is not attached
 * (GCC's and Clang's drivers). */
static const char *const separate_value[] = {
	"-o", "-x", "-D", "-U", "-I", "-L", "-l", "-A", "-B", "-e", "-u",
	"-T", "-z", "-Tdata", "-Ttext", "-Tbss", "-include", "-imacros",
	"-isystem", "-iquote", "-idirafter", "-iprefix", "-iwithprefix",
	"-iwithprefixbefore", "-isysroot", "-imultilib", "-MF", "-MT", "-MQ",
	"-aux-info", "-dumpbase", "-dumpbase-ext", "-dumpdir", "--param",
	"--sysroot", "-wrapper", "-Xlinker", "-Xassembler", "-Xpreprocessor",
	/* Clang's */
	"-Xclang", "-mllvm", "-target", "-arch", "-Xanalyzer", "-iframework",
	"-cxx-isystem", "-isystem-after", "-ivfsoverlay", "-include-pch",
	"-MJ", "--serialize-diagnostics", NULL,
};

static bool is_query(const char *arg)
{
	return among(arg, no_link) || !strncmp(arg, "-print-", 7) ||
	       !strncmp(arg, "--print-", 8) || !strncmp(arg, "--help=", 7);
}

enum cc_link cc_links(int argc, char *const *args)
{
	bool operand = false, is_static = false;

	for (int i = 0; i < argc; i++) {
		const char *a = args[i];

		if (is_query(a))
			return CC_NO_LINK;
		if (a[0] != '-' || !a[1])
			operand = true;
		else if (among(a, separate_value))
			i++;
		else if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
			is_static = true;
	}
	if (!operand)
		return CC_NO_LINK;
	return is_static ? CC_LINK_STATIC : CC_LINK;
}
