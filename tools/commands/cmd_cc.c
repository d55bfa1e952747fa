/*
 * cmd_cc.c - `trms cc` and `trms c++`: the compiler driver of the
 * whole-program modes.  They run the real compiler with the flags that
 * make every function a region and every load and store an access (only
 * the functions with --trms-functions) and, when it links, with libtrms,
 * so that the program built writes a profile when it runs.
 * Options, messages and exit statuses are here; the arguments are read
 * and built in tools/cc/, the library found by tools/run/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_args.h"
#include "cc_argv.h"
#include "cc_family.h"
#include "cc_plugin.h"
#include "commands.h"
#include "run_command.h"
#include "xalloc.h"

static const char usage_head[] =
	"Usage: trms cc [TRMS-OPTIONS] COMPILER-ARGS...\n"
	"   or: trms c++ [TRMS-OPTIONS] COMPILER-ARGS...\n"
	"\n"
	"Run the C compiler (trms cc) or the C++ compiler (trms c++) on\n"
	"COMPILER-ARGS with the flags that make every function a region and\n"
	"every load and store an access (or with --trms-functions only the\n"
	"functions), and link what it links (programs and shared objects)\n"
	"with libtrms, so that the program writes a trms profile when it\n"
	"runs, as it is: no trms run, no LD_PRELOAD.  Use them as a build's\n"
	"compilers:\n"
	"\n"
	"  CC=\"trms cc\" CXX=\"trms c++\" ./configure && make\n"
	"\n"
	"  trms cc -O2 -g prog.c -o prog && ./prog\n"
	"\n"
	"The compiler is exec'ed: its exit status and signals are trms cc's.\n"
	"It is not run to learn what it is: it is Clang if its name, or the\n"
	"name of the file it resolves to (through PATH and symbolic links),\n"
	"contains \"clang\"; GCC otherwise.\n"
	"\n"
	"Added before COMPILER-ARGS, which can override them:\n"
	"  GCC:   -finstrument-functions\n"
	"         -finstrument-functions-exclude-file-list=/usr/include/,"
	"/usr/lib/gcc/\n"
	"         (the inline functions of system headers are no regions)\n"
	"         -fplugin=GCC-PLUGIN (below), which moves the hooks after\n"
	"         inlining, as Clang has them: the optimiser inlines, splits\n"
	"         and specialises as natively, and what is inlined is no\n"
	"         region\n"
	"  Clang: -finstrument-functions-after-inlining (what is inlined is\n"
	"         no region)\n"
	"         -fpass-plugin=PLUGIN (below), which takes the\n"
	"         instrumentation off the functions of system headers left\n"
	"         out of line (known from -g's information, else by their\n"
	"         C++ names in std:: and __gnu_cxx::) and off those\n"
	"         --trms-exclude names; with --trms-functions or\n"
	"         --trms-exclude also -Xclang -load -Xclang PLUGIN and its\n"
	"         options, -Xclang -mllvm -Xclang -trms-functions-only and\n"
	"         -Xclang -mllvm -Xclang -trms-exclude=NAME,...; without\n"
	"         the plugin, every function left out of line is a region,\n"
	"         even from a system header\n"
	"  and, unless --trms-functions, every load and store a call to the\n"
	"  library:\n"
	"  GCC:   -fsanitize=kernel-address --param\n"
	"         asan-instrumentation-with-call-threshold=0 --param\n"
	"         asan-stack=0 --param asan-globals=0\n"
	"         -fplugin=GCC-PLUGIN, trms's plugin for GCC, which also has\n"
	"         the pass instrument the accesses it would leave out (to the\n"
	"         file's own global and static variables at constant\n"
	"         offsets); GCC-PLUGIN is the trms-gcc-plugin.so of this\n"
	"         trms, found as PLUGIN below, used if it was built and the\n"
	"         compiler resolves to the GCC it was built for (gcc-N,\n"
	"         g++-N); without it those accesses are not seen, and\n"
	"         GCC instruments before inlining (inlined functions stay\n"
	"         regions)\n"
	"  Clang: PLUGIN, trms's own plugin, puts a check before every\n"
	"         load and store, inlined in loops, that decides the\n"
	"         common accesses itself and calls the library for the\n"
	"         others; PLUGIN is the trms-pass.so of this\n"
	"         trms (cc/plugin/ in a build tree, LIBDIR/trms/ installed),\n"
	"         used if it was built and the compiler resolves to the LLVM\n"
	"         it was built for (/usr/lib/llvm-N/); else, as GCC:\n"
	"         -fsanitize=kernel-address -mllvm\n"
	"         -asan-instrumentation-with-call-threshold=0 -mllvm\n"
	"         -asan-stack=0 -mllvm -asan-globals=0\n"
	"  (the sanitizer's checks made calls, without its runtime)\n"
	"Added at the end when the compiler links (none of -c, -S, -E, -M,\n"
	"-MM, -fsyntax-only, -r, no query such as --version or -print-*, and\n"
	"an input file), -shared included:\n"
	"  unless --trms-functions, -Wl,--wrap=memcpy,--wrap=strlen,... (the C\n"
	"  library's memory and string functions the program calls record\n"
	"  what they read and write: docs/trms-cc.md lists them), then\n"
	"  -Wl,--push-state,--no-as-needed,-Bdynamic LIBTRMS -Wl,--pop-state\n"
	"  -Wl,-rpath,DIR\n"
	"  LIBTRMS is the real path of the libtrms.so next to this trms (in a\n"
	"  build tree, ../src/libtrms.so) or of the one in LIBDIR (where it is\n"
	"  installed), and DIR its directory.  LIBDIR, relative to this\n"
	"  trms's directory unless absolute, is\n";

static const char usage_tail[] =
	"  With -static or -static-pie nothing is added at the end (the\n"
	"  library is a shared one) and a warning says so: such a program\n"
	"  writes no profile.\n"
	"\n"
	"Options, trms's own: taken out of the arguments wherever they are,\n"
	"before the compiler sees them:\n"
	"  --trms-full          every function a region and every load and\n"
	"                       store of the compiled code an access: the\n"
	"                       papers' whole-program view, the default;\n"
	"                       4 to 70 times native on the programs\n"
	"                       measured (docs/whole-program.md)\n"
	"  --trms-functions     every function a region, its input what\n"
	"                       annotations (trms_read, ...) and I/O record:\n"
	"                       1.1 to 2.9 times native on the same\n"
	"                       programs; the last of --trms-full and\n"
	"                       --trms-functions given wins\n"
	"  --trms-exclude=NAME[,NAME...]\n"
	"                       functions not to instrument: GCC's\n"
	"                       -finstrument-functions-exclude-function-list\n"
	"                       (a NAME matches any function whose name, as\n"
	"                       the source spells it, contains it); with\n"
	"                       Clang, trms's plugin (NAME in the demangled\n"
	"                       name), ignored with a warning without it;\n"
	"                       may be given more than once\n"
	"  --trms-help          show this help\n"
	"\n"
	"Environment:\n"
	"  TRMS_CC   the C compiler trms cc runs (default cc)\n"
	"  TRMS_CXX  the C++ compiler trms c++ runs (default c++)\n"
	"  Either is a program's name (searched in PATH) or path, without\n"
	"  arguments: TRMS_CC=\"ccache gcc\" does not work.\n"
	"The programs built read the library's settings when they run (trms\n"
	"help lists them; TRMS_OFF=1 turns the library off).\n"
	"\n"
	"Exit status: the compiler's; 127 if it cannot be run; 2 on bad\n"
	"usage, or if the compiler links and libtrms cannot be found.\n";

/* The plugin of this trms for @family (cc_plugin.h), complete: into
 * @out.  @return 0 or -ENOENT. */
