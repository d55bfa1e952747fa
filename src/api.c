/*
 * api.c - the exported trms_* functions: argument checks, the re-entrancy
 * guard, the cost clock, and calls into the engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "trms.h"

#include "activation.h"
#include "calibrate.h"
#include "base/log.h"
#include "output/profile_write.h"
#include "base/text.h"

/* Where an API call goes when the thread's state is not simply there:
 * the library is not started or inert, the thread is new or past its
 * exit, or the call re-entered the library. */
struct trms_thread *call_enter_slow(int *rc)
{
	static __thread bool attaching __attribute__((tls_model("initial-exec")));
	struct trms_thread *t = thread_current;

	if (t) { /* busy */
		*rc = -EBUSY;
		return NULL;
	}
	if (!runtime_started())
		runtime_start();
	*rc = 0;
	if (!runtime_active() || thread_is_gone()) {
		/* Nothing to record on this thread, ever: the inline forms
		 * need not call again. */
		if (runtime_started())
			gate_thread_off();
		return NULL;
	}
	if (attaching) {
		*rc = -EBUSY;
		return NULL;
	}
	attaching = true;
	t = thread_self();
	attaching = false;
	if (!t) {
		*rc = -ENOMEM;
		return NULL;
	}
	t->busy = true;
	return t;
}


/* A name this thread has not met at this address: register it, timed. */
static int lookup_slow(struct trms_thread *t, const char *name, uint32_t *id,
		       bool *immutable)
{
	uint64_t start = registration_start();
	int rc = region_lookup_slow(&t->names, name, id, immutable);

	registration_end(t, start, !rc);
	if (rc == -ENAMETOOLONG)
		log_client("region name longer than %d bytes: \"%.40s...\"",
			   REGION_NAME_MAX, name);
	else if (rc)
		log_internal("cannot register region \"%s\": %s", name,
			     text_errno(-rc));
	return rc;
}

/* The region id of @name; *@key is @name if the pointer alone identifies
 * the region (a literal), NULL if its text must be checked. */
static inline int lookup(struct trms_thread *t, const char *name, uint32_t *id,
			 const void **key)
{
	bool immutable = false;
	int rc = region_lookup_fast(&t->names, name, id, &immutable);

	if (__builtin_expect(rc == -EAGAIN, 0))
		rc = lookup_slow(t, name, id, &immutable);
	*key = immutable ? name : NULL;
	return rc;
}

void activation_engine_error(const char *what, int rc)
{
	if (rc == -ENOMEM)
		log_internal("%s: out of memory for the shadow stack or "
			     "shadow memory",
			     what);
	else if (rc == -EOVERFLOW)
		log_internal("%s: timestamps exhausted; profiling stopped",
			     what);
}

static int lookup_name(struct trms_thread *t, const void *name, uint32_t *id,
		       const void **key)
{
	return lookup(t, name, id, key);
}

/* The calls the calibration times (calibrate.h): the API's own paths,
 * without the exported symbols. */
static int calibration_begin(const char *name);
static int calibration_end(const char *name);
static int calibration_read(const void *addr, size_t size);

static const struct calibration_calls calibration_calls = {
	calibration_begin,
	calibration_end,
	calibration_read,
};

void activation_calibrate(struct trms_thread *t)
{
	if (call_timed() && __builtin_expect(!t->cost.calibrated, 0)) {
		/* Before the thread's first activation: no cost spans this
		 * time.  The calibration makes API calls of its own. */
		call_leave(t);
		calibrate_thread(t, &calibration_calls);
		t->busy = true;
	}
}

/* trms_region_begin when the fast path does not apply: always a thread's
 * first begin (its first call of a kind is measured, see cost.h). */
static __attribute__((noinline)) int begin_general(const char *name,
						   uintptr_t cfa)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return rc;
	activation_calibrate(t);
	if (__builtin_expect(!name || !*name, 0)) {
		log_client("trms_region_begin: %s region name",
			   name ? "empty" : "NULL");
		rc = -EINVAL;
	} else if (__builtin_expect(*name == REGION_FUNCTION_MARK, 0)) {
		log_client("trms_region_begin: a region name may not begin "
			   "with the byte 0x01 (it marks functions)");
		rc = -EINVAL;
	} else if (call_timed()) {
		rc = activation_open(t, name, cfa, lookup_name,
				     "trms_region_begin", true);
	} else {
		rc = activation_open(t, name, cfa, lookup_name,
				     "trms_region_begin", false);
	}
	call_leave(t);
	return rc;
}

