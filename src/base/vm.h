/*
 * vm.h - anonymous memory straight from the kernel.
 *
 * Everything the library keeps inside the host process comes from here,
 * never from malloc: the allocator may be what is being profiled, and a
 * signal may arrive while it holds its locks.
 */
#ifndef TRMS_VM_H
#define TRMS_VM_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-filled, private, read-write memory of @size bytes (rounded up to
 * whole pages), or NULL.  Pages are committed by the kernel on first touch,
 * so large reservations cost only address space until used. */
void *vm_alloc(size_t size);

/* vm_alloc for a table of a fixed, bounded size that the library fills
 * as it goes (the loaded objects' names): address space, kept out of
 * the limit, whose pages count only once written.  Freed with
 * vm_free_reserved. */
void *vm_reserve(size_t size);
void vm_free_reserved(void *p, size_t size);

/* vm_alloc for memory that grows with the program's data (shadow
 * memory): it stops short of the limit by a reserve (an eighth of it, at
 * least VM_RESERVE_MIN), which the library's bookkeeping and its profile
 * keep.  Given back with vm_free. */
void *vm_alloc_bulk(size_t size);

#define VM_RESERVE_MIN ((size_t)8 << 20)

/* Give back memory obtained from vm_alloc (same @size). */
void vm_free(void *p, size_t size);

/* Grow or shrink a vm_alloc block, possibly moving it; NULL on failure
 * (the old block is then still valid). */
void *vm_resize(void *p, size_t old_size, size_t new_size);

/* Drop the contents of [p, p + size): the pages read back as zeros and
 * stop counting as resident until written again. */
void vm_discard(void *p, size_t size);

/* Map the pages of [@p, @p + @size) of a vm_alloc block now, written to,
 * in one system call (MADV_POPULATE_WRITE, Linux 5.14): the faults a
 * loop over them would take one by one, each a trap to the hypervisor
 * in a virtual machine, cost several times more.  A hint: nothing
 * happens where the kernel cannot. */
void vm_populate(void *p, size_t size);

size_t vm_page_size(void);

/* The most the library may hold mapped, in bytes (0: no limit): past it,
 * vm_alloc and vm_resize fail as the kernel's refusal would.  Set at
 * start from TRMS_MEMORY_LIMIT (memory_limit.h). */
void vm_set_limit(size_t bytes);
size_t vm_limit(void);

/* What the library holds mapped now, and how many requests the limit
 * refused so far. */
size_t vm_mapped_bytes(void);
size_t vm_peak_bytes(void);
unsigned long vm_refusals(void);

/* For a large zero-initialised static buffer: kept apart from the small
 * variables, in x86-64's section for large data (after .bss), so that
 * those share the few pages a short process touches instead of lying
 * one to a page between buffers it never uses (each page a process first
 * touches is a page fault, tens of microseconds on some machines). */
#define VM_SET_APART __attribute__((section(".lbss")))

#endif
