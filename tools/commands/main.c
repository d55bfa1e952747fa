/*
 * main.c - the `trms` command: dispatch to subcommands; `trms help`.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "trms.h"

static const char usage[] =
	"Usage: trms COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"trms measures how the cost of each code region grows with the size\n"
	"of its input: the memory it reads for the first time, the data other\n"
	"threads hand it and the data that arrives from files and sockets.\n"
	"\n"
	"Commands:\n"
	"  run      run a command with the library preloaded (trms run "
	"--help)\n"
	"  cc       compile and link C with every function a region and\n"
	"           every load and store an access (trms cc --trms-help)\n"
	"  c++      the same for C++ (trms c++ --trms-help)\n"
	"  report   print a profile (trms report --help)\n"
	"  merge    merge profiles into one (trms merge --help)\n"
	"  replay   run the engine over an event trace (trms replay --help)\n"
	"  version  print the version\n"
	"  help     show this help\n"
	"\n"
	"A program run under `trms run`, or with libtrms.so in LD_PRELOAD, or\n"
	"linked with -ltrms or by trms cc, writes its profile at exit.  The\n"
	"library reads these environment variables once, at start:\n";

int usage_error(const char *cmd, const char *message)
{
	if (message)
		fprintf(stderr, "trms %s: %s\n", cmd, message);
	fprintf(stderr, "Try 'trms %s --help'.\n", cmd);
	return 2;
}

int setting_option(const char *cmd, const char *option,
		   const struct config_setting *s, const char *value,
		   struct config *c)
{
	char message[256];

	if (!s->apply(c, value))
		return 0;
	snprintf(message, sizeof(message), "--%s must be %s", option,
		 s->accepted);
	return usage_error(cmd, message);
}

/* The library's settings, two lines each. */
static void describe_settings(FILE *out)
{
	size_t n;
	const struct config_setting *s = config_settings(&n);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-17s %s\n  %-17s accepted: %s; default %s\n",
			s[i].name, s[i].help, "", s[i].accepted,
			s[i].fallback);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		describe_settings(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		describe_settings(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("trms %d.%d.%d\n", TRMS_VERSION_MAJOR, TRMS_VERSION_MINOR,
		       TRMS_VERSION_PATCH);
		return 0;
	}
	if (!strcmp(cmd, "cc") || !strcmp(cmd, "c++"))
		return cmd_cc(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "trms: unknown command '%s'\n", cmd);
	fputs("Try 'trms help'.\n", stderr);
	return 2;
}
