/*
 * test_elf_symbols.c - naming addresses by one scan of a symbol table
 * (elf_symbols_name, what a profile is written with) gives what loading
 * and searching the sorted table gives (elf_symbols_find, what
 * `trms report` uses): the same function, the same offset in it, the
 * same addresses left unnamed.  On the C library (.dynsym, with aliases)
 * and on this program (.symtab), at addresses a few bytes apart, which
 * fall on functions' first and last bytes and between functions.
 * GCC's whole-function clones are named as their origin, its parts not.
 * An unsized symbol (.init's _init) does not name the section after it
 * (the PLT): neither way names an address there.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/elf_symbols.h"
#include "suite_main.h"

#define ADDRS 40000

static uint64_t addrs[ADDRS];
static const char *names[ADDRS];
static uintptr_t offsets[ADDRS];

static void keep(void *ctx, size_t i, const char *name, uintptr_t offset)
{
	(void)ctx;
	ck_assert_ptr_null(names[i]); /* each address named once */
	names[i] = strdup(name);
	offsets[i] = offset;
}

/* Compare the two ways on ADDRS ascending addresses from @first, apart
 * by up to @step bytes. */
static void compare(const char *path, uint64_t first, unsigned step)
{
	struct elf_symbols *loaded = elf_symbols_load(path);
	unsigned named = 0;

	ck_assert_ptr_nonnull(loaded);
	srand(7);
	for (size_t i = 0; i < ADDRS; i++) {
		addrs[i] = first;
		first += (uint64_t)(rand() % step);
		names[i] = NULL;
	}
	ck_assert_int_eq(elf_symbols_name(path, addrs, ADDRS, keep, NULL), 0);
	for (size_t i = 0; i < ADDRS; i++) {
		uintptr_t offset;
		const char *name = elf_symbols_find(loaded, addrs[i], &offset);
		ck_assert_msg(!name == !names[i],
			      "%s at %#llx: %s by the table, %s by the scan",
			      path, (unsigned long long)addrs[i],
			      name ? name : "nothing",
			      names[i] ? names[i] : "nothing");
		/* Aliases share a start: the offset says it is the same
		 * function. */
		if (name)
			ck_assert_uint_eq(offset, offsets[i]);
		named += name != NULL;
		free((void *)names[i]);
	}
	/* Many inside functions, not only between them. */
	ck_assert_uint_gt(named, ADDRS / 10);
	elf_symbols_free(loaded);
}

/* An ELF address of the object that holds @symbol, and its path. */
static uint64_t address_in(void *symbol, const char **path)
{
	Dl_info info;

	ck_assert(dladdr(symbol, &info));
	*path = info.dli_fname;
	return (uint64_t)((uintptr_t)symbol - (uintptr_t)info.dli_fbase);
}

/* The address and size of section @want of the ELF file at @path (0 0
 * if it has none), read with stdio: the test's own reader. */
static void section_of(const char *path, const char *want, uint64_t *addr,
		       uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr strings, sh;
	char name[32];

	*addr = *size = 0;
	ck_assert_ptr_nonnull(f);
	ck_assert(fread(&eh, sizeof(eh), 1, f) == 1);
	ck_assert(!fseek(f, (long)(eh.e_shoff + eh.e_shstrndx * sizeof(sh)),
			 SEEK_SET) &&
		  fread(&strings, sizeof(strings), 1, f) == 1);
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		ck_assert(!fseek(f, (long)(eh.e_shoff + i * sizeof(sh)),
				 SEEK_SET) &&
			  fread(&sh, sizeof(sh), 1, f) == 1);
		memset(name, 0, sizeof(name));
		if (fseek(f, (long)(strings.sh_offset + sh.sh_name), SEEK_SET) ||
		    !fread(name, 1, sizeof(name) - 1, f))
			continue;
		if (!strcmp(name, want)) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
		}
	}
	fclose(f);
}

