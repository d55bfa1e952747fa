/*
 * replay.h - run the engine over a serialised trace (DESIGN §6).
 *
 * Each trace thread gets its own engine_thread, all driven from the
 * calling OS thread in trace order.  The cost of an activation is the
 * number of access events (read, write, kread, kwrite) issued by it and
 * its descendants.
 */
#ifndef TRMS_REPLAY_H
#define TRMS_REPLAY_H

#include <stdint.h>

#include "engine/engine.h"
#include "engine/tuples.h"
#include "trace.h"

struct replay_options {
	unsigned granularity; /* K */
	unsigned stamp_bits;  /* 0: the build's full width */
	bool keep_profile;    /* fill per-thread tuple tables */
	/* Run the engine as the library does in a process that has one
	 * thread (struct engine's single_writer) until the trace's second
	 * thread first appears. */
	bool single_writer;
	/* Try each read and write as code compiled with inline checks does
	 * (engine_fast.h) before the engine's own operation. */
	bool fast;
};

struct replay {
	struct engine engine;
	volatile char alone; /* see replay_options' single_writer */
	bool fast;
	struct engine_thread *threads; /* by dense trace index */
	struct tuple_table *profiles; /* by dense trace index, if kept */
	size_t n_threads;
	const struct trace *trace;
};

/* Called for every completed activation, in completion order. */
typedef void (*replay_emit_fn)(void *ctx, uint64_t tid, const char *name,
			       const struct activation *a);

/* Run @trace.  Activations still pending at the end are closed innermost
 * first, threads in ascending thread id order.  @return 0 or -errno from
 * the engine (the replay stops there). */
int replay_run(struct replay *r, const struct trace *trace,
	       const struct replay_options *options, replay_emit_fn emit,
	       void *ctx);

/* Write the profile of a replay run with keep_profile to @path. */
int replay_write_profile(const struct replay *r, const char *path,
			 const char *trace_name);

void replay_fini(struct replay *r);

#endif