/*
 * The common case gets a path of its own, short enough to need almost no
 * stack frame: a string literal this thread has met before, room on the
 * stack, and with costs in nanoseconds a call whose time is not to be
 * measured (COST_SAMPLE_EVERY).
 * Anything else leaves it having changed nothing, for the general path.
 * Specialised for the cost unit, like begin(), and for whether some
 * activations may be skipped (@may_select: selection.on, or not known).
 */
static inline __attribute__((always_inline)) int
begin_fast(const char *name, uintptr_t cfa, const bool is_timed,
	   const bool may_select)
{
	struct trms_thread *t = thread_current;
	uint32_t id;

	if (__builtin_expect(
		    t && !t->busy &&
			    region_lookup_literal(&t->names, name, &id) &&
			    (!is_timed ||
			     cost_take_unmeasured(&t->cost, COST_OP_BEGIN)),
		    1)) {
		int rc = activation_open_fast_as(t, id, name, cfa, is_timed,
						 may_select);
		if (__builtin_expect(rc != -EAGAIN, 1))
			return rc;
	}
	return begin_general(name, cfa);
}

static inline __attribute__((always_inline)) int region_begin(const char *name,
							      uintptr_t cfa)
{
	return call_timed() ? begin_fast(name, cfa, true, true)
			    : begin_fast(name, cfa, false, true);
}

/* With only some activations measured (selection.h), a skipped one first,
 * in as little code as it takes: noted on the gate's stack (its end is
 * the program's own, trms.h), or a frame of a few stores; no clock.  The
 * region gets its slot in the gate, if it has none: its next begins are
 * the program's own. */
static inline __attribute__((always_inline)) bool
begin_skipped(const char *name, uintptr_t cfa)
{
	struct trms_thread *t = thread_current;
	uint32_t id;

	if (!t || t->busy || !region_lookup_literal(&t->names, name, &id))
		return false;
	t->busy = true;
	bool done = selection_skip(&t->sel, id, t->cost.excluded);
	if (done && !gate_push(t->sel.gate, name, cfa)) {
		done = engine_try_push_uncounted(&t->engine, id, name, cfa);
		if (done)
			activation_gate_pushed(t);
	}
	if (done) {
		t->sel.decided = SELECTION_UNDECIDED;
		selection_slot_put(&t->sel, &t->sel.regions[id], id, name);
	}
	t->busy = false;
	return done;
}

/* After a begin that the library measured or opened otherwise: the
 * region's slot, if it has none yet (a literal only: the pointer alone
 * must name it). */
static void give_slot(const char *name)
{
	struct trms_thread *t = thread_current;
	uint32_t id;

	if (!t || t->busy || !gate_mode.begins ||
	    !region_lookup_literal(&t->names, name, &id) ||
	    id >= t->sel.capacity || !t->sel.regions[id].known ||
	    t->sel.regions[id].slot)
		return;
	t->busy = true;
	selection_slot_put(&t->sel, &t->sel.regions[id], id, name);
	t->busy = false;
}

static __attribute__((noinline)) int begin_selected(const char *name,
						    uintptr_t cfa)
{
	if (begin_skipped(name, cfa))
		return 0;
	int rc = region_begin(name, cfa);
	if (!rc)
		give_slot(name);
	return rc;
}

/*
 * The functions the header's inline forms call, by their second names
 * (trms.h), once they have found that the library is needed; the
 * functions of the public names decide first what the inline forms would
 * have (gate.h), for a program that calls them every time.
 */
#define SECOND_NAME __attribute__((visibility("default")))
SECOND_NAME int trms_region_begin_v1_(const char *name);
SECOND_NAME int trms_region_end_v1_(const char *name);
SECOND_NAME int trms_read_v1_(const void *addr, size_t size);
SECOND_NAME int trms_write_v1_(const void *addr, size_t size);

static inline __attribute__((always_inline)) int
begin_at(const char *name, uintptr_t cfa)
{
	unsigned route = selection.route;

	if (route == ROUTE_EVENTS)
		return begin_fast(name, cfa, false, false);
	if (__builtin_expect(route == ROUTE_SELECTED, 0))
		return begin_selected(name, cfa);
	return begin_fast(name, cfa, true, false);
}

