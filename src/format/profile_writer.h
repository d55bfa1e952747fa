/*
 * profile_writer.h - writes a profile (format: docs/profile-format.md;
 * its words: profile_format.h).
 *
 * The text goes through a fixed buffer to a sink: a profile file (see
 * atomic_file.h: it appears whole or not at all, mode 0644 less the
 * umask), or whatever the caller passes (the library hands profiles to
 * `trms run` through a socket).  No allocation, so a profile can be
 * written from anywhere.
 */
#ifndef TRMS_PROFILE_WRITER_H
#define TRMS_PROFILE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tuples.h"
#include "base/atomic_file.h"
#include "format/profile_format.h"

/* Takes @n bytes of the profile.  @return 0 or -errno. */
typedef int profile_sink(void *ctx, const void *buf, size_t n);

struct profile_writer {
	profile_sink *sink;
	void *sink_ctx;
	int error; /* first errno met, 0 if none */
	size_t tuples;
	/* The version the first line says: 0 for the oldest
	 * (PROFILE_FORMAT_OLDEST), so that readers of that version read
	 * what does not use newer lines; else what
	 * profile_format_version_for() says the profile needs (from
	 * PROFILE_FORMAT_CORRECTIONS on, tuple lines have the correction's
	 * fields).  Set before the start. */
	unsigned version;
	double scale; /* multiplies costs: ticks to nanoseconds; 1 = exact */
	/* If set, costs are clock ticks: asked for the scale when the first
	 * cost is written (finding the rate may cost a trap to the
	 * hypervisor, which a profile without costs need not pay). */
	double (*ns_per_tick)(void);
	struct atomic_file file; /* the sink of profile_writer_open */
	size_t len;
	char buf[8192];
};

/* Start writing the profile file destined for @path.  @return 0 or
 * -errno (then atomic_file_error(&w->file, rc) says it in words). */
int profile_writer_open(struct profile_writer *w, const char *path);

/* Start writing a profile into @sink. */
void profile_writer_start(struct profile_writer *w, profile_sink *sink,
			  void *ctx);

void profile_writer_meta(struct profile_writer *w, const char *key,
			 const char *value);
/* @value is already escaped (several fields separated by blanks). */
void profile_writer_meta_raw(struct profile_writer *w, const char *key,
			     const char *value);
void profile_writer_meta_u64(struct profile_writer *w, const char *key,
			     uint64_t value);
void profile_writer_region(struct profile_writer *w, uint32_t id,
			   const char *name);
/* The file of function region @region's code (version 4 on: the writer's
 * version must be PROFILE_FORMAT_OBJECTS or later). */
void profile_writer_object(struct profile_writer *w, uint32_t region,
			   const char *path);
/* What the profile says about a thread. */
struct thread_info {
	uint32_t ordinal;
	const char *name;    /* NULL: the thread is known by its ordinal */
	bool has_creator;    /* created through the pthread_create hook */
	uint32_t creator;    /* the creating thread's ordinal */
	const uint32_t *context; /* regions open in the creator, outermost
				    first */
	unsigned context_depth;
	uint64_t in_bytes, in_calls;   /* data received through hooked calls */
	uint64_t out_bytes, out_calls; /* data sent through hooked calls */
	bool sampled;
	uint64_t samples, cpu_ns;      /* call-stack samples, CPU time */
	/* The library's own time in this thread: metered (ns), and the
	 * samples that found the thread inside it. */
	uint64_t library_ns, library_samples;
	/* The thread that holds ended threads folded into it: how many
	 * (in a window, how many since the window before). */
	uint64_t ended_threads;
	/* In a window: after it, this thread is folded into thread
	 * folded_into (its activations are that one's from then on). */
	bool has_folded_into;
	uint32_t folded_into;
};

void profile_writer_thread(struct profile_writer *w,
			   const struct thread_info *info);
void profile_writer_tuple(struct profile_writer *w, uint32_t thread,
			  const struct tuple_data *tuple);

/* Of the @activations of region @region on thread @thread, @measured
 * were measured (the others skipped: TRMS_ACTIVATION_SAMPLE,
 * TRMS_BUDGET). */
void profile_writer_activations(struct profile_writer *w, uint32_t region,
				uint32_t thread, uint64_t activations,
				uint64_t measured);

/* A loaded object: its executable addresses [start, end), load bias,
 * whether it was unloaded before the end, and its file. */
void profile_writer_module(struct profile_writer *w, uint32_t id,
			   uintptr_t start, uintptr_t end, uintptr_t base,
			   bool unloaded, const char *path);

/* The function at @offset of module @module. */
void profile_writer_symbol(struct profile_writer *w, uint32_t module,
			   uint64_t offset, const char *name,
			   uint64_t name_offset);

/* A node of a thread's calling context tree. */
struct cct_line {
	uint32_t thread;
	uint32_t node;
	bool has_parent;
	uint32_t parent;
	enum profile_cct_kind kind;
	uint64_t a, b;    /* frame: module, offset; region: id, 0 */
	uint64_t samples, work, idleness_millionths, overhead, blocked;
};

void profile_writer_cct(struct profile_writer *w, const struct cct_line *l);

/* Write the trailer and flush into the sink.  @return 0 or the first
 * -errno met. */
int profile_writer_end(struct profile_writer *w);

/* For profile_writer_open: end, and put the file in place.  On any error
 * nothing is left but what was at the destination before.
 * @return 0 or -errno. */
int profile_writer_commit(struct profile_writer *w);

/* For profile_writer_open: give up, leaving nothing. */
void profile_writer_abort(struct profile_writer *w);

#endif
