/*
 * cmd_replay.c - `trms replay`: the engine over an event trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "replay.h"
#include "trace.h"

static const char usage[] =
	"Usage: trms replay [OPTIONS] TRACE\n"
	"\n"
	"Run the profiling engine over an event trace and print one line per\n"
	"completed activation, in completion order:\n"
	"  <tid> <name> trms=<n> rms=<n> induced_thread=<n> "
	"induced_external=<n> cost=<n>\n"
	"Activations still pending at the end of the trace are closed\n"
	"innermost first, threads in ascending id order.  cost counts the\n"
	"access events (read, write, kread, kwrite) of the activation and its\n"
	"descendants.\n"
	"\n"
	"TRACE has one event per line ('#' starts a comment):\n"
	"  <tid> call <name>\n"
	"  <tid> return\n"
	"  <tid> read|write|kread|kwrite <addr> <size>\n"
	"<tid> is decimal, <addr> decimal or 0x hex, <size> at least 1.\n"
	"TRACE - reads standard input.\n"
	"\n"
	"Options:\n"
	"  -g, --granularity K  bytes per memory cell: 1, 2, 4, 8 or 16 "
	"(default 4)\n"
	"  -p, --profile OUT    also write the aggregated profile to OUT\n"
	"      --stamp-bits N   use only N bits of each timestamp (8 to the\n"
	"                       build's width), so that timestamps are\n"
	"                       renumbered often; for testing\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 on success; 2 on a malformed trace (a message names\n"
	"the line, nothing is printed on standard output) or bad usage;\n"
	"1 on any other failure.\n";

struct printer {
	FILE *out;
};

static void print_activation(void *ctx, uint64_t tid, const char *name,
			     const struct activation *a)
{
	struct printer *p = ctx;

	fprintf(p->out,
		"%" PRIu64 " %s trms=%" PRIu64 " rms=%" PRIu64
		" induced_thread=%" PRIu64 " induced_external=%" PRIu64
		" cost=%" PRIu64 "\n",
		tid, name, a->trms, a->rms, a->induced_thread,
		a->induced_external, a->cost);
}

/* @return 0 to replay, -1 after --help, or the exit status of bad
 * usage. */
static int parse_options(int argc, char **argv,
			 struct replay_options *options, const char **profile)
{
	static const struct option longopts[] = {
		{ "granularity", required_argument, NULL, 'g' },
		{ "profile", required_argument, NULL, 'p' },
		{ "stamp-bits", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config checked;
	unsigned long bits;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "g:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			rc = setting_option("replay", "granularity",
					    config_setting("TRMS_GRANULARITY"),
					    optarg, &checked);
			if (rc)
				return rc;
			options->granularity = checked.granularity;
			break;
		case 'p':
			*profile = optarg;
			break;
		case 'b':
			bits = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end || bits < STAMP_MIN_BITS ||
			    bits > TRMS_STAMP_BITS)
				return usage_error("replay",
						   "--stamp-bits must be "
						   "between 8 and the build's "
						   "stamp width");
			options->stamp_bits = (unsigned)bits;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return usage_error("replay", NULL);
		}
	}
	if (optind + 1 != argc)
		return usage_error("replay", optind == argc
						     ? "missing TRACE"
						     : "only one TRACE allowed");
	return 0;
}

/* The trace at @path ("-": standard input) into @trace.  @return 0, or
 * the exit status of a trace that cannot be read (1) or is malformed
 * (2), with a message. */
static int read_trace(const char *path, struct trace *trace)
{
	char err[512];
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	trace_init(trace);
	if (!f) {
		fprintf(stderr, "trms replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	int rc = trace_parse(f, strcmp(path, "-") ? path : "<stdin>", trace,
			     err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, "trms replay: %s\n", err);
		return 2;
	}
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_options options = { .granularity = 4 };
	const char *profile = NULL;
	int status = parse_options(argc, argv, &options, &profile);

	if (status)
		return status < 0 ? 0 : status;
	const char *path = argv[optind];
	struct trace trace;
	status = read_trace(path, &trace);
	if (status) {
		trace_free(&trace);
		return status;
	}

	static char outbuf[1 << 16];
	struct printer printer = { stdout };
	struct replay r;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	options.keep_profile = profile != NULL;
	int rc = replay_run(&r, &trace, &options, print_activation, &printer);
	if (rc) {
		fprintf(stderr, "trms replay: %s\n", strerror(-rc));
		status = 1;
	} else if (profile) {
		rc = replay_write_profile(&r, profile, path);
		if (rc) {
			fprintf(stderr, "trms replay: cannot write %s: %s\n",
				profile, strerror(-rc));
			status = 1;
		}
	}
	replay_fini(&r);
	trace_free(&trace);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "trms replay: writing output: %s\n",
			strerror(errno));
		status = 1;
	}
	return status;
}
