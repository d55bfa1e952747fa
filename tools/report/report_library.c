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

/* Below these the shares are noise (1 sample of 1 is not "100% of the
 * time"), and a few milliseconds of its own not worth a line. */
#define MEANINGFUL_SAMPLES 100
#define MEANINGFUL_CPU_NS 100000000u  /* 100 ms */
#define MEANINGFUL_NS 10000000u       /* 10 ms */

void report_print_library(const struct library_share *s, FILE *out)
{
	bool by_samples = s->sampled && s->samples >= MEANINGFUL_SAMPLES;
	bool by_cpu = s->cpu_ns >= MEANINGFUL_CPU_NS;

	if ((!s->ns && !s->in_library) ||
	    (!by_samples && !by_cpu && s->ns < MEANINGFUL_NS))
		return;
	fprintf(out, "\nThe profiler itself: ");
	print_ns(out, s->ns);
	fprintf(out, "%s",
		s->timed ? " in its calls and its sample handler"
			 : " in its sample handler (with costs in events its "
			   "calls are not timed)");
	if (by_cpu)
		fprintf(out, ", %.2f%% of the sampled threads' CPU time",
			100.0 * (double)s->ns / (double)s->cpu_ns);
	if (by_samples)
		fprintf(out, "; %" PRIu64 " of %" PRIu64 " samples (%.2f%%) "
			"found a thread inside it",
			s->in_library, s->samples,
			100.0 * (double)s->in_library / (double)s->samples);
	fprintf(out, ".\n");
	const struct profile_thread *w = s->worst;
	if (by_samples && w && w->samples + w->library_samples >=
				      MEANINGFUL_SAMPLES) {
		fprintf(out, "  most in thread %" PRIu32, w->ordinal);
		if (w->name)
			fprintf(out, " (%s)", w->name);
		fprintf(out, " of %s: %.2f%% of its samples, ", s->worst_path,
			100.0 * s->worst_share);
		print_ns(out, w->library_ns);
		fprintf(out, " metered\n");
	}
}
