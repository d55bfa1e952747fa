/*
 * report_library.c - the profiler's own share of the time (see
 * report_library.h).
 */
#include "report_library.h"

#include <inttypes.h>
#include <string.h>

/* A thread's share of samples inside the library. */
static double sample_share(const struct profile_thread *th)
{
	uint64_t all = th->samples + th->library_samples;

	return all ? (double)th->library_samples / (double)all : 0;
}

void library_share(const struct profile_doc *docs, size_t n,
		   struct library_share *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t d = 0; d < n; d++) {
		const char *cost = profile_meta(&docs[d], PROFILE_META_COST);
		out->timed |= !cost || !strcmp(cost, "ns");
		for (size_t i = 0; i < docs[d].n_threads; i++) {
			const struct profile_thread *th = &docs[d].threads[i];
			out->ns += th->library_ns;
			out->sampled |= th->sampled;
			out->cpu_ns += th->cpu_ns;
			out->samples += th->samples + th->library_samples;
			out->in_library += th->library_samples;
			double share = sample_share(th);
			if (th->library_samples &&
			    (!out->worst || share > out->worst_share)) {
				out->worst = th;
				out->worst_path = docs[d].path;
				out->worst_share = share;
			}
		}
	}
}

static void print_ns(FILE *out, uint64_t ns)
{
	if (ns >= 1000000000u)
		fprintf(out, "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		fprintf(out, "%.2f ms", (double)ns / 1e6);
	else
		fprintf(out, "%.1f us", (double)ns / 1e3);
}

void report_print_library(const struct library_share *s, FILE *out)
{
	if (!s->ns && !s->in_library)
		return;
	fprintf(out, "\nThe profiler's own time: ");
	if (s->sampled && s->samples)
		fprintf(out, "%.2f%% of the samples (%" PRIu64 " of %" PRIu64
			") found a thread inside it; ",
			100.0 * (double)s->in_library / (double)s->samples,
			s->in_library, s->samples);
	fprintf(out, "its metered time is ");
	print_ns(out, s->ns);
	if (s->cpu_ns)
		fprintf(out, ", %.2f%% of the sampled threads' CPU time",
			100.0 * (double)s->ns / (double)s->cpu_ns);
	fprintf(out, "%s.\n",
		s->timed ? " (elapsed time inside its calls, and its sample "
			   "handler)"
			 : " (its sample handler only: with costs in events "
			   "its calls are not timed)");
	if (s->worst && s->worst_share > 0) {
		fprintf(out, "  most in thread %" PRIu32, s->worst->ordinal);
		if (s->worst->name)
			fprintf(out, " (%s)", s->worst->name);
		fprintf(out, " of %s: %.2f%% of its samples, ", s->worst_path,
			100.0 * s->worst_share);
		print_ns(out, s->worst->library_ns);
		fprintf(out, " metered\n");
	}
}