START_TEST(scan_names_as_the_table)
{
	const char *libc;
	uint64_t at = address_in((void *)qsort, &libc);

	/* Around qsort, densely: functions, their ends, their gaps. */
	compare(libc, at > ADDRS * 16 ? at - ADDRS * 16 : 0, 32);
	/* And across the whole library. */
	compare(libc, 0, 200);
	/* This program's .text, densely (beyond it nothing is named). */
	const char *self;
	uint64_t text, text_size;
	address_in((void *)compare, &self);
	section_of(self, ".text", &text, &text_size);
	ck_assert_uint_gt(text_size, ADDRS / 2);
	compare("/proc/self/exe", text, 2);
}
END_TEST

START_TEST(nothing_to_name)
{
	uint64_t one = 0x1000;

	ck_assert_int_eq(elf_symbols_name("/nonexistent/x.so", &one, 1, keep,
					  NULL),
			 -ENOENT);
	ck_assert_int_eq(elf_symbols_name("/nonexistent/x.so", &one, 0, keep,
					  NULL),
			 0);
	/* Addresses out of order: refused, nothing named. */
	uint64_t unordered[2] = { 0x2000, 0x1000 };
	const char *self = NULL;
	address_in((void *)compare, &self);
	names[0] = names[1] = NULL;
	ck_assert_int_eq(elf_symbols_name(self, unordered, 2, keep, NULL),
			 -EINVAL);
	ck_assert_ptr_null(names[0]);
	ck_assert_ptr_null(names[1]);
	names[0] = NULL;
	/* Not ELF: nothing named, no error to report. */
	ck_assert_int_eq(elf_symbols_name("/etc/passwd", &one, 1, keep,
					  NULL),
			 0);
	ck_assert_ptr_null(names[0]);
}
END_TEST

START_TEST(unsized_stops_at_its_section)
{
	const char *self = NULL;
	uint64_t plt, plt_size, init, init_size;

	address_in((void *)compare, &self);
	section_of(self, ".plt", &plt, &plt_size);
	section_of(self, ".init", &init, &init_size);
	ck_assert_uint_gt(plt_size, 16);
	ck_assert_uint_gt(init_size, 0);
	struct elf_symbols *loaded = elf_symbols_load(self);
	ck_assert_ptr_nonnull(loaded);
	uintptr_t offset;
	/* .init is named (by _init), the PLT's entries are not. */
	ck_assert_ptr_nonnull(elf_symbols_find(loaded, init, &offset));
	uint64_t in_plt[2] = { plt + 16, plt + plt_size - 1 };
	for (int i = 0; i < 2; i++) {
		const char *name = elf_symbols_find(loaded, in_plt[i], &offset);
		ck_assert_msg(!name, "%#llx in the PLT named %s",
			      (unsigned long long)in_plt[i], name);
	}
	names[0] = names[1] = NULL;
	ck_assert_int_eq(elf_symbols_name(self, in_plt, 2, keep, NULL), 0);
	ck_assert_msg(!names[0] && !names[1], "the scan named the PLT %s",
		      names[0] ? names[0] : names[1]);
	elf_symbols_free(loaded);
}
END_TEST

START_TEST(clones_named_as_their_origin)
{
	static const struct {
		const char *symbol;
		size_t origin;
	} cases[] = {
		{ "outer.constprop.0", 5 },
		{ "outer.isra.12", 5 },
		{ "outer.isra.0.constprop.3", 5 },
		{ "_Z5outeri.constprop.0", 9 },
		{ "outer.part.0", 12 },		/* a part: itself */
		{ "outer.cold", 10 },
		{ "outer.constprop.0.cold", 22 },
		{ "outer.constprop.", 16 },	/* no number: not GCC's */
		{ "outer.constprop.0x", 18 },
		{ "a.b.constprop.1", 3 },
		{ ".constprop.0", 12 },		/* no origin named */
		{ "outer", 5 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ck_assert_msg(elf_symbol_origin_length(cases[i].symbol) ==
				      cases[i].origin,
			      "%s: %zu, expected %zu", cases[i].symbol,
			      elf_symbol_origin_length(cases[i].symbol),
			      cases[i].origin);
}
END_TEST

static Suite *elf_symbols_suite(void)
{
	Suite *s = suite_create("elf_symbols");
	TCase *tc = tcase_create("elf_symbols");

	SUITE_TESTS(tc, scan_names_as_the_table, nothing_to_name,
		    clones_named_as_their_origin, unsized_stops_at_its_section);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(elf_symbols_suite());
}
