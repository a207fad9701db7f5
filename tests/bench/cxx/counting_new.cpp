// counting_new.cpp -- every plain operator new/delete goes through common/'s
// lockstep_alloc/lockstep_free, so the C++ column's allocs/op and leak check
// are counted by the very counters the C steps use (per-thread, no atomic
// read-modify-write on the hot path). The over-aligned forms are left to the
// library: nothing here is over-aligned.
extern "C" {
#include "lockstep/alloc.h"
}

#include <cstddef>
#include <new>

namespace {

void *counted(std::size_t n)
{
    if (void *p = lockstep_alloc(n))
        return p;
    throw std::bad_alloc();
}

} // namespace

void *operator new(std::size_t n) { return counted(n); }
void *operator new[](std::size_t n) { return counted(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return lockstep_alloc(n); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return lockstep_alloc(n); }
void operator delete(void *p) noexcept { lockstep_free(p); }
void operator delete[](void *p) noexcept { lockstep_free(p); }
void operator delete(void *p, std::size_t) noexcept { lockstep_free(p); }
void operator delete[](void *p, std::size_t) noexcept { lockstep_free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { lockstep_free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { lockstep_free(p); }
