/*
 * main.c - the `trms` command: dispatch to subcommands; `trms help`.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/config.h"
#include "trms.h"

static const char intro[] =
	"Usage: trms COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"trms measures how the cost of each code region grows with the size\n"
	"of its input: the memory it reads for the first time, the data other\n"
	"threads hand it and the data that arrives from files and sockets.\n"
	"\n"
	"Commands:\n";

static const char settings_intro[] =
	"\n"
	"A program run under `trms run`, or with libtrms.so in LD_PRELOAD, or\n"
	"linked with -ltrms or by trms cc, writes its profile at exit.  The\n"
	"library reads these environment variables once, at start:\n";

static int cmd_version(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("trms %d.%d.%d\n", TRMS_VERSION_MAJOR, TRMS_VERSION_MINOR,
	       TRMS_VERSION_PATCH);
	return 0;
}

static int cmd_help(int argc, char **argv);

/* The commands: each name, what runs it, and its line of the help (two
 * lines where it has a second). */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary, *more;
} commands[] = {
	{ "run", cmd_run,
	  "run a command with the library preloaded (trms run --help)", NULL },
	{ "cc", cmd_cc, "compile and link C with every function a region and",
	  "every load and store an access (trms cc --trms-help)" },
	{ "c++", cmd_cc, "the same for C++ (trms c++ --trms-help)", NULL },
	{ "report", cmd_report, "print a profile (trms report --help)", NULL },
	{ "merge", cmd_merge, "merge profiles into one (trms merge --help)",
	  NULL },
	{ "replay", cmd_replay,
	  "run the engine over an event trace (trms replay --help)", NULL },
	{ "version", cmd_version, "print the version", NULL },
	{ "help", cmd_help, "show this help", NULL },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

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

/* The library's settings, each its help, what it accepts and its
 * default, wrapped. */
static void describe_settings(FILE *out)
{
	size_t n;
	const struct config_setting *s = config_settings(&n);

	for (size_t i = 0; i < n; i++) {
		char help[1024];
		snprintf(help, sizeof(help), "%s.  Accepted: %s; default %s",
			 s[i].help, s[i].accepted,
			 *s[i].fallback ? s[i].fallback : "unset");
		usage_option(out, s[i].name, help, 20, 76);
	}
}

/* The help: the commands, then the library's settings. */
static void describe(FILE *out)
{
	fputs(intro, out);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		fprintf(out, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
		if (commands[i].more)
			fprintf(out, "  %-8s %s\n", "", commands[i].more);
	}
	fputs(settings_intro, out);
	describe_settings(out);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	describe(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		describe(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		cmd = "help";
	else if (!strcmp(cmd, "--version"))
		cmd = "version";
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "trms: unknown command '%s'\n", cmd);
	fputs("Try 'trms help'.\n", stderr);
	return 2;
}
