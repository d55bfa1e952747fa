/*
 * trace.h - event traces for `trms replay` (DESIGN §6).
 *
 *   <tid> call <name>
 *   <tid> return
 *   <tid> read|write|kread|kwrite <addr> <size>
 *
 * Parsing checks the whole trace before anything runs, so a malformed
 * trace produces an error and no output at all.
 */
#ifndef TRMS_TRACE_H
#define TRMS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum trace_op {
	TRACE_CALL,
	TRACE_RETURN,
	TRACE_READ,
	TRACE_WRITE,
	TRACE_KREAD,
	TRACE_KWRITE,
};

struct trace_event {
	uint32_t thread; /* dense index into trace.tids, by first appearance */
	uint32_t op;
	uint32_t name; /* TRACE_CALL: index into trace.names */
	uint64_t addr;
	uint64_t size;
};

struct trace {
	struct trace_event *events;
	size_t n_events, cap_events;
	char **names;
	size_t n_names, cap_names;
	uint64_t *tids; /* the trace's thread id of each dense index */
	size_t n_threads, cap_threads;
	/* private lookup tables */
	uint32_t *name_index;
	size_t name_index_cap;
	uint32_t *tid_index;
	size_t tid_index_cap;
};

void trace_init(struct trace *t);
void trace_free(struct trace *t);

/* Parse all of @f into @t.  @return 0; or, with "NAME:LINE: problem" in
 * @err, -EINVAL for a malformed line or the -errno of a read error. */
int trace_parse(FILE *f, const char *name, struct trace *t, char *err,
		size_t errlen);

/* Append events programmatically (tests), unchecked.  trace_append
 * returns 0. */
uint32_t trace_thread(struct trace *t, uint64_t tid);
uint32_t trace_name(struct trace *t, const char *name);
int trace_append(struct trace *t, const struct trace_event *e);

const char *trace_op_name(enum trace_op op);

#endif
