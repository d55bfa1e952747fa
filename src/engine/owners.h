/*
 * owners.h - which threads have touched each 64 KiB chunk of memory: none
 * yet, one, or several.
 *
 * A write must be stamped above every stamp another thread recorded for
 * the cells it writes (DESIGN §4, property 2), which in general means a
 * fresh value of the process's write clock: one atomic increment of one
 * shared counter per write, which threads that write at once pass back
 * and forth.  But where no other thread has ever touched the chunk, no
 * other thread has a stamp of its cells: the write may take its thread's
 * current stamp, as the only thread of a process does (struct engine's
 * single_writer), and a thread that comes later finds the cells written
 * after its own stamp 0.  So threads that work on memory of their own
 * write without touching shared memory.
 *
 * Every access claims the chunks it touches before it reads or writes
 * their write stamps (owners_claim, on each miss of the thread's chunk
 * cache).  A write that relied on being alone checks again after it
 * stored its stamps (owners_still_alone), and the thread that makes the
 * chunk shared does so before it reads them: between the two, a full
 * fence on each side, so that either the writer sees that another thread
 * came, and stamps its write again with a fresh value, or the newcomer's
 * reads see the write.  Once the process has prepared for threads
 * (owners_prepare), the writer's fence is left to the newcomer, who makes
 * every running thread of the process fence at once (membarrier, once
 * per chunk made shared), as liburcu's memb flavour does.
 *
 * Lock-free: a primary table of 2^15 pointers to tables of 2^16 words
 * (one per chunk of a 4 GiB range), mapped when first needed and
 * installed with compare-and-swap; never freed before the engine.
 */
#ifndef TRMS_OWNERS_H
#define TRMS_OWNERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow.h"

/* An owner word: 0 (no thread yet), a thread's number, or this. */
#define OWNERS_SHARED UINT32_MAX

struct owners {
	/* An array of PRIMARY slots, each NULL or an array of owner words
	 * (_Atomic uint32_t). */
	_Atomic(void *) primary;
	atomic_size_t bytes; /* mapped for the tables */
	/* Given up (owners_give_up): from then on no chunk is anyone's
	 * alone (the words no longer tell who touched what). */
	atomic_bool failed;
	/* The newcomer fences every thread (membarrier): writers need not. */
	atomic_bool remote_fence;
	atomic_bool prepared; /* owners_prepare tried already */
};

/* A thread's last owner word looked up. */
struct owners_memo {
	uintptr_t index;
	_Atomic uint32_t *word;
};

void owners_init(struct owners *o);
void owners_fini(struct owners *o);

/* Before the process's second thread (normal context, while it has one
 * thread): set up the fence a newcomer makes on every thread's behalf, if
 * the kernel has it. */
void owners_prepare(struct owners *o);

/* In the child of a fork, which has one thread: the parent's
 * registration for membarrier need not hold in the child's new address
 * space, so it is made again before the child's second thread. */
void owners_after_fork_child(struct owners *o);

/* No chunk is anyone's alone from now on: a claim found no memory for its
 * word, or thread numbers ran out.  (A full fence is made, as for a chunk
 * made shared.) */
void owners_give_up(struct owners *o);

/* Thread @thread (a number from 1 to OWNERS_SHARED - 1) touches chunk @index (address >>
 * SHADOW_CHUNK_ADDR_BITS), @memo its own.  @return true if no other
 * thread ever did; false if another did (the chunk is then marked so, and
 * the fence made) or no memory could be had. */
bool owners_claim(struct owners *o, struct owners_memo *memo, uintptr_t index,
		  uint32_t thread);

/* After a write made on owners_claim's word (the last @memo looked up):
 * is the chunk still @thread's alone? */
bool owners_still_alone(struct owners *o, const struct owners_memo *memo,
			uint32_t thread);

#endif
