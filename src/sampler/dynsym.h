/*
 * dynsym.h - the extent of a function of a loaded object, found by name in
 * the object's dynamic symbol table (its GNU hash table) instead of by
 * address: dladdr1 scans every symbol of the object (8 us a call in the C
 * library), a hash lookup a few.
 */
#ifndef TRMS_DYNSYM_H
#define TRMS_DYNSYM_H

#include <stdbool.h>
#include <stdint.h>

/* The end of the function @name at @start (an address from dlsym): true
 * and *@end if the object that holds @start has a GNU hash table with a
 * symbol of that name at that address (of size 0: @start + 1).  Not
 * async-signal-safe (dl_iterate_phdr). */
bool dynsym_function_end(uintptr_t start, const char *name, uintptr_t *end);

#endif