static int find_plugin(enum cc_family family, char *out, size_t len)
{
	char places[2][4096];
	const char *const paths[] = { places[0], places[1] };
	size_t n = family == CC_CLANG
			   ? cc_plugin_places(TRMS_INSTALLED_LIBDIR, places)
			   : cc_gcc_plugin_places(TRMS_INSTALLED_LIBDIR, places);

	if (!n || run_find_near(paths, n, out, len) ||
	    (family == CC_CLANG && !cc_plugin_complete(out)))
		return -ENOENT;
	return 0;
}

static int help(void)
{
	char library[PATH_MAX];

	fputs(usage_head, stdout);
	printf("    %s;\n", TRMS_INSTALLED_LIBDIR);
	if (run_find_library(TRMS_INSTALLED_LIBDIR, library, sizeof(library)))
		puts("  no LIBTRMS is found for this trms.");
	else
		printf("  for this trms, LIBTRMS is\n    %s.\n", library);
	char plugin[PATH_MAX];
	if (!find_plugin(CC_CLANG, plugin, sizeof(plugin)))
		printf("  PLUGIN, for the clang of LLVM %d, is\n    %s.\n",
		       cc_plugin_llvm(), plugin);
	else
		puts("  this trms has no PLUGIN (built without LLVM's "
		     "development files).");
	if (!find_plugin(CC_GCC, plugin, sizeof(plugin)))
		printf("  GCC-PLUGIN, for GCC %d, is\n    %s.\n",
		       cc_gcc_plugin_major(), plugin);
	else
		puts("  this trms has no GCC-PLUGIN (built without GCC's "
		     "plugin headers, gcc-N-plugin-dev).");
	fputs(usage_tail, stdout);
	return fflush(stdout) ? 1 : 0;
}

