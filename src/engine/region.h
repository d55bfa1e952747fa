/*
 * region.h - region names: one id per distinct text, for the whole process.
 *
 * The registry is shared and locked, but it is consulted only when a
 * thread meets a name pointer it has not seen before.  Each thread keeps a
 * small cache from name pointers to ids: a pointer into a read-only part of
 * a loaded object (a string literal) cannot change its text, so a hit on it
 * is trusted without looking at the text; any other pointer is checked by
 * comparing the text with the cached region's name, so a buffer that is
 * reused for different names still gives the right region.
 */
#ifndef TRMS_REGION_H
#define TRMS_REGION_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define REGION_NAME_MAX 1023
#define REGION_MAX ((uint32_t)1 << 24)
/* Never registered: the hidden region used to calibrate costs. */
#define REGION_CALIBRATION UINT32_MAX

/* The id of the region named @name, registering it if new.
 * @return 0, -ENAMETOOLONG, -ENOMEM (too many regions or no memory). */
int region_intern(const char *name, uint32_t *id);

/*
 * Functions as regions (code built with `trms cc`): a function is
 * registered by its address, under a name that only the library reads —
 * REGION_FUNCTION_MARK, then the address in hex — and named by its symbol
 * when the profile is written (output/function_names.c), where the
 * object files can be read.
 */
#define REGION_FUNCTION_MARK '\001'

/* The id of the function at @fn, registering it if new.
 * @return 0, -ENOMEM. */
int region_intern_function(const void *fn, uint32_t *id);

/* Whether region @id is a function; its address in *@fn if so. */
bool region_function(uint32_t id, uintptr_t *fn);

/* Around fork(): hold the registry still so that the child does not
 * inherit it half-updated. */
void region_lock_for_fork(void);
void region_unlock_after_fork(void);

/* Name of a registered region; safe from any thread without locks. */
const char *region_name(uint32_t id);

/* Number of registered regions (ids are 0..count-1). */
uint32_t region_count(void);

#define NAME_CACHE_SLOTS 64 /* 2^6: see name_cache_slot */

struct name_cache {
	struct {
		const char *ptr;
		uint32_t id;
		bool immutable;
		unsigned generation;
	} slot[NAME_CACHE_SLOTS];
};

/* Bumped whenever cached pointers may have become stale (an object was
 * unloaded, so its read-only strings may be replaced by others). */
extern unsigned region_cache_generation;
void region_cache_invalidate(void);

/* Register @name and remember it in @c.  @return as region_intern. */
int region_lookup_slow(struct name_cache *c, const char *name, uint32_t *id,
		       bool *immutable);

/* Fibonacci hashing: the top @bits bits of the address times 2^64 / phi,
 * in three instructions, spread nearby addresses over 2^@bits slots. */
static inline unsigned address_slot(const void *p, unsigned bits)
{
	return (unsigned)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) >>
			  (64 - bits));
}

static inline unsigned name_cache_slot(const char *name)
{
	return address_slot(name, 6);
}

/* The region id of @name if @c holds it as a pointer into read-only
 * memory (a string literal), whose text need not be looked at.  Only
 * registered names are cached as such, so a NULL or empty @name is never
 * found here.  @return true if found. */
static inline bool region_lookup_literal(const struct name_cache *c,
					 const char *name, uint32_t *id)
{
	unsigned i = name_cache_slot(name);

	*id = c->slot[i].id;
	return c->slot[i].ptr == name && c->slot[i].immutable &&
	       c->slot[i].generation ==
		       __atomic_load_n(&region_cache_generation,
				       __ATOMIC_RELAXED);
}

/* The region id for @name from @c; -EAGAIN if @c does not know it (then
 * region_lookup_slow does).  *@immutable tells whether the pointer alone
 * identifies the region. */
static inline int region_lookup_fast(const struct name_cache *c,
				     const char *name, uint32_t *id,
				     bool *immutable)
{
	unsigned i = name_cache_slot(name);

	if (region_lookup_literal(c, name, id)) {
		*immutable = true;
		return 0;
	}
	if (c->slot[i].ptr == name &&
	    c->slot[i].generation ==
		    __atomic_load_n(&region_cache_generation,
				    __ATOMIC_RELAXED) &&
	    __builtin_strcmp(name, region_name(c->slot[i].id)) == 0) {
		*id = c->slot[i].id;
		*immutable = false;
		return 0;
	}
	return -EAGAIN;
}

#endif
