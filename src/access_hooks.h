/*
 * access_hooks.h - recording the accesses of compiled code (code built
 * with `trms cc --trms-full`): the compiler's per-access calls
 * (access_hooks.c) and the C library's memory and string functions called
 * from that code (memory_hooks.c).
 */
#ifndef TRMS_ACCESS_HOOKS_H
#define TRMS_ACCESS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The calling thread read (@write false) or wrote @size bytes at @addr
 * through a C library function called on its behalf: with costs in
 * events, one event per cell it spans, as the loop it stands for would
 * issue (strlen of a word of n bytes costs as n loads do).  (The
 * compiler's own per-access calls are recorded in access_hooks.c.) */
void access_record_cells(uintptr_t addr, size_t size, bool write);

/* Called by every module built with the inline checks
 * (src/inline_checks.c) with the INLINE_CHECKS_ABI it was built with. */
void __trms_fast_enable(unsigned abi);

#endif
