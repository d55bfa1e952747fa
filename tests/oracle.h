/*
 * oracle.h - the naive test oracle for trms and rms.
 *
 * This is written straight from DESIGN §2 (the definitions), with
 * explicit sets and no cleverness, so that it is obviously right.  It is
 * the reference the engine is checked against by differential testing.
 * It must never be changed to agree with the engine: when the two
 * disagree, the definitions decide, and only a misreading of them is a
 * reason to edit this file.
 */
#ifndef TRMS_TESTS_ORACLE_H
#define TRMS_TESTS_ORACLE_H

#include <stdint.h>

#include "trace.h"

struct oracle_activation {
	uint64_t tid;  /* trace.tids[thread] */
	uint32_t name; /* index into trace.names */
	uint64_t trms, rms, induced_thread, induced_external, cost;
};

/* Run the definitions over @t with cells of @granularity bytes (1,2,4,8,16).
 * @emit is called once per completed activation, in completion order.
 * Activations still pending at the end of the trace are then closed:
 * threads in ascending tid order, within a thread innermost first.
 * Returns 0, or -1 on a malformed trace (return with nothing pending). */
int oracle_run(const struct trace *t, unsigned granularity,
	       void (*emit)(void *ctx, const struct oracle_activation *a),
	       void *ctx);

#endif
