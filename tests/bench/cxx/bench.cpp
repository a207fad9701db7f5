// bench.cpp -- the C benchmark's workloads (tests/bench/bench_task.c,
// bench_event.c, bench_sequencer.c) on the articles' C++ (simple_task.hpp,
// awaitable_event.hpp, task_sequencer.hpp): the same names, the same timed
// regions, the same checks, so that the tour prints this column beside the
// steps' columns.
//
//   bench_cxx [-n N] [-r RUNS] [--st] [--trim] [--list] [--csv FILE] [NAME-SUBSTRING[$]...]
//
// Each workload below says which C workload it mirrors; where the C
// writes a coroutine as a frame struct and a switch, this is the coroutine.
#include "awaitable_event.hpp"
#include "harness.hpp"
#include "simple_task.hpp"
#include "task_sequencer.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace cxx;

// ==== simple_task workloads ====================================================

static simple_task<int> ready_task() { co_return 42; }

static simple_task<int> triggered_task(trigger &t, int v)
{
    co_await t;
    co_return v;
}

// task_ready: the task has completed before the await, which takes the
// already-completed path; the temporary task is released at the `;`.
static driver await_ready_tasks(std::size_t n, long &sum)
{
    for (std::size_t i = 0; i < n; ++i)
        sum += co_await ready_task();
}

static sample task_ready(std::size_t, std::size_t n)
{
    long sum = 0;
    driver d = await_ready_tasks(n, sum);
    meter m;
    m.start();
    d.resume();
    sample s = m.stop(n);
    s.ok = d.done() && sum == 42L * long(n);
    return s;
}

// task_suspend: the driver registers; each fire completes the task, whose
// final_suspend resumes the driver, which releases it and starts the next.
static driver await_triggered_tasks(std::size_t n, trigger &t, long &sum)
{
    for (std::size_t i = 0; i < n; ++i)
        sum += co_await triggered_task(t, int(i));
}

static sample task_suspend(std::size_t, std::size_t n)
{
    trigger t;
    long sum = 0;
    driver d = await_triggered_tasks(n, t, sum);
    meter m;
    m.start();
    d.resume();
    for (std::size_t i = 0; i < n; ++i)
        t.fire();
    sample s = m.stop(n);
    s.ok = d.done() && sum == long(n) * long(n - 1) / 2;
    return s;
}

// task_abandon: released while suspended; on completion the task finds
// itself abandoned and destroys its own frame.
static sample task_abandon(std::size_t, std::size_t n)
{
    trigger t;
    std::int64_t live0 = live_allocations();
    meter m;
    m.start();
    for (std::size_t i = 0; i < n; ++i) {
        { simple_task<int> task = triggered_task(t, int(i)); } // released unawaited
        t.fire();
    }
    sample s = m.stop(n);
    std::int64_t leaked = live_allocations() - live0;
    s.ok = leaked == 0;
    s.add_note("leaked frames %lld;", static_cast<long long>(leaked));
    return s;
}

// task_race: N tasks suspended on their own triggers (untimed). Timed:
// thread A's driver awaits them in order, thread B fires them in order.
static thread_local int t_role; // 1 = A, 2 = B

struct race_stats {
    std::size_t ready = 0, late = 0, bad = 0;
    int end_thread = 0;
};

// Counts which path each await takes; otherwise simple_task's own awaiter.
struct counting_awaiter {
    simple_task<int>::awaiter inner;
    race_stats *st;
    bool await_ready()
    {
        bool r = inner.await_ready();
        st->ready += r;
        return r;
    }
    bool await_suspend(std::coroutine_handle<> h)
    {
        race_stats *s = st; // once h is published, B may own this frame
        bool suspend = inner.await_suspend(h);
        s->late += !suspend;
        return suspend;
    }
    int await_resume() { return inner.await_resume(); }
};

static driver race_driver(std::vector<simple_task<int>> &tasks, race_stats &st)
{
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        int v = co_await counting_awaiter{tasks[i].operator co_await(), &st};
        st.bad += v != int(i);
        tasks[i] = {}; // release
    }
    st.end_thread = t_role;
}

static sample task_race(std::size_t, std::size_t n)
{
    std::uint64_t s0 = now_ns();
    std::vector<trigger> trig(n);
    std::vector<simple_task<int>> tasks;
    tasks.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        tasks.push_back(triggered_task(trig[i], int(i)));
    race_stats st;
    driver d = race_driver(tasks, st);
    std::uint64_t s1 = now_ns();

    std::atomic<int> arrived{0}, go{0};
    auto wait_go = [&] {
        arrived.fetch_add(1, std::memory_order_relaxed);
        while (!go.load(std::memory_order_acquire))
            std::this_thread::yield();
    };
    std::thread a([&] {
        t_role = 1;
        wait_go();
        d.resume();
    });
    std::thread b([&] {
        t_role = 2;
        wait_go();
        for (auto &t : trig)
            t.fire();
    });
    while (arrived.load(std::memory_order_relaxed) < 2)
        std::this_thread::yield();
    meter m;
    m.start();
    go.store(1, std::memory_order_release);
    a.join();
    b.join();
    sample s = m.stop(n);
    s.ok = d.done() && st.bad == 0;
    s.add_note("awaits: %zu ready, %zu late, %zu suspended; driver ended on %s; untimed setup %.1f ns/task;", st.ready,
               st.late, n - st.ready - st.late, st.end_thread == 1 ? "A" : "B", double(s1 - s0) / double(n));
    return s;
}

