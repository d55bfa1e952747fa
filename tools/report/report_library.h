/*
 * report_library.h - how much of the process's time the profiler itself
 * took, from the profiles' thread lines: its metered time (calls timed
 * out of the costs, the sample handler) and the samples that found a
 * thread inside it.
 */
#ifndef TRMS_REPORT_LIBRARY_H
#define TRMS_REPORT_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_reader.h"

struct library_share {
	uint64_t ns, cpu_ns;        /* metered; CPU time of sampled threads */
	uint64_t samples, in_library; /* all samples; those inside the library */
	bool timed;                 /* costs in ns: the library's calls timed */
	bool sampled;
	/* The thread with the largest share of its samples inside the
	 * library. */
	const struct profile_thread *worst;
	const char *worst_path;
	double worst_share;
};

void library_share(const struct profile_doc *docs, size_t n,
		   struct library_share *out);

/* One paragraph for the table report: the library's metered time, its
 * share of the CPU time and of the samples where there are enough of
 * them to mean something (100 ms, 100 samples); nothing if there is
 * nothing worth saying (under 10 ms and no share that means anything). */
void report_print_library(const struct library_share *s, FILE *out);

#endif
