#include "counting_new.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long> g_calls{0};
std::atomic<long> g_bytes{0};
std::atomic<long> g_calls_left{-1};  // before the failing call (fail_new_after); -1: none armed

void release(void* p) {
    if (p != nullptr) g_bytes.fetch_sub(static_cast<long>(malloc_usable_size(p)), std::memory_order_relaxed);
    std::free(p);
}

}  // namespace

void* operator new(std::size_t bytes) {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    if (g_calls_left.load(std::memory_order_relaxed) >= 0 &&
        g_calls_left.fetch_sub(1, std::memory_order_relaxed) == 0) {
        throw std::bad_alloc();
    }
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) {
        g_bytes.fetch_add(static_cast<long>(malloc_usable_size(p)), std::memory_order_relaxed);
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }

namespace redux_test {

long new_calls() { return g_calls.load(std::memory_order_relaxed); }
long new_bytes_held() { return g_bytes.load(std::memory_order_relaxed); }
void fail_new_after(long calls_before) { g_calls_left.store(calls_before, std::memory_order_relaxed); }

}  // namespace redux_test
