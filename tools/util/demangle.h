/*
 * demangle.h - C++ function names as a person reads them
 * ("ns::parse(char const*)" for "_ZN2ns5parseEPKc"), by binutils'
 * c++filt.  Presentation only: profiles keep the names the linker knows.
 */
#ifndef TRMS_DEMANGLE_H
#define TRMS_DEMANGLE_H

#include <stddef.h>

/* Replace each of the @n names *@names[i] that is a mangled C++ name by
 * its demangled form, where it is (the old string freed, the new one
 * allocated).  Names c++filt cannot demangle, and all of them if c++filt
 * cannot be run, are left as they are. */
void demangle_names(char **const names[], size_t n);

#endif
