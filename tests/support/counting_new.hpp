// Counts what this process allocates through C++'s global operator new: counting_new.cpp replaces it (and
// operator delete). Linked into a test executable that exports its symbols, the replacement serves every
// caller in the process, libredux.so included. MPI's own mallocs are not counted.
#pragma once

namespace redux_test {

long new_calls();       // operator new calls so far
long new_bytes_held();  // bytes allocated through operator new and not yet deleted (malloc's usable sizes)

// Fault injection: after `calls_before` more calls of operator new in this process, the next one throws
// std::bad_alloc, once (-1: disarm). For testing what libredux does when an allocation fails.
void fail_new_after(long calls_before);

}  // namespace redux_test
