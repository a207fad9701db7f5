// harness.cpp -- the C++ column's sample, stopwatch and run of one workload,
// on the C benchmark's process harness (tests/bench/harness.c, linked in):
// each run of a workload is a fresh process (this program re-executed with
// --one NAME) that starts and joins one thread (multi-threaded libc mode;
// --st skips it), keeps freed heap mapped (--trim keeps libc's default),
// does an untimed warm-up pass, the timed pass, a result check and a leak
// check, and prints
//     RESULT ns_per_op allocs_per_op ok note
// The parent prints harness.c's report line from the runs:
//     name  ns_per_op  allocs_per_op  # min .. med .. max .. (R runs) notes
// and, with --csv FILE, writes the same figures to FILE as a CSV row.
//
// One difference from the C: a child that dies of a stack overflow (the
// article's inline drain of a long sequencer backlog, erratum 5) is reported as
//     name  CRASH  -  # CRASHED: killed by signal 11 (...): stack overflow
// and is a finding, not a failure; any other crash or failed check makes the
// exit status non-zero, as in the C.
#include "harness.hpp"

extern "C" {
#include "harness.h"
#include "lockstep/alloc.h"
}

#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <sys/resource.h>
#include <unistd.h>

namespace cxx {

void sample::add_note(const char *fmt, ...)
{
    std::size_t len = std::strlen(note);
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(note + len, sizeof note - len, fmt, ap);
    va_end(ap);
}

std::uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

std::int64_t live_allocations() { return lockstep_alloc_live(); }

void meter::start()
{
    allocs0 = lockstep_alloc_totals().allocs;
    t0 = now_ns();
}

sample meter::stop(std::size_t ops) const
{
    std::uint64_t t1 = now_ns();
    std::uint64_t allocs1 = lockstep_alloc_totals().allocs;
    sample s;
    s.ns_per_op = double(t1 - t0) / double(ops);
    s.allocs_per_op = double(allocs1 - allocs0) / double(ops);
    return s;
}

// ---- child: one run ----------------------------------------------------------

// A stack overflow is a SIGSEGV whose address lies just below the main
// thread's stack. The handler runs on its own stack, says so on stdout (the
// parent's pipe: harness.c reads the line) and lets the default action kill
// the process.
static std::uintptr_t g_stack_top, g_stack_size;
static char g_alt_stack[1 << 16];

static void on_segv(int sig, siginfo_t *info, void *)
{
    auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (addr < g_stack_top && g_stack_top - addr <= g_stack_size + (1u << 20)) {
        static const char msg[] = HARNESS_OVERFLOW_LINE "\n";
        ssize_t ignored = write(1, msg, sizeof msg - 1);
        (void)ignored;
    }
    std::signal(sig, SIG_DFL); // returning re-faults and kills with SIGSEGV
}

static void catch_stack_overflow()
{
    int here = 0;
    g_stack_top = reinterpret_cast<std::uintptr_t>(&here);
    rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    g_stack_size = rl.rlim_cur == RLIM_INFINITY ? ~std::uintptr_t(0) / 2 : rl.rlim_cur;
    stack_t ss = {};
    ss.ss_sp = g_alt_stack;
    ss.ss_size = sizeof g_alt_stack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa = {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
}

static int run_one(const workload &w, const harness_options &o)
{
    harness_child_setup(o.multi_threaded, o.keep_heap);
    catch_stack_overflow();
    w.run(w.k, o.n); // warm-up: page in the heap, warm caches and predictors
    std::int64_t live0 = live_allocations();
    sample s = w.run(w.k, o.n);
    std::int64_t leaked = live_allocations() - live0;
    if (leaked != 0) {
        s.ok = false;
        s.add_note(" LEAKED %lld allocations;", static_cast<long long>(leaked));
    }
    harness_print_result(s.ns_per_op, s.allocs_per_op, s.ok, s.note);
    return 0;
}

// ---- the program: bench.c's main, on the same harness --------------------------

int bench_main(int argc, char **argv, const std::vector<workload> &table)
{
    harness_options o = harness_parse_options(argc, argv);
    if (o.bad) /* (what and the usage printed) */
        return 2;
    if (o.help) {
        harness_print_usage(stdout, argv[0]);
        return 0;
    }
    if (o.one && !*o.one) { // --list
        FILE *csv = harness_csv_open(o.csv, "workload");
        for (const auto &w : table) {
            std::printf("%s\n", w.name.c_str());
            harness_csv_put(csv, '\n', "%s", w.name.c_str());
        }
        return harness_csv_close(csv) ? 0 : 3;
    }
    if (o.one) { // child: one run of one workload
        for (const auto &w : table)
            if (w.name == o.one)
                return run_one(w, o);
        std::fprintf(stderr, "unknown workload %s\n", o.one);
        return 2;
    }

    harness_find_self(argv[0]);
    harness_open_report(&o, nullptr);
    std::printf("# bench_cxx (the articles' C++, tests/bench/cxx), c++ %s\n", __VERSION__);
    harness_print_method(&o);
    // A child dead of a stack overflow is a finding, said so after "stack overflow".
    const char *overflow = " (the article's inline resumption, erratum 5)";
    bool all_ok = true;
    for (const auto &w : table)
        if (harness_wanted(w.name.c_str(), &o))
            all_ok = harness_measure(w.name.c_str(), &o, argv[0], overflow) && all_ok;
    if (!harness_close_report())
        return 3;
    return all_ok ? 0 : 1;
}

} // namespace cxx
