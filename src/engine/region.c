/*
 * region.c - the process-wide registry of region names (see region.h).
 */
#define _GNU_SOURCE
#include "engine/region.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/fnv1a.h"
#include "base/text.h"
#include "base/vm.h"

/* Names by id: a table of blocks, so that readers never see a block move. */
#define BLOCK_IDS 4096
#define BLOCKS (REGION_MAX / BLOCK_IDS)

static _Atomic(const char **) blocks[BLOCKS] VM_SET_APART;
static atomic_uint count;

/* Name text lives in arenas that are never freed. */
#define ARENA_BYTES ((size_t)64 << 10)
static char *arena;
static size_t arena_used = ARENA_BYTES;

/* Open addressing from name hash to id + 1; guarded by lock. */
static uint32_t *index_slots;
static size_t index_capacity;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

unsigned region_cache_generation = 1;

void region_cache_invalidate(void)
{
	__atomic_fetch_add(&region_cache_generation, 1, __ATOMIC_RELAXED);
}

const char *region_name(uint32_t id)
{
	const char **block = atomic_load_explicit(&blocks[id / BLOCK_IDS],
						  memory_order_acquire);

	return block ? block[id % BLOCK_IDS] : NULL;
}

uint32_t region_count(void)
{
	return atomic_load_explicit(&count, memory_order_acquire);
}


static char *copy_name(const char *name, size_t len)
{
	if (len + 1 > ARENA_BYTES - arena_used) {
		char *fresh = vm_alloc(ARENA_BYTES);
		if (!fresh)
			return NULL;
		arena = fresh;
		arena_used = 0;
	}
	char *copy = arena + arena_used;
	memcpy(copy, name, len + 1);
	arena_used += len + 1;
	return copy;
}

static int index_grow(void)
{
	size_t capacity = index_capacity ? 2 * index_capacity : 1024;
	uint32_t *slots = vm_alloc(capacity * sizeof(*slots));
	uint32_t n = region_count();

	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 0; id < n; id++) {
		size_t j = fnv1a_string(region_name(id)) & (capacity - 1);
		while (slots[j])
			j = (j + 1) & (capacity - 1);
		slots[j] = id + 1;
	}
	vm_free(index_slots, index_capacity * sizeof(*index_slots));
	index_slots = slots;
	index_capacity = capacity;
	return 0;
}

/* Called with lock held. */
static int intern_locked(const char *name, size_t len, uint32_t *id)
{
	uint32_t n = region_count();
	size_t j;

	if (2 * ((size_t)n + 1) > index_capacity && index_grow())
		return -ENOMEM;
	for (j = fnv1a_string(name) & (index_capacity - 1); index_slots[j];
	     j = (j + 1) & (index_capacity - 1)) {
		if (!strcmp(region_name(index_slots[j] - 1), name)) {
			*id = index_slots[j] - 1;
			return 0;
		}
	}
	if (n >= REGION_MAX)
		return -ENOMEM;
	const char **block = atomic_load_explicit(&blocks[n / BLOCK_IDS],
						  memory_order_relaxed);
	if (!block) {
		block = vm_alloc(BLOCK_IDS * sizeof(*block));
		if (!block)
			return -ENOMEM;
		atomic_store_explicit(&blocks[n / BLOCK_IDS], block,
				      memory_order_release);
	}
	char *copy = copy_name(name, len);
	if (!copy)
		return -ENOMEM;
	block[n % BLOCK_IDS] = copy;
	atomic_store_explicit(&count, n + 1, memory_order_release);
	index_slots[j] = n + 1;
	*id = n;
	return 0;
}

void region_lock_for_fork(void)
{
	pthread_mutex_lock(&lock);
}

void region_unlock_after_fork(void)
{
	pthread_mutex_unlock(&lock);
}

int region_intern(const char *name, uint32_t *id)
{
	size_t len = strnlen(name, REGION_NAME_MAX + 1);
	int rc;

	if (len > REGION_NAME_MAX)
		return -ENAMETOOLONG;
	pthread_mutex_lock(&lock);
	rc = intern_locked(name, len, id);
	pthread_mutex_unlock(&lock);
	return rc;
}

int region_intern_function(const void *fn, uint32_t *id)
{
	char name[2 + 2 * sizeof(uintptr_t)];
	int len = text_format(name, sizeof(name), "%c%lx", REGION_FUNCTION_MARK,
			      (unsigned long)(uintptr_t)fn);

	pthread_mutex_lock(&lock);
	int rc = intern_locked(name, (size_t)len, id);
	pthread_mutex_unlock(&lock);
	return rc;
}

bool region_function(uint32_t id, uintptr_t *fn)
{
	const char *name = region_name(id);
	uintptr_t a = 0;

	if (!name || name[0] != REGION_FUNCTION_MARK || !name[1])
		return false;
	for (const char *p = name + 1; *p; p++) {
		unsigned digit = *p >= 'a' ? (unsigned)(*p - 'a' + 10)
					   : (unsigned)(*p - '0');
		a = a << 4 | digit;
	}
	*fn = a;
	return true;
}

struct readonly_query {
	uintptr_t start, end;
	bool found;
};

static int find_readonly(struct dl_phdr_info *info, size_t size, void *data)
{
	struct readonly_query *q = data;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		uintptr_t hi = lo + ph->p_memsz;
		if (q->start >= lo && q->end <= hi) {
			q->found = true;
			return 1;
		}
	}
	return 0;
}

/* Is the whole string at @name inside a read-only segment of a loaded
 * object, where its text can never change? */
static bool is_immutable(const char *name, size_t len)
{
	struct readonly_query q = { (uintptr_t)name,
				    (uintptr_t)name + len + 1, false };

	dl_iterate_phdr(find_readonly, &q);
	return q.found;
}

int region_lookup_slow(struct name_cache *c, const char *name, uint32_t *id,
		       bool *immutable)
{
	unsigned i = name_cache_slot(name);
	unsigned generation =
		__atomic_load_n(&region_cache_generation, __ATOMIC_RELAXED);
	int rc = region_intern(name, id);

	if (rc)
		return rc;
	c->slot[i].ptr = name;
	c->slot[i].id = *id;
	c->slot[i].immutable = is_immutable(name, strlen(name));
	c->slot[i].generation = generation;
	*immutable = c->slot[i].immutable;
	return 0;
}
