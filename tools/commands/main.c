/*
 * trms.c - the `trms` command: dispatch to subcommands.
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
	"  report   print a profile (trms report --help)\n"
	"  merge    merge profiles into one (trms merge --help)\n"
	"  replay   run the engine over an event trace (trms replay --help)\n"
	"  version  print the version\n"
	"  help     show this help\n"
	"\n"
	"A program run under `trms run`, or with libtrms.so in LD_PRELOAD, or\n"
	"linked with -ltrms, writes its profile at exit.  The library reads\n"
	"these environment variables once, at start:\n";

int usage_error(const char *cmd, const char *message)
{
	if (message)
		fprintf(stderr, "trms %s: %s\n", cmd, message);
	fprintf(stderr, "Try 'trms %s --help'.\n", cmd);
	return 2;
}

int parse_granularity(const char *s, unsigned *out)
{
	static const char *const allowed[] = { "1", "2", "4", "8", "16" };

	for (unsigned i = 0; i < 5; i++) {
		if (!strcmp(s, allowed[i])) {
			*out = 1u << i;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		config_describe(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		config_describe(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("trms %d.%d.%d\n", TRMS_VERSION_MAJOR, TRMS_VERSION_MINOR,
		       TRMS_VERSION_PATCH);
		return 0;
	}
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