int trms_region_begin_v1_(const char *name)
{
	return begin_at(name, (uintptr_t)__builtin_dwarf_cfa());
}

int trms_region_begin(const char *name)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();

	if (gate_thread_is_off())
		return 0;
	return begin_at(name, cfa);
}

static __attribute__((noinline)) int calibration_begin(const char *name)
{
	return region_begin(name, (uintptr_t)__builtin_dwarf_cfa());
}

/* @name is not the pointer the innermost region began with: check it by
 * its text. */
static int check_end_slow(struct trms_thread *t, const char *name)
{
	const struct frame *top = engine_top(&t->engine);
	const void *key;
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
	if (!*name || lookup(t, name, &id, &key) || id != top->region) {
		log_client("trms_region_end(\"%s\"): the innermost open region "
			   "is \"%s\"; nothing was closed",
			   name, region_name(top->region));
		return -EINVAL;
	}
	return 0;
}

/* Check that @name (NULL: anything) names the innermost open region. */
static inline int check_end(struct trms_thread *t, const char *name)
{
	const struct frame *top = engine_top(&t->engine);

	if (__builtin_expect(top && name && name == top->key, 1))
		return 0;
	return check_end_slow(t, name);
}

/* trms_region_end, specialised for the cost unit; @now is the clock read
 * on entry if timed. */
static inline __attribute__((always_inline)) int
end(struct trms_thread *t, const char *name, const bool is_timed,
    uint64_t now)
{
	struct meter m = { 0 };
	int rc;

	if (is_timed)
		meter_start_at(t, &m, COST_OP_END, now);
	rc = check_end(t, name);
	if (__builtin_expect(!rc, 1))
		activation_close(t, is_timed, now);
	if (is_timed)
		meter_stop(t, &m, COST_OP_END);
	return rc;
}

/* trms_region_end when the fast path does not apply; @now is the clock
 * read on entry, for costs in nanoseconds. */
static __attribute__((noinline)) int end_general(const char *name,
						 uint64_t now)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return rc;
	rc = call_timed() ? end(t, name, true, now) : end(t, name, false, 0);
	call_leave(t);
	return rc;
}

/* The end of an activation skipped on the gate's stack (the innermost
 * one), for a program that calls the library for it (built without the
 * inline forms, or with another name pointer): its name by text. */
static __attribute__((noinline)) int end_on_gate(struct trms_thread_gate_v1_ *g,
						 const char *name)
{
	const char *top = g->name[g->top - 1];

	if (name && name != top && strcmp(name, top) != 0) {
		log_client("trms_region_end(\"%s\"): the innermost open region "
			   "is \"%s\"; nothing was closed",
			   name, top);
		return -EINVAL;
	}
	g->top--;
	return 0;
}

/* As for begin, the common case on its own: @name the pointer the
 * innermost region began with, and an end whose time is not measured. */
static inline __attribute__((always_inline)) int
end_fast(const char *name, const bool is_timed, const bool may_select)
{
	struct trms_thread *t = thread_current;
	/* The activation's clock stops first, before any of our own work. */
	uint64_t now = is_timed ? clock_ticks() : 0;

	if (__builtin_expect(t && !t->busy, 1)) {
		/* With no region open this is the sentinel frame, whose key
		 * is NULL. */
		const struct frame *top = &t->engine.stack[t->engine.depth];
		if (__builtin_expect(name && name == top->key &&
					     (!is_timed ||
					      cost_take_unmeasured(
						      &t->cost, COST_OP_END)),
				     1)) {
			activation_close_fast_as(t, is_timed, now, may_select);
			return 0;
		}
	}
	return end_general(name, now);
}

static inline __attribute__((always_inline)) int end_as_timed(const char *name)
{
	return call_timed() ? end_fast(name, true, true)
			    : end_fast(name, false, true);
}

/* With only some activations measured (selection.h): the innermost may
 * be one skipped on the gate's stack, or only skipped ones are pending
 * (no clock to stop). */
static __attribute__((noinline)) int end_selected(const char *name)
{
	struct trms_thread *t = thread_current;

	if (t && !t->busy) {
		if (gate_has_open(t->sel.gate))
			return end_on_gate(t->sel.gate, name);
		if (activation_close_skipped(
			    t,
			    name && name == t->engine.stack[t->engine.depth].key))
			return 0;
	}
	return end_as_timed(name);
}

