/*
 * function_cache.h - a thread's map from function addresses to region ids
 * (code built with `trms cc`, where every function is a region).
 *
 * The names cache of region.h has 64 slots, enough for the few names a
 * program annotates; a program whose every function is a region meets
 * hundreds, so functions get a larger, direct-mapped table of their own,
 * allocated at the thread's first function.  A miss costs a lookup in the
 * locked registry (region_intern_function).
 */
#ifndef TRMS_FUNCTION_CACHE_H
#define TRMS_FUNCTION_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/region.h"

#define FUNCTION_CACHE_BITS 12

struct function_cache {
	struct {
		const void *fn;
		uint32_t id;
		unsigned generation;
	} slot[1u << FUNCTION_CACHE_BITS];
};

static inline unsigned function_cache_slot(const void *fn)
{
	return address_slot(fn, FUNCTION_CACHE_BITS);
}

/* The region of @fn if @c (may be NULL) holds it and no object was
 * unloaded since (its address may now hold another function). */
static inline bool function_cache_find(const struct function_cache *c,
				       const void *fn, uint32_t *id)
{
	if (!c)
		return false;
	unsigned i = function_cache_slot(fn);
	*id = c->slot[i].id;
	return c->slot[i].fn == fn &&
	       c->slot[i].generation ==
		       __atomic_load_n(&region_cache_generation,
				       __ATOMIC_RELAXED);
}

static inline void function_cache_put(struct function_cache *c,
				      const void *fn, uint32_t id,
				      unsigned generation)
{
	unsigned i = function_cache_slot(fn);

	c->slot[i].fn = fn;
	c->slot[i].id = id;
	c->slot[i].generation = generation;
}

#endif