static int bad_usage(const char *cmd, const char *message)
{
	fprintf(stderr, "trms %s: %s\nTry 'trms %s --trms-help'.\n", cmd,
		message, cmd);
	return 2;
}

/* The options' verdict: -1 to go on, else the exit status. */
static int check_options(const char *cmd, int rc, const struct cc_options *o)
{
	char message[256];

	if (rc == -ENOMEM)
		out_of_memory();
	if (rc && (!strcmp(o->bad, "--trms-exclude") ||
		   !strcmp(o->bad, "--trms-exclude=")))
		return bad_usage(cmd, "--trms-exclude takes =NAME[,NAME...]");
	if (rc) {
		snprintf(message, sizeof(message), "unknown option '%s'",
			 o->bad);
		return bad_usage(cmd, message);
	}
	if (o->help)
		return help();
	return -1;
}

/* The compiler to run: $TRMS_CC or $TRMS_CXX if set and not empty. */
static const char *compiler_of(const char *cmd)
{
	bool cxx = !strcmp(cmd, "c++");
	const char *c = getenv(cxx ? "TRMS_CXX" : "TRMS_CC");

	return c && *c ? c : cxx ? "c++" : "cc";
}

/* The library, if @link needs it, into @library (NULL in @p if not).
 * @return -1 to go on, else the exit status. */
static int choose_library(const char *cmd, enum cc_link link,
			  char *library, size_t len, struct cc_plan *p)
{
	p->library = NULL;
	if (link == CC_NO_LINK)
		return -1;
	if (link == CC_LINK_STATIC) {
		fprintf(stderr,
			"trms %s: warning: libtrms is a shared library: not "
			"linked into a static program, which will write no "
			"profile\n", cmd);
		return -1;
	}
	if (run_find_library(TRMS_INSTALLED_LIBDIR, library, len)) {
		fprintf(stderr,
			"trms %s: cannot find libtrms.so next to this trms or "
			"in %s\n", cmd,
			TRMS_INSTALLED_LIBDIR);
		return 2;
	}
	p->library = library;
	return -1;
}

/* Run the compiler as @p and @args say.  @return 127 if it cannot be. */
static int run_compiler(const char *cmd, const struct cc_plan *p, int argc,
			char *const *args)
{
	struct cc_argv a;

	if (cc_argv_build(p, argc, args, &a))
		out_of_memory();	/* the library's path is a real path */
	execvp(p->compiler, a.argv);
	int e = errno;
	fprintf(stderr, "trms %s: cannot run '%s': %s\n", cmd, p->compiler,
		strerror(e));
	cc_argv_free(&a);
	return 127;
}

int cmd_cc(int argc, char **argv)
{
	const char *cmd = argv[0];
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	char library[PATH_MAX];
	struct cc_options o;
	int nargs, status;

	status = check_options(cmd, cc_take_options(argc - 1, argv + 1, &o,
						    args, &nargs), &o);
	if (status >= 0)
		goto out;

	struct cc_plan p = { .compiler = compiler_of(cmd),
			     .full = o.mode == CC_FULL };

	p.family = cc_family_of(p.compiler);
	char plugin[PATH_MAX];
	/* Either plugin serves both modes. */
	if (!find_plugin(p.family, plugin, sizeof(plugin)) &&
	    (p.family == CC_CLANG ? cc_plugin_fits(p.compiler)
				  : cc_gcc_plugin_fits(p.compiler)))
		p.plugin = plugin;
	/* Clang has no exclusion of its own: its plugin makes it. */
	if (o.exclude && p.family == CC_CLANG && !p.plugin)
		fprintf(stderr, "trms %s: warning: --trms-exclude needs GCC "
			"or trms's plugin for this clang; ignored\n", cmd);
	else
		p.exclude = o.exclude;
	status = choose_library(cmd, cc_links(nargs, args), library,
				sizeof(library), &p);
	if (status < 0)
		status = run_compiler(cmd, &p, nargs, args);
out:
	cc_options_free(&o);
	free(args);
	return status;
}
