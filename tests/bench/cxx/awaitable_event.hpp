// awaitable_event.hpp -- the articles' awaitable_event, "Creating a co_await
// awaitable signal that can be awaited multiple times, part 4" (2021-03-04),
// transcribed to C++20. winrt::slim_mutex becomes std::mutex (a
// pthread_mutex_t here, as in the C steps).
//
// The waiting list is intrusive: its node lives in the awaiter, which lives
// in the awaiting coroutine's frame, so awaiting never allocates. set()
// detaches the list under the lock, reverses it to FIFO outside the lock and
// resumes each waiter inline.
#pragma once

#include <atomic>
#include <coroutine>
#include <memory>
#include <mutex>
#include <utility>

namespace cxx {

struct awaitable_event {
    void set() const { shared->set(); }
    // Not in the article: the benchmark reuses one event for many rounds, as
    // the C steps' awaitable_event_reset.
    void reset() const { shared->reset(); }

private:
    struct node {
        node *next;
        std::coroutine_handle<> handle;
    };

    struct state {
        // The article stores and loads `signaled` relaxed. A waiter that sees
        // it set without taking the lock must also see what the setter
        // published, so the C uses release/acquire (erratum 3); on x86-64
        // both compile to the same plain moves.
        std::atomic<bool> signaled = false;
        std::mutex mutex;
        node *head = nullptr;

        void set()
        {
            node *lifo = nullptr;
            {
                std::lock_guard guard(mutex);
                signaled.store(true, std::memory_order_relaxed);
                lifo = std::exchange(head, nullptr);
            }
            node *fifo = nullptr;
            while (lifo) {
                auto n = lifo;
                lifo = std::exchange(n->next, fifo);
                fifo = n;
            }
            while (fifo) {
                auto handle = fifo->handle;
                // The article writes `reverse->next`, which does not compile
                // (erratum 3). Read before resuming: the waiter owns the node.
                fifo = fifo->next;
                handle();
            }
        }

        void reset()
        {
            std::lock_guard guard(mutex);
            signaled.store(false, std::memory_order_relaxed);
        }

        bool await_ready() const noexcept { return signaled.load(std::memory_order_relaxed); }

        bool await_suspend(node &n) noexcept
        {
            std::lock_guard guard(mutex);
            if (signaled.load(std::memory_order_relaxed))
                return false;
            n.next = head;
            head = &n;
            return true;
        }

        void await_resume() const noexcept {}
    };

    struct awaiter {
        state &s;
        node n;
        bool await_ready() const noexcept { return s.await_ready(); }
        bool await_suspend(std::coroutine_handle<> handle) noexcept
        {
            n.handle = handle;
            return s.await_suspend(n);
        }
        void await_resume() const noexcept { return s.await_resume(); }
    };

public:
    auto operator co_await() const noexcept { return awaiter{*shared, {}}; }

private:
    std::shared_ptr<state> shared = std::make_shared<state>();
};

} // namespace cxx
