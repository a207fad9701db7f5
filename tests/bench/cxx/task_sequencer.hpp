// task_sequencer.hpp -- the articles' task_sequencer, "Serializing
// asynchronous operations in C++/WinRT" (2022-09-15), transcribed to C++20:
// std::mutex for winrt::slim_mutex, and no `co_await context` (see below).
//
// This is the 2022 code, before the follow-ups that step 06 includes: the
// new node is linked before the task exists (erratum 6, harmless here since
// nothing fails), and complete() resumes the next task inline, nested in
// its predecessor (erratum 5). The second is what the benchmark shows: a
// backlog of 1,000,000 queued tasks drains a million frames deep and
// overflows the default stack.
#pragma once

#include <atomic>
#include <coroutine>
#include <memory>
#include <mutex>
#include <utility>

namespace cxx {

struct task_sequencer {
    task_sequencer() = default;
    task_sequencer(const task_sequencer &) = delete;
    void operator=(const task_sequencer &) = delete;

private:
    using coro_handle = std::coroutine_handle<>;

    struct suspender {
        bool await_ready() const noexcept { return false; }
        void await_suspend(coro_handle h) noexcept { handle = h; }
        void await_resume() const noexcept {}

        coro_handle handle;
    };

    static void *completed() { return reinterpret_cast<void *>(1); }

    struct chained_task {
        chained_task(void *state = nullptr) : next(state) {}

        // Acquire only, as the article; publishing h needs release too, so
        // the C uses acq_rel (erratum 4). Same instruction on x86-64.
        void continue_with(coro_handle h)
        {
            if (next.exchange(h.address(), std::memory_order_acquire) != nullptr) {
                h();
            }
        }

        // The article's default seq_cst (erratum 8; the C says acq_rel).
        // Resuming inline is erratum 5: C drains the backlog from a run queue.
        void complete()
        {
            auto resume = next.exchange(completed());
            if (resume) {
                coro_handle::from_address(resume).resume();
            }
        }

        std::atomic<void *> next;
    };

    struct completer {
        ~completer() { chain->complete(); }
        std::shared_ptr<chained_task> chain;
    };

    std::mutex m_mutex;
    std::shared_ptr<chained_task> m_latest = std::make_shared<chained_task>(completed());

public:
    template <typename Maker>
    auto QueueTaskAsync(Maker &&maker) -> decltype(maker())
    {
        // Linked first, created second: the order the 2025-03-28 follow-up
        // fixes (erratum 6; step 06 links after creating the task).
        auto current = std::make_shared<chained_task>();
        auto previous = [&] {
            std::lock_guard guard(m_mutex);
            return std::exchange(m_latest, current);
        }();

        suspender suspend;

        // The article also passes winrt::apartment_context() and does
        // `co_await context;` after `co_await suspend;`: a hop back to the
        // caller's apartment, which resumes inline when already there. There
        // is no apartment here; the C's counterpart is an optional executor,
        // and the benchmark passes none, so both resume inline.
        //
        // `suspend` is a reference to this function's local: the body's
        // await_resume() runs on it after this function has returned
        // (erratum 10). The call reads nothing, so it is harmless in practice.
        using Async = decltype(maker());
        auto task = [](auto &&current, auto &&makerParam, auto &suspend) -> Async {
            completer completer{std::move(current)};
            auto maker = std::move(makerParam);

            co_await suspend;
            co_return co_await maker();
        }(current, std::forward<Maker>(maker), suspend);

        previous->continue_with(suspend.handle);

        return task;
    }
};

} // namespace cxx