static inline __attribute__((always_inline)) int end_named(const char *name)
{
	unsigned route = selection.route;

	if (route == ROUTE_EVENTS)
		return end_fast(name, false, false);
	if (__builtin_expect(route == ROUTE_SELECTED, 0))
		return end_selected(name);
	return end_fast(name, true, false);
}

int trms_region_end_v1_(const char *name)
{
	return end_named(name);
}

int trms_region_end(const char *name)
{
	if (gate_thread_is_off())
		return 0;
	return end_named(name);
}

static __attribute__((noinline)) int calibration_end(const char *name)
{
	return end_as_timed(name);
}

/* Say why an access of @what was refused with @rc. */
static __attribute__((noinline, cold)) int
access_refused(const char *what, const void *addr, size_t size, int rc)
{
	if (rc == -EINVAL && !addr)
		log_client("%s(NULL, %zu): NULL address", what, size);
	else if (rc == -EINVAL)
		log_client("%s(%p, %zu): the range is not inside the user "
			   "address space",
			   what, addr, size);
	else
		activation_engine_error(what, rc);
	return rc;
}

static inline __attribute__((always_inline)) int
access_range(const char *what, const void *addr, size_t size,
	     int (*op)(struct engine_thread *, uintptr_t, size_t),
	     const bool is_timed)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return rc;
	if (__builtin_expect(!runtime_tag(), 0)) {
		rc = 0;
	} else if (__builtin_expect(!addr && size, 0)) {
		rc = access_refused(what, addr, size, -EINVAL);
	} else {
		rc = call_access_as(t, (uintptr_t)addr, size, op, is_timed);
		if (__builtin_expect(rc != 0, 0))
			rc = access_refused(what, addr, size, rc);
	}
	call_leave(t);
	return rc;
}

static __attribute__((noinline)) int read_timed(const void *addr,
						size_t size)
{
	return access_range("trms_read", addr, size, engine_read, true);
}

static __attribute__((noinline)) int read_events(const void *addr,
						 size_t size)
{
	return access_range("trms_read", addr, size, engine_read, false);
}

int trms_read_v1_(const void *addr, size_t size)
{
	return call_timed() ? read_timed(addr, size) : read_events(addr, size);
}

int trms_read(const void *addr, size_t size)
{
	if (gate_lets_read())
		return 0;
	return call_timed() ? read_timed(addr, size) : read_events(addr, size);
}

static __attribute__((noinline)) int calibration_read(const void *addr,
						      size_t size)
{
	return call_timed() ? read_timed(addr, size) : read_events(addr, size);
}

static __attribute__((noinline)) int write_timed(const void *addr,
						 size_t size)
{
	return access_range("trms_write", addr, size, engine_write, true);
}

static __attribute__((noinline)) int write_events(const void *addr,
						  size_t size)
{
	return access_range("trms_write", addr, size, engine_write, false);
}

int trms_write_v1_(const void *addr, size_t size)
{
	return call_timed() ? write_timed(addr, size)
			    : write_events(addr, size);
}

int trms_write(const void *addr, size_t size)
{
	if (gate_lets_write((uintptr_t)addr, size))
		return 0;
	return call_timed() ? write_timed(addr, size)
			    : write_events(addr, size);
}

int trms_thread_name(const char *name)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return rc;
	if (!name || !*name) {
		log_client("trms_thread_name: %s name", name ? "empty" : "NULL");
		call_leave(t);
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
	call_leave(t);
	return 0;
}

int trms_flush(void)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return rc;
	rc = profile_write_now(WRITE_FLUSH);
	call_leave(t);
	return rc;
}

static int set_enabled(bool on)
{
	runtime_start();
	if (!runtime_active())
		return 0;
	/* A pause ends the current generation: activations that began
	 * before it never match the tag again. */
	if (on)
		atomic_store(&runtime.tag, atomic_load(&runtime.generation));
	else if (atomic_exchange(&runtime.tag, 0))
		atomic_fetch_add(&runtime.generation, 1);
	return 0;
}

int trms_sampling_enable(void)
{
	sampler_set_enabled(true);
	return 0;
}

int trms_sampling_disable(void)
{
	sampler_set_enabled(false);
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
