/*
 * cmd_merge.c - `trms merge`: profiles of threads, processes and runs
 * merged into one profile file (the merge itself: profile_merge.c).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "profile_merge.h"
#include "profile_paths.h"
#include "profile_reader.h"
#include "xalloc.h"

static const char usage[] =
	"Usage: trms merge -o OUT PROFILE...\n"
	"\n"
	"Merge profiles of threads, processes and runs into one profile,\n"
	"OUT, which trms report and trms merge read like any other.  With\n"
	"one PROFILE, OUT is that profile in canonical form.  A PROFILE that\n"
	"is a directory (as `trms run` leaves) stands for every profile in\n"
	"it (its *.trms files).\n"
	"\n"
	"What is the same thing in several profiles merges: regions with the\n"
	"same name; threads with the same name, or else (unnamed) with the\n"
	"same ordinal, as trms report sees them; modules with the same path.\n"
	"  - tuples of the same region, thread, metric and input size add\n"
	"    their count, sum, sumsq and induced sums; min is the smallest\n"
	"    min, max the largest max.\n"
	"  - a thread's in/out bytes and calls, samples, cpu_ns and the\n"
	"    library's own time (library_samples, library_ns) add; its\n"
	"    creator and creation context are kept if all profiles agree.\n"
	"  - sampled call trees merge per thread, node by node along\n"
	"    identical paths (frames by module path and offset, regions by\n"
	"    name), their counts added; symbols are the union.\n"
	"  - meta counters add (samples, tuples_dropped, ...), start_ns is\n"
	"    the earliest, end_ns the latest, sample_hz_delivered is\n"
	"    recomputed; other facts (program, pid, command, ...) are kept\n"
	"    only if all profiles have the same value.  meta merged counts\n"
	"    the original profiles that went in.\n"
	"OUT is canonical: regions, threads, tuples, modules, symbols and\n"
	"tree nodes are numbered and sorted so that the same merged content\n"
	"gives the same bytes, whatever the order or grouping of the inputs:\n"
	"merging merged profiles gives what merging the originals gives.\n"
	"\n"
	"Profiles are not merged if their costs are in different units\n"
	"(meta cost), their cells of different sizes (granularity), or their\n"
	"call stacks sampled on different clocks (cpu, wall) or at different\n"
	"rates (sample_hz).\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT  the file to write (required); written atomically\n"
	"                    (a temporary file in its directory, renamed\n"
	"                    over OUT when complete); OUT may be one of the\n"
	"                    PROFILEs\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 on success; 2 on bad usage, if a PROFILE cannot be\n"
	"read (a message names the file and line) or if the PROFILEs cannot\n"
	"be merged (a message names two of them), and nothing is written;\n"
	"1 if OUT cannot be written, and OUT is left as it was.\n";

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error("merge",
						   "-o takes a file name");
			if (output)
				return usage_error("merge",
						   "-o given more than once");
			output = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return fflush(stdout) ? 1 : 0;
		default:
			return usage_error("merge", NULL);
		}
	}
	if (!output)
		return usage_error("merge", "no output file (-o OUT) given");
	if (optind == argc)
		return usage_error("merge", "no PROFILE given");
	return merge_profiles(argv + optind, (size_t)(argc - optind), output,
			      "trms merge");
}

int merge_profiles(char *const *args, size_t n_args, const char *output,
		   const char *who)
{
	struct profile_paths paths;
	char err[1024];

	if (profile_paths_expand(args, n_args, &paths, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", who, err);
		return 2;
	}
	size_t n = paths.n;
	struct profile_doc *inputs = xcalloc(n, sizeof(*inputs));
	struct profile_doc merged = { 0 };
	int status = 0;

	for (size_t i = 0; i < n && !status; i++) {
		if (profile_read(paths.paths[i], &inputs[i], err,
				 sizeof(err))) {
			fprintf(stderr, "%s: %s\n", who, err);
			status = 2;
		} else {
			profile_name_functions(&inputs[i]);
		}
	}
	if (!status && profile_merge(inputs, n, &merged, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", who, err);
		status = 2;
	}
	if (!status) {
		int rc = profile_merge_write(&merged, output);
		if (rc) {
			fprintf(stderr, "%s: cannot write %s: %s\n", who,
				output, strerror(-rc));
			status = 1;
		}
	}
	profile_doc_free(&merged);
	/* Unread inputs are zeroed, which profile_doc_free() takes. */
	for (size_t i = 0; i < n; i++)
		profile_doc_free(&inputs[i]);
	free(inputs);
	profile_paths_free(&paths);
	return status;
}
