/*
 * profile_dump.h - what the process's profile says (profile_dump.c,
 * sample_dump.c), for the profile's writer (profile_write.c).
 */
#ifndef TRMS_PROFILE_DUMP_H
#define TRMS_PROFILE_DUMP_H

#include <stdbool.h>
#include <stdint.h>

struct profile_writer;

/* Everything of the profile after its header line, into @w (takes
 * runtime.lock; in an @abrupt write, from a signal handler or _exit, only
 * tries for a while).  @return 0, or -EBUSY if the lock could not be
 * had. */
int profile_dump(struct profile_writer *w, bool abrupt);

/* A window of TRMS_INTERVAL (window_write.c): its number, from 1, and
 * when it began and ended (ns since the epoch). */
struct dump_window {
	uint64_t number, start_ns, end_ns;
};

/* The format version the profile (of @window, or NULL: the whole run)
 * needs, for profile_writer's version: with costs in time, tuples carry
 * the correction's fields.  @abrupt as for profile_dump. */
unsigned profile_dump_version(bool abrupt, const struct dump_window *window);

/* profile_dump for @window (NULL: the whole run): its meta says which
 * window it is, its threads' counters and tuples are those of the window
 * (the tables of the threads' windows' cut), and it has no samples. */
int profile_dump_part(struct profile_writer *w, bool abrupt,
		      const struct dump_window *window);

/* Whether the process recorded anything at all: a tuple, a sample, data
 * through a hooked call (when in doubt, yes). */
bool profile_recorded_anything(bool abrupt);

/* The sampler's totals over every thread, live or ended (called with
 * runtime.lock held). */
struct sampler_totals;
void profile_sampler_totals(struct sampler_totals *totals);

/* What TRMS_VERBOSE=1 says of sampling at exit. */
void profile_log_sampling(void);

/* Every region's line, functions (function_names.c) named by their
 * symbols if @read_files, else by object and offset. */
void function_names_write(struct profile_writer *w, bool read_files);
/* Whether some region is a function (the profile then has object lines,
 * of version PROFILE_FORMAT_OBJECTS). */
bool function_names_any(void);

/* The sampled call trees and the sampler's totals, into @w; with names
 * of functions unless @with_names is false.  Called with runtime.lock
 * held. */
void sample_dump(struct profile_writer *w, bool with_names);

#endif
