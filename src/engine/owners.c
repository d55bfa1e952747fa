/*
 * owners.c - which threads have touched each chunk of memory (see
 * owners.h).
 */
#define _GNU_SOURCE
#include "engine/owners.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/vm.h"

typedef _Atomic(void *) owners_slot;

/* A full fence.  ThreadSanitizer has none: there, a sequentially
 * consistent read-modify-write of one word stands for it. */
#if defined(__SANITIZE_THREAD__)
#define OWNERS_NO_FENCE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWNERS_NO_FENCE 1
#endif
#endif

static void full_fence(void)
{
#ifdef OWNERS_NO_FENCE
	static atomic_uint word;
	atomic_fetch_add_explicit(&word, 0, memory_order_seq_cst);
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

#define PRIMARY_SLOTS ((size_t)1 << SHADOW_PRIMARY_BITS)
#define SECONDARY_SLOTS ((size_t)1 << SHADOW_SECONDARY_BITS)
#define PRIMARY_BYTES (PRIMARY_SLOTS * sizeof(owners_slot))
#define SECONDARY_BYTES (SECONDARY_SLOTS * sizeof(_Atomic uint32_t))

void owners_init(struct owners *o)
{
	atomic_init(&o->primary, NULL);
	atomic_init(&o->bytes, 0);
	atomic_init(&o->failed, false);
	atomic_init(&o->remote_fence, false);
	atomic_init(&o->prepared, false);
}

void owners_fini(struct owners *o)
{
	owners_slot *primary = atomic_load(&o->primary);

	if (!primary)
		return;
	for (size_t i = 0; i < PRIMARY_SLOTS; i++) {
		void *secondary = atomic_load(&primary[i]);
		if (secondary)
			vm_free(secondary, SECONDARY_BYTES);
	}
	vm_free(primary, PRIMARY_BYTES);
	owners_init(o);
}

static long membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

void owners_prepare(struct owners *o)
{
	if (atomic_exchange_explicit(&o->prepared, true, memory_order_relaxed))
		return;
	long cmds = membarrier(MEMBARRIER_CMD_QUERY);
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		atomic_store_explicit(&o->remote_fence, true,
				      memory_order_seq_cst);
}

void owners_after_fork_child(struct owners *o)
{
	atomic_store(&o->remote_fence, false);
	atomic_store(&o->prepared, false);
}

/* *@slot, mapped (zeroed) and installed if it was NULL; NULL if no memory
 * could be had. */
static void *installed(struct owners *o, owners_slot *slot, size_t bytes)
{
	void *have = atomic_load_explicit(slot, memory_order_acquire);

	if (have)
		return have;
	void *fresh = vm_alloc_bulk(bytes);
	if (!fresh)
		return NULL;
	if (atomic_compare_exchange_strong_explicit(slot, &have, fresh,
						    memory_order_acq_rel,
						    memory_order_acquire)) {
		atomic_fetch_add_explicit(&o->bytes, bytes,
					  memory_order_relaxed);
		return fresh;
	}
	vm_free(fresh, bytes); /* another thread installed one first */
	return have;
}

/* The owner word of chunk @index, its tables made if needed; NULL if no
 * memory could be had. */
static _Atomic uint32_t *word(struct owners *o, uintptr_t index)
{
	owners_slot *primary = installed(o, &o->primary, PRIMARY_BYTES);

	if (!primary)
		return NULL;
	_Atomic uint32_t *secondary = installed(
		o, &primary[index >> SHADOW_SECONDARY_BITS], SECONDARY_BYTES);
	return secondary ? &secondary[index & (SECONDARY_SLOTS - 1)] : NULL;
}

/* Every thread that may have written on a word it found its own fences
 * now, before this thread goes on to read or write the chunk's stamps. */
static void fence_everyone(struct owners *o)
{
	if (atomic_load_explicit(&o->remote_fence, memory_order_seq_cst) &&
	    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		/* (Not expected after a registration that worked: only
		 * a sandbox that refuses it without killing, and the
		 * library stops in a sandbox.  The writers fence
		 * themselves from now on.) */
		atomic_store_explicit(&o->remote_fence, false,
				      memory_order_seq_cst);
	full_fence();
}

void owners_give_up(struct owners *o)
{
	atomic_store_explicit(&o->failed, true, memory_order_relaxed);
	fence_everyone(o);
}

bool owners_claim(struct owners *o, struct owners_memo *memo, uintptr_t index,
		  uint32_t thread)
{
	if (atomic_load_explicit(&o->failed, memory_order_relaxed))
		return false;
	_Atomic uint32_t *w = memo->word && memo->index == index
				      ? memo->word
				      : word(o, index);
	if (!w) {
		owners_give_up(o);
		return false;
	}
	memo->index = index;
	memo->word = w;
	uint32_t now = atomic_load_explicit(w, memory_order_relaxed);
	for (;;) {
		if (now == thread)
			return true;
		if (now == OWNERS_SHARED)
			return false;
		uint32_t next = now ? OWNERS_SHARED : thread;
		if (atomic_compare_exchange_weak_explicit(
			    w, &now, next, memory_order_seq_cst,
			    memory_order_relaxed))
			break;
	}
	if (now == 0)
		return true; /* the first thread here */
	/* Marked shared by this thread: its reads of the chunk's write
	 * stamps come after the fence, and a lone writer's check after its
	 * stores (owners_still_alone). */
	fence_everyone(o);
	return false;
}

bool owners_still_alone(struct owners *o, const struct owners_memo *memo,
			uint32_t thread)
{
	if (atomic_load_explicit(&o->remote_fence, memory_order_relaxed))
		atomic_signal_fence(memory_order_seq_cst);
	else
		full_fence();
	return !atomic_load_explicit(&o->failed, memory_order_relaxed) &&
	       memo->word &&
	       atomic_load_explicit(memo->word, memory_order_relaxed) == thread;
}
