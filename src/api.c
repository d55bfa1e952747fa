/*
 * api.c - the exported trms_* functions: argument checks, the re-entrancy
 * guard, the cost clock, and calls into the engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "trms.h"

#include "log.h"
#include "runtime.h"

/* Begin an API call.  @return the calling thread's state, or NULL with
 * *rc the value the call must return (0 when the library is inert or the
 * thread is past its exit, -EBUSY when re-entered). */
static inline struct trms_thread *enter(int *rc)
{
	int state = atomic_load_explicit(&runtime_state, memory_order_relaxed);

	if (__builtin_expect(state != 1, 0)) {
		if (state == 0) {
			runtime_start();
			state = atomic_load(&runtime_state);
		}
		if (state != 1) {
			*rc = 0;
			return NULL;
		}
	}
	if (__builtin_expect(runtime_busy, 0)) {
		*rc = -EBUSY;
		return NULL;
	}
	runtime_busy = true;
	struct trms_thread *t = thread_self();
	if (__builtin_expect(!t, 0)) {
		runtime_busy = false;
		*rc = thread_is_gone() ? 0 : -ENOMEM;
	}
	return t;
}

static inline void leave(void)
{
	runtime_busy = false;
}

static bool timed(void)
{
	return config.cost == COST_NS;
}

/* Resolve @name to a region id, timing the slow path (a name this thread
 * has not used before) so that it is kept out of the costs exactly. */
static int lookup(struct trms_thread *t, const char *name, uint32_t *id,
		  uint64_t *slow_ticks)
{
	int rc = region_lookup_fast(&t->names, name, id);

	if (__builtin_expect(rc != -EAGAIN, 1))
		return rc;
	uint64_t start = timed() ? clock_ticks() : 0;
	rc = region_lookup_slow(&t->names, name, id);
	if (timed()) {
		*slow_ticks = clock_ticks() - start;
		cost_exclude(&t->cost, *slow_ticks);
	}
	if (rc == -ENAMETOOLONG)
		log_client("region name longer than %d bytes: \"%.40s...\"",
			   REGION_NAME_MAX, name);
	else if (rc)
		log_internal("cannot register region \"%s\": %s", name,
			     strerror(-rc));
	return rc;
}

static void report_engine_error(const char *what, int rc)
{
	if (rc == -ENOMEM)
		log_internal("%s: out of memory for the shadow stack or "
			     "shadow memory",
			     what);
	else if (rc == -EOVERFLOW)
		log_internal("%s: timestamps exhausted; profiling stopped",
			     what);
}

static int begin(struct trms_thread *t, const char *name)
{
	bool sample = timed() && cost_sample(&t->cost, COST_OP_BEGIN);
	uint64_t entry = sample ? clock_ticks() : 0;
	uint64_t slow_ticks = 0;
	uint32_t id;
	int rc = lookup(t, name, &id, &slow_ticks);

	if (!rc)
		rc = engine_call(&t->engine, id, runtime_tag(),
				 t->engine.events);
	if (rc == -ENOMEM || rc == -EOVERFLOW)
		report_engine_error("trms_region_begin", rc);
	if (!timed())
		return rc;
	/* The activation's clock starts now, after all of our own work. */
	uint64_t now = clock_ticks();
	if (sample)
		cost_measured(&t->cost, COST_OP_BEGIN,
			      now - entry - slow_ticks);
	else
		cost_estimated(&t->cost, COST_OP_BEGIN);
	if (!rc)
		engine_set_cost_start(&t->engine, now - t->cost.excluded);
	return rc;
}

int trms_region_begin(const char *name)
{
	int rc;
	struct trms_thread *t = enter(&rc);

	if (!t)
		return rc;
	if (!name || !*name) {
		log_client("trms_region_begin: %s region name",
			   name ? "empty" : "NULL");
		rc = -EINVAL;
	} else {
		rc = begin(t, name);
	}
	leave();
	return rc;
}

/* Check that @name (NULL: anything) names the innermost open region. */
static int check_end(struct trms_thread *t, const char *name,
		     uint64_t *slow_ticks)
{
	const struct frame *top = engine_top(&t->engine);
	uint32_t id;

	if (!top) {
		log_client("trms_region_end(%s%s%s): no region is open on this "
			   "thread",
			   name ? "\"" : "", name ? name : "NULL",
			   name ? "\"" : "");
		return -EINVAL;
	}
	if (!name)
		return 0;
	if (!*name || lookup(t, name, &id, slow_ticks) || id != top->region) {
		log_client("trms_region_end(\"%s\"): the innermost open region "
			   "is \"%s\"; nothing was closed",
			   name, region_name(top->region));
		return -EINVAL;
	}
	return 0;
}

