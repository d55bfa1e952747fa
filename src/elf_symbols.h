/*
 * elf_symbols.h - the name of the function at an address of an ELF file,
 * from its symbol table (.symtab, else .dynsym).
 *
 * Used when a profile is written (outside any signal handler) and by
 * `trms report` for profiles written without names.  Memory comes from
 * mmap: the file is mapped read-only while its table is built.
 */
#ifndef TRMS_ELF_SYMBOLS_H
#define TRMS_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct elf_symbols;

/* The function symbols of the ELF file at @path, or NULL (not readable,
 * not ELF, no symbols). */
struct elf_symbols *elf_symbols_load(const char *path);
void elf_symbols_free(struct elf_symbols *s);

/* The function containing ELF address @addr: its name (valid until
 * elf_symbols_free) and @addr's offset in it; NULL if none. */
const char *elf_symbols_find(const struct elf_symbols *s, uintptr_t addr,
			     uintptr_t *offset);

#endif
