/*
 * elf_symbols.h - the name of the function at an address of an ELF file,
 * from its symbol table (.symtab, else .dynsym).  A file without .symtab
 * (a stripped library) is named from its debug file where one is
 * installed, found by its build id under /usr/lib/debug/.build-id/ (as
 * gdb and perf find them: libc6-dbg gives the C library's).
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

/* Receives the name of offset @i: the function containing it, and the
 * offset's own offset in that function. */
typedef void elf_symbols_named(void *ctx, size_t i, const char *name,
			       uintptr_t offset);

/*
 * The functions containing the @n ELF addresses @addrs (ascending) of the
 * file at @path, as elf_symbols_find would give them, in one pass over
 * the symbol table without sorting or copying it: @named is called for
 * each address a function contains, with a name valid during the call.
 * For a few addresses in a large table (cc1's 27,000 symbols took 23 ms
 * to load and sort, against well under a millisecond to scan).
 * @return 0, or -errno (not readable, out of memory, @addrs not
 * ascending); a file that is not ELF has nothing to name (0).
 */
int elf_symbols_name(const char *path, const uint64_t *addrs, size_t n,
		     elf_symbols_named *named, void *ctx);

/* The length of @name without the suffixes GCC gives a whole copy of a
 * function specialised for some of its callers (".constprop.N",
 * ".isra.N", in any number): for a profile the copy is the function.  A
 * part split off a function (".part.N") and its cold code (".cold") are
 * not the whole function, and keep their names. */
size_t elf_symbol_origin_length(const char *name);

#endif
