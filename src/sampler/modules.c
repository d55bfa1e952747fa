/*
 * modules.c - the objects loaded in the process, over the whole run (see
 * modules.h).
 */
#define _GNU_SOURCE
#include "sampler/modules.h"

#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/sort.h"
#include "base/vm.h"

#define MAX_MODULES 65536
#define PATH_ARENA_BYTES ((size_t)16 << 20)

/* One executable address range of a loaded module. */
struct range {
	uintptr_t start, end;
	uintptr_t base;
	uint32_t id;
};

/* A loaded segment that can be read. */
struct span {
	uintptr_t start, end;
};

/* The loaded modules' executable ranges and readable segments, each
 * sorted by start: replaced, never changed. */
struct snapshot {
	size_t n, n_readable, bytes;
	struct snapshot *next_retired;
	struct span *readable;
	struct range range[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct module *records; /* by id */
static atomic_uint n_records;
static char *path_arena;
static size_t path_used;
static _Atomic(struct snapshot *) current;
static atomic_uint library = UINT32_MAX; /* see modules_library */

/*
 * Replaced snapshots are freed once no search can be using them.  A
 * search (modules_find) counts itself in `finding`, and a stack walk in
 * `walks`, before it loads `current`, and out after its last look: once
 * `current` has been replaced, both at zero mean nobody holds the old
 * one.
 * Until then the old ones wait on the retired list, for the next refresh.
 * (A server that loads and unloads plugins all day must not grow.)
 */
static atomic_uint finding;
static struct snapshot *retired; /* under lock */

/* Stack walks under way, and dlclose calls (see modules_walk_begin). */
static atomic_uint walks, unloads;

static void free_retired(void)
{
	if (atomic_load_explicit(&finding, memory_order_seq_cst) ||
	    atomic_load_explicit(&walks, memory_order_seq_cst))
		return;
	while (retired) {
		struct snapshot *next = retired->next_retired;
		vm_free(retired, retired->bytes);
		retired = next;
	}
}

static __thread unsigned in_loader __attribute__((tls_model("initial-exec")));

void modules_loader_enter(void)
{
	in_loader++;
}

void modules_loader_leave(void)
{
	in_loader--;
}

bool modules_loader_busy(void)
{
	return in_loader != 0;
}

static const char *keep_path(const char *path)
{
	size_t len = strlen(path);

	if (!path_arena) {
		path_arena = vm_reserve(PATH_ARENA_BYTES);
		if (!path_arena)
			return "?";
	}
	if (path_used + len + 1 > PATH_ARENA_BYTES)
		return "?";
	char *copy = path_arena + path_used;
	memcpy(copy, path, len + 1);
	path_used += len + 1;
	return copy;
}

struct scan {
	struct range *ranges;
	size_t n, capacity;
	struct span *readable;
	size_t n_readable, readable_capacity;
};

/* The main program's file (under lock): not on the stack, which may be a
 * sample handler's. */
static char exe[4096] VM_SET_APART;

/* The record of the object at @base called @path, made if new. */
static uint32_t record_for(uintptr_t base, const char *path, bool program,
			   uintptr_t start, uintptr_t end)
{
	uint32_t n = atomic_load_explicit(&n_records, memory_order_relaxed);

	/* An object unloaded and loaded again where it was before keeps
	 * its record: the same code at the same addresses. */
	for (uint32_t i = 0; i < n; i++)
		if (records[i].base == base && !strcmp(records[i].path, path)) {
			records[i].unloaded = false;
			return i;
		}
	if (n >= MAX_MODULES)
		return UINT32_MAX;
	records[n] = (struct module){ n, false, base, start, end,
				      keep_path(path), program };
	atomic_store_explicit(&n_records, n + 1, memory_order_release);
	return n;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	uintptr_t start = UINTPTR_MAX, end = 0;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if ((ph->p_flags & PF_R) &&
		    s->n_readable < s->readable_capacity)
			s->readable[s->n_readable++] = (struct span){
				lo, lo + ph->p_memsz };
		if (!(ph->p_flags & PF_X))
			continue;
		if (lo < start)
			start = lo;
		if (lo + ph->p_memsz > end)
			end = lo + ph->p_memsz;
	}
	if (start >= end || s->n == s->capacity)
		return 0;
	/* The main program has no name here; the vDSO has no file. */
	const char *path = info->dlpi_name;
	bool program = !path || !*path;
	if (program)
		path = exe;
	s->ranges[s->n].start = start;
	s->ranges[s->n].end = end;
	s->ranges[s->n].base = info->dlpi_addr;
	s->ranges[s->n].id = record_for(info->dlpi_addr, path, program, start,
					end);
	if (s->ranges[s->n].id != UINT32_MAX)
		s->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_span_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Objects and loaded segments there are now. */
struct census {
	size_t objects, segments;
};

static int count_objects(struct dl_phdr_info *info, size_t size, void *data)
{
	struct census *c = data;

	(void)size;
	c->objects++;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
		c->segments += info->dlpi_phdr[i].p_type == PT_LOAD;
	return 0;
}

static bool find_in(const struct snapshot *snap, uintptr_t ip, uint32_t *id,
		    uintptr_t *offset);

/* Take the table (under lock). */
static void take(void)
{
	struct scan s = { 0 };
	struct census census = { 0 };
	struct snapshot *snap;

	if (!records)
		records = vm_reserve(MAX_MODULES * sizeof(*records));
	/* Room for the objects there are now, and a few loaded meanwhile. */
	dl_iterate_phdr(count_objects, &census);
	s.capacity = census.objects + 8;
	s.readable_capacity = census.segments + 32;
	size_t bytes = sizeof(*snap) + s.capacity * sizeof(struct range) +
		       s.readable_capacity * sizeof(struct span);
	snap = vm_alloc(bytes);
	if (!records || !snap) {
		if (snap)
			vm_free(snap, bytes);
		return;
	}
	snap->bytes = bytes;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	s.ranges = snap->range;
	s.readable = (struct span *)(snap->range + s.capacity);
	dl_iterate_phdr(collect, &s);
	/* A module no longer in the list was unloaded. */
	uint32_t n = atomic_load_explicit(&n_records, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		bool present = false;
		for (size_t j = 0; j < s.n && !present; j++)
			present = s.ranges[j].id == i;
		if (!present)
			records[i].unloaded = true;
	}
	sort_in_place(s.ranges, s.n, sizeof(s.ranges[0]), by_start);
	sort_in_place(s.readable, s.n_readable, sizeof(s.readable[0]),
		      by_span_start);
	snap->n = s.n;
	snap->readable = s.readable;
	snap->n_readable = s.n_readable;
	struct snapshot *old = atomic_exchange_explicit(&current, snap,
							 memory_order_seq_cst);
	if (old) {
		old->next_retired = retired;
		retired = old;
	}
	free_retired();
	uint32_t id;
	uintptr_t offset;
	if (atomic_load_explicit(&library, memory_order_relaxed) == UINT32_MAX &&
	    find_in(snap, (uintptr_t)modules_library, &id, &offset) &&
	    !records[id].program)
		atomic_store_explicit(&library, id, memory_order_release);
}

void modules_refresh(void)
{
	pthread_mutex_lock(&lock);
	take();
	pthread_mutex_unlock(&lock);
}

bool modules_ready(bool in_handler)
{
	if (atomic_load_explicit(&current, memory_order_acquire))
		return true;
	if (in_handler ? pthread_mutex_trylock(&lock)
		       : pthread_mutex_lock(&lock))
		return false;
	if (!atomic_load_explicit(&current, memory_order_relaxed))
		take();
	pthread_mutex_unlock(&lock);
	return atomic_load_explicit(&current, memory_order_acquire) != NULL;
}

static bool find_in(const struct snapshot *snap, uintptr_t ip, uint32_t *id,
		    uintptr_t *offset)
{
	size_t lo = 0, hi;

	if (!snap)
		return false;
	hi = snap->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (snap->range[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == snap->n || ip < snap->range[lo].start)
		return false;
	*id = snap->range[lo].id;
	*offset = ip - snap->range[lo].base;
	return true;
}

uint32_t modules_library(void)
{
	return atomic_load_explicit(&library, memory_order_acquire);
}

bool modules_find(uintptr_t ip, uint32_t *id, uintptr_t *offset)
{
	atomic_fetch_add_explicit(&finding, 1, memory_order_seq_cst);
	bool found = find_in(atomic_load_explicit(&current,
						  memory_order_seq_cst),
			     ip, id, offset);
	atomic_fetch_sub_explicit(&finding, 1, memory_order_release);
	return found;
}

static bool readable_in(const struct snapshot *snap, uintptr_t addr,
			size_t len)
{
	size_t lo = 0, hi;

	if (!snap)
		return false;
	hi = snap->n_readable;
	/* The last segment that starts at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (snap->readable[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < snap->readable[lo - 1].end &&
	       snap->readable[lo - 1].end - addr >= len;
}

/*
 * Unloading and unwinding exclude each other: a walk reads the objects'
 * unwind tables and code, which dlclose unmaps.  Each counts itself in
 * first and then looks at the other (both sequentially consistent): a
 * walk that finds an unload under way gives up at once; an unload waits
 * until the walks under way have ended.  A dlclose made from inside the
 * loader (a destructor's, on a thread already in dlclose) must not wait:
 * the outer call may hold the loader's lock, which a walk may be waiting
 * for; nor need it: the outer call counted itself in first, and waited.
 */
/* What a walk sees while no table has been taken yet. */
static const struct snapshot empty;

const struct modules_view *modules_walk_begin(void)
{
	atomic_fetch_add_explicit(&walks, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&unloads, memory_order_seq_cst)) {
		atomic_fetch_sub_explicit(&walks, 1, memory_order_release);
		return NULL;
	}
	/* Counted in, the walk holds the table it loads now: a replaced
	 * table is not freed while a walk is under way. */
	const struct snapshot *snap =
		atomic_load_explicit(&current, memory_order_seq_cst);
	return (const struct modules_view *)(snap ? snap : &empty);
}

bool modules_find_in(const struct modules_view *view, uintptr_t ip,
		     uint32_t *id, uintptr_t *offset)
{
	return find_in((const struct snapshot *)view, ip, id, offset);
}

bool modules_readable_in(const struct modules_view *view, uintptr_t addr,
			 size_t len)
{
	return readable_in((const struct snapshot *)view, addr, len);
}

void modules_walk_end(void)
{
	atomic_fetch_sub_explicit(&walks, 1, memory_order_release);
}

void modules_unload_begin(void)
{
	bool nested = modules_loader_busy();

	atomic_fetch_add_explicit(&unloads, 1, memory_order_seq_cst);
	while (!nested && atomic_load_explicit(&walks, memory_order_seq_cst))
		sched_yield();
}

void modules_unload_end(void)
{
	atomic_fetch_sub_explicit(&unloads, 1, memory_order_release);
}

const struct module *modules_all(uint32_t *count)
{
	*count = atomic_load_explicit(&n_records, memory_order_acquire);
	return records;
}