int trms_region_end(const char *name)
{
	int rc;
	struct trms_thread *t = enter(&rc);

	if (!t)
		return rc;
	/* The activation's clock stops first, before any of our own work. */
	uint64_t now = timed() ? clock_ticks() : 0;
	bool sample = timed() && cost_sample(&t->cost, COST_OP_END);
	uint64_t slow_ticks = 0;
	struct activation a;

	rc = check_end(t, name, &slow_ticks);
	if (!rc) {
		uint64_t cost = timed() ? now - t->cost.excluded
					: t->engine.events;
		rc = engine_return(&t->engine, cost, &a);
		if (!rc)
			thread_record(t, &a);
	}
	if (timed()) {
		if (sample)
			cost_measured(&t->cost, COST_OP_END,
				      clock_ticks() - now - slow_ticks);
		else
			cost_estimated(&t->cost, COST_OP_END);
	}
	leave();
	return rc;
}

static int access_range(const char *what, const void *addr, size_t size,
			int (*op)(struct engine_thread *, uintptr_t, size_t))
{
	int rc;
	struct trms_thread *t = enter(&rc);

	if (!t)
		return rc;
	if (!atomic_load_explicit(&runtime.enabled, memory_order_relaxed)) {
		leave();
		return 0;
	}
	if (!addr && size) {
		log_client("%s(NULL, %zu): NULL address", what, size);
		leave();
		return -EINVAL;
	}
	if (!timed()) {
		rc = op(&t->engine, (uintptr_t)addr, size);
	} else {
		/* Large accesses are timed exactly; small ones at a sampled
		 * estimate, because two clock reads would cost more than the
		 * access itself. */
		bool large = (size >> runtime.engine.cell_shift) >=
			     COST_MEASURE_CELLS;
		bool measure = large || cost_sample(&t->cost, COST_OP_ACCESS);
		uint64_t entry = measure ? clock_ticks() : 0;
		rc = op(&t->engine, (uintptr_t)addr, size);
		if (!measure)
			cost_estimated(&t->cost, COST_OP_ACCESS);
		else if (large)
			cost_exclude(&t->cost, clock_ticks() - entry);
		else
			cost_measured(&t->cost, COST_OP_ACCESS,
				      clock_ticks() - entry);
	}
	if (rc == -EINVAL)
		log_client("%s(%p, %zu): the range is not inside the user "
			   "address space",
			   what, addr, size);
	else if (rc)
		report_engine_error(what, rc);
	leave();
	return rc;
}

int trms_read(const void *addr, size_t size)
{
	return access_range("trms_read", addr, size, engine_read);
}

int trms_write(const void *addr, size_t size)
{
	return access_range("trms_write", addr, size, engine_write);
}

int trms_thread_name(const char *name)
{
	int rc;
	struct trms_thread *t = enter(&rc);

	if (!t)
		return rc;
	if (!name || !*name) {
		log_client("trms_thread_name: %s name", name ? "empty" : "NULL");
		leave();
		return -EINVAL;
	}
	size_t len = strnlen(name, THREAD_NAME_MAX);
	/* Do not cut a UTF-8 sequence in half. */
	if (len == THREAD_NAME_MAX)
		while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
			len--;
	pthread_mutex_lock(&runtime.lock);
	memcpy(t->name, name, len);
	t->name[len] = '\0';
	pthread_mutex_unlock(&runtime.lock);
	leave();
	return 0;
}

int trms_flush(void)
{
	int rc;
	struct trms_thread *t = enter(&rc);

	if (!t)
		return rc;
	rc = runtime_write_profile(false);
	leave();
	return rc;
}

static int set_enabled(bool on)
{
	runtime_start();
	if (atomic_load(&runtime_state) != 1)
		return 0;
	if (!on)
		atomic_fetch_add(&runtime.generation, 1);
	atomic_store(&runtime.enabled, on);
	return 0;
}

int trms_enable(void)
{
	return set_enabled(true);
}

int trms_disable(void)
{
	return set_enabled(false);
}

const char *trms_version(void)
{
	return TRMS_VERSION_TEXT;
}
