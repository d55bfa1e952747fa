/*
 * runtime.h - the library inside a process: the one engine, the list of
 * the threads that use it, whether the library is active, and the costs
 * it calibrated.  (Each thread's own state is in thread.h.)
 */
#ifndef TRMS_RUNTIME_H
#define TRMS_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <urcu/list.h>

#include "trms.h"

#include "base/clock.h"
#include "engine/cost.h"
#include "engine/engine.h"

#define TRMS_STRINGIFY2_(x) #x
#define TRMS_STRINGIFY_(x) TRMS_STRINGIFY2_(x)
#define TRMS_VERSION_TEXT                                                   \
	TRMS_STRINGIFY_(TRMS_VERSION_MAJOR)                                 \
	"." TRMS_STRINGIFY_(TRMS_VERSION_MINOR) "." TRMS_STRINGIFY_(        \
		TRMS_VERSION_PATCH)

struct runtime {
	struct engine engine;
	/* The tag new activations get: the generation while profiling is
	 * on, 0 while it is paused (see trms_disable).  One word, so that
	 * begin reads one load. */
	atomic_uint tag;
	atomic_uint generation; /* bumped by trms_disable */
	/* The I/O hooks record what moves: from the start in a program
	 * that can open regions (annotated.h), else from the moment a region
	 * is named (see io_hooks.c for why not before). */
	atomic_bool record_io;
	pthread_mutex_t lock;   /* guards threads and next_ordinal */
	struct cds_list_head threads;
	uint32_t next_ordinal;
	pthread_key_t thread_key;
	pthread_mutex_t flush_lock;
	uint64_t start_realtime_ns;
	pid_t pid; /* the process this state belongs to (see fork) */
	atomic_bool finished; /* the final profile has been written */
	/* Calibrated at the first region begun (see calibrate.c), then
	 * read-only. */
	uint64_t cost_floor, cost_access_floor;
	uint64_t cost_clock_read;
	uint64_t cost_estimate[COST_OPS];
};

extern struct runtime runtime;

enum runtime_state {
	RUNTIME_NOT_STARTED = 0,
	RUNTIME_ACTIVE = 1,
	/* TRMS_OFF, secure execution, a failure at start, or a sandbox
	 * that holds every thread: the library does nothing. */
	RUNTIME_INERT = -1,
};

extern atomic_int runtime_state;

/* Always inlined: the hooks that a sanitizer's start-up calls before its
 * runtime is ready ask it from uninstrumented code. */
static inline __attribute__((always_inline)) bool runtime_active(void)
{
	return atomic_load_explicit(&runtime_state, memory_order_relaxed) ==
	       RUNTIME_ACTIVE;
}

static inline __attribute__((always_inline)) bool runtime_started(void)
{
	return atomic_load_explicit(&runtime_state, memory_order_relaxed) !=
	       RUNTIME_NOT_STARTED;
}

/* From now on the library does nothing (see RUNTIME_INERT). */
static inline void runtime_go_inert(void)
{
	atomic_store(&runtime_state, RUNTIME_INERT);
}

/* From now on the process may have regions: the cost clock is chosen (a
 * file read, made only where costs will be measured: clock.h) and the
 * library's memory limit set (memory_limit.h, if TRMS_MEMORY_LIMIT is
 * auto) before the I/O hooks start recording. */
void runtime_expect_regions(void);

uint64_t runtime_realtime_ns(void);

/* Start the library (idempotent; the constructor calls it, and so does
 * the first API call if it comes earlier). */
void runtime_start(void);

/* True if the calling process is the one the library's state belongs to
 * (false in a child made by vfork, or by a clone without fork handlers). */
static inline bool runtime_own_process(void)
{
	return getpid() == runtime.pid;
}

/* The tag a new activation gets: the current generation, or 0 if
 * profiling is paused. */
static inline uint32_t runtime_tag(void)
{
	return atomic_load_explicit(&runtime.tag, memory_order_relaxed);
}

#endif
