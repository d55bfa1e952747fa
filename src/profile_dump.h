/*
 * profile_dump.h - what the process's profile says (profile_dump.c,
 * sample_dump.c), for the profile's writer (profile_write.c).
 */
#ifndef TRMS_PROFILE_DUMP_H
#define TRMS_PROFILE_DUMP_H

#include <pthread.h>
#include <stdbool.h>

#include "profile_write.h"

struct profile_writer;

/* Take @m (runtime.lock, runtime.flush_lock) for a profile write: in an
 * abrupt one (a signal handler may have interrupted the lock's owner,
 * perhaps in this very thread) only try for a while.  @return false if
 * it could not be had. */
bool runtime_take_lock(pthread_mutex_t *m, enum write_reason reason);

/* Everything of the profile after its header line, into @w (takes
 * runtime.lock).  @return 0, or -EBUSY if the lock could not be had. */
int profile_dump(struct profile_writer *w, enum write_reason reason);

/* Whether the process recorded anything at all: a tuple, a sample, data
 * through a hooked call (when in doubt, yes). */
bool profile_recorded_anything(enum write_reason reason);

/* The sampler's totals over every thread, live or ended (called with
 * runtime.lock held). */
struct sampler_totals;
void profile_sampler_totals(struct sampler_totals *totals);

/* What TRMS_VERBOSE=1 says of sampling at exit. */
void profile_log_sampling(void);

/* The sampled call trees and the sampler's totals, into @w; with names
 * of functions unless @with_names is false.  Called with runtime.lock
 * held. */
void sample_dump(struct profile_writer *w, bool with_names);

#endif
