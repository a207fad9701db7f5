// harness.hpp -- the C benchmark's method in C++: a stopwatch and allocation
// counter around the timed pass, run one process per run with the same
// report line by the C's own harness (tests/bench/harness.c); plus the
// harness's own coroutine type and a one-shot trigger, the counterparts of
// common/'s lockstep_coro and lockstep_trigger.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace cxx {

// One timed pass. The note is a fixed buffer: a run is leak-checked, and a
// note that allocated would count as a leak.
struct sample {
    double ns_per_op = 0, allocs_per_op = 0;
    bool ok = true;
    char note[240] = {};
    void add_note(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

std::uint64_t now_ns();
std::int64_t live_allocations(); // operator new minus operator delete, all threads

// Stopwatch + allocation counter (counting_new.cpp routes every operator new
// through lockstep_alloc, so allocs/op is counted exactly as in the C).
struct meter {
    std::uint64_t t0 = 0;
    std::uint64_t allocs0 = 0;
    void start();
    sample stop(std::size_t ops) const;
};

struct workload {
    std::string name;
    sample (*run)(std::size_t k, std::size_t n);
    std::size_t k;
};

// bench.c's main(): the same options, child protocol and report line (harness.c's).
int bench_main(int argc, char **argv, const std::vector<workload> &table);

// The harness's coroutine: starts when resumed, stays suspended at its end
// until destroyed (C: a lockstep_coro frame whose resume function returns).
struct driver {
    struct promise_type {
        driver get_return_object() noexcept
        {
            return driver{std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { std::terminate(); }
    };

    explicit driver(std::coroutine_handle<promise_type> h) noexcept : handle(h) {}
    driver(driver &&other) noexcept : handle(std::exchange(other.handle, {})) {}
    driver &operator=(driver &&) = delete;
    ~driver()
    {
        if (handle)
            handle.destroy();
    }

    void resume() const { handle.resume(); }
    bool done() const { return handle.done(); }

    std::coroutine_handle<promise_type> handle;
};

// One waiter, resumed inline by fire() (C: lockstep_trigger). Armed before
// any other thread fires it.
struct trigger {
    std::coroutine_handle<> waiter;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { waiter = h; }
    void await_resume() const noexcept {}
    void fire()
    {
        if (waiter)
            std::exchange(waiter, nullptr).resume();
    }
};

} // namespace cxx