// ==== awaitable_event workload =================================================

// K waiters (frames created untimed) loop: await, check FIFO order, count,
// park. A round = reset; resume each waiter (it registers); set().
struct fanout_state {
    std::size_t counter = 0, next_idx = 0, order_errors = 0;
};

static driver fanout_waiter(const awaitable_event &ev, fanout_state &st, std::size_t idx)
{
    for (;;) {
        co_await ev;
        st.order_errors += st.next_idx != idx;
        st.next_idx = idx + 1;
        ++st.counter;
        co_await std::suspend_always{}; // park until the next round
    }
}

static sample event_fanout(std::size_t k, std::size_t n)
{
    std::size_t rounds = std::max<std::size_t>(1, n / k);
    awaitable_event ev;
    fanout_state st;
    std::vector<driver> waiters;
    waiters.reserve(k);
    for (std::size_t i = 0; i < k; ++i)
        waiters.push_back(fanout_waiter(ev, st, i));

    meter m;
    m.start();
    for (std::size_t r = 0; r < rounds; ++r) {
        ev.reset();
        for (auto &w : waiters)
            w.resume();
        st.next_idx = 0;
        ev.set();
    }
    sample s = m.stop(rounds * k);
    s.ok = st.counter == rounds * k && st.order_errors == 0;
    s.add_note("%zu rounds x %zu waiters; resumed FIFO: %s;", rounds, k, st.order_errors ? "no" : "yes");
    return s;
}

// ==== task_sequencer workloads =================================================

struct seq_state {
    std::size_t next = 0, errors = 0;
};

// The queued operation: completes synchronously, checks strict order.
static simple_task<int> seq_op(seq_state &st, int i)
{
    st.errors += st.next != std::size_t(i);
    st.next = std::size_t(i) + 1;
    co_return i;
}

// The driver queues the gate (if any) and K operations, releasing each task
// but the last, then awaits the last.
static driver seq_driver(task_sequencer &seq, seq_state &st, std::size_t k, trigger *gate, int &last)
{
    if (gate) // holds the sequencer until the harness fires it; released while pending
        seq.QueueTaskAsync([gate] { return triggered_task(*gate, -1); });
    simple_task<int> t;
    for (std::size_t i = 0; i < k; ++i)
        t = seq.QueueTaskAsync([&st, i] { return seq_op(st, int(i)); });
    last = co_await t;
}

// One round: a fresh sequencer (untimed), then timed: queue K ops, fire the
// gate if any, await the last. Rounds repeat until N ops are done. On an
// idle sequencer each op runs as it is queued (sequencer_chain); behind the
// gate they all wait, and firing it drains them, each complete() resuming
// the next one inline (sequencer_backlog: one stack level per op).
static sample sequencer_run(std::size_t k, std::size_t n, bool backlog)
{
    std::size_t rounds = std::max<std::size_t>(1, n / k);
    double ns = 0, allocs = 0;
    bool ok = true;
    for (std::size_t r = 0; r < rounds; ++r) {
        task_sequencer seq;
        seq_state st;
        trigger gate;
        int last = -2;
        driver d = seq_driver(seq, st, k, backlog ? &gate : nullptr, last);
        meter m;
        m.start();
        d.resume();
        if (backlog)
            gate.fire();
        sample one = m.stop(k);
        ns += one.ns_per_op;
        allocs += one.allocs_per_op;
        ok = ok && d.done() && last == int(k) - 1 && st.errors == 0 && st.next == k;
    }
    sample s;
    s.ns_per_op = ns / double(rounds);
    s.allocs_per_op = allocs / double(rounds);
    s.ok = ok;
    if (rounds > 1)
        s.add_note("%zu rounds of %zu ops;", rounds, k);
    return s;
}

static sample sequencer_chain(std::size_t k, std::size_t n) { return sequencer_run(k, n, false); }
static sample sequencer_backlog(std::size_t k, std::size_t n) { return sequencer_run(k, n, true); }

// ==============================================================================

int main(int argc, char **argv)
{
    std::vector<workload> table = {
        {"task_ready", task_ready, 0},
        {"task_suspend", task_suspend, 0},
        {"task_abandon", task_abandon, 0},
        {"task_race", task_race, 0},
    };
    for (std::size_t k : {1, 64, 4096, 262144})
        table.push_back({"event_fanout/" + std::to_string(k), event_fanout, k});
    for (std::size_t k : {1000, 1000000})
        table.push_back({"sequencer_chain/" + std::to_string(k), sequencer_chain, k});
    for (std::size_t k : {1000, 1000000})
        table.push_back({"sequencer_backlog/" + std::to_string(k), sequencer_backlog, k});
    return bench_main(argc, argv, table);
}
