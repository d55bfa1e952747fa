/*
 * gate.c - the variables the public header's inline forms read, and what
 * keeps them true (see gate.h).
 */
#define _GNU_SOURCE
#include "runtime/gate.h"

#include <string.h>

#include "base/vm.h"

#define EXPORT_DATA __attribute__((visibility("default")))

EXPORT_DATA __thread struct trms_thread_gate_v1_ trms_thread_gate_v1_
	__attribute__((tls_model("initial-exec")));
EXPORT_DATA struct trms_process_gate_v1_ trms_process_gate_v1_;

struct gate_mode gate_mode;

void gate_configure(bool reads, bool begins)
{
	gate_mode.quiet = 0;
	gate_mode.begins = begins;
	if (!reads)
		return;
	gate_mode.quiet = TRMS_GATE_READS_;
	/* 16 MiB of address space, of which only the pages for memory that
	 * measured activations touch are ever written (vm_reserve). */
	void *watched =
		vm_reserve(GATE_WATCHED_WORDS * sizeof(unsigned long));
	if (!watched)
		return; /* writes stay recorded, every one */
	trms_process_gate_v1_.watched = watched;
	gate_mode.quiet |= TRMS_GATE_WRITES_;
}

struct trms_thread_gate_v1_ *gate_thread_open(void)
{
	struct trms_thread_gate_v1_ *g = &trms_thread_gate_v1_;

	memset(g, 0, sizeof(*g));
	g->quiet = gate_mode.quiet;
	g->mode = gate_mode.begins ? TRMS_GATE_SKIP_ : TRMS_GATE_CALL_;
	return g;
}

void gate_thread_off(void)
{
	struct trms_thread_gate_v1_ *g = &trms_thread_gate_v1_;

	g->quiet = TRMS_GATE_READS_ | TRMS_GATE_WRITES_;
	g->top = g->base = 0;
	for (unsigned i = 0; i < TRMS_GATE_SLOTS_; i++)
		g->slot[i].skip = 0;
	g->mode = TRMS_GATE_OFF_;
}

void gate_after_fork_child(bool measuring)
{
	trms_process_gate_v1_.measuring = measuring && gate_mode.quiet;
}

void gate_watch_slow(uintptr_t addr, size_t size)
{
	unsigned long *watched =
		(unsigned long *)trms_process_gate_v1_.watched;
	uintptr_t last = addr + size - 1;

	if (last < addr || last >> 47)
		last = ((uintptr_t)1 << 47) - 1;
	for (uintptr_t b = addr >> GATE_BLOCK_SHIFT,
		       end = last >> GATE_BLOCK_SHIFT;
	     b <= end; b++) {
		unsigned long bit = 1ul << (b & 63);
		if (!(__atomic_load_n(&watched[b >> 6], __ATOMIC_RELAXED) &
		      bit))
			__atomic_fetch_or(&watched[b >> 6], bit,
					  __ATOMIC_RELAXED);
	}
}
