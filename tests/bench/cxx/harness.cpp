// harness.cpp -- the C benchmark's method (tests/bench/harness.c) for the
// C++ column: each run of a workload is a fresh process (this program
// re-executed with --one NAME) that starts and joins one thread
// (multi-threaded libc mode; --st skips it), keeps freed heap mapped (--trim
// keeps libc's default), does an untimed warm-up pass, the timed pass, a
// result check and a leak check, and prints
//     RESULT ns_per_op allocs_per_op ok note
// The parent prints harness.c's report line from the runs:
//     name  ns_per_op  allocs_per_op  # min .. med .. max .. (R runs) notes
//
// One difference: a child that dies of a stack overflow (the article's
// inline drain of a long sequencer backlog, erratum 5) is reported as
//     name  CRASH  -  # CRASHED: killed by signal 11 (...): stack overflow
// and is a finding, not a failure; any other crash or failed check makes the
// exit status non-zero, as in harness.c.
#include "harness.hpp"

extern "C" {
#include "lockstep/alloc.h"
}

#include <algorithm>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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
// parent's pipe) and lets the default action kill the process.
static std::uintptr_t g_stack_top, g_stack_size;
static char g_alt_stack[1 << 16];

static void on_segv(int sig, siginfo_t *info, void *)
{
    auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (addr < g_stack_top && g_stack_top - addr <= g_stack_size + (1u << 20)) {
        static const char msg[] = "# STACK OVERFLOW\n";
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

static int run_one(const workload &w, std::size_t n, bool multi_threaded, bool keep_heap)
{
#ifdef __GLIBC__
    if (keep_heap) {
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
    }
#else
    (void)keep_heap;
#endif
    if (multi_threaded) // libc takes its multi-threaded paths from now on
        std::thread([] {}).join();
    catch_stack_overflow();
    w.run(w.k, n); // warm-up: page in the heap, warm caches and predictors
    std::int64_t live0 = live_allocations();
    sample s = w.run(w.k, n);
    std::int64_t leaked = live_allocations() - live0;
    if (leaked != 0) {
        s.ok = false;
        s.add_note(" LEAKED %lld allocations;", static_cast<long long>(leaked));
    }
    std::printf("RESULT %.4f %.6f %d %s\n", s.ns_per_op, s.allocs_per_op, s.ok ? 1 : 0, s.note);
    std::fflush(stdout);
    return 0;
}

// ---- parent: runs in child processes, one report line --------------------------

// Runs this program with `args`; returns its wait status (-1: not started)
// and its stdout in `out`.
static int run_child(const std::vector<std::string> &args, std::string &out)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        std::vector<char *> argv;
        for (const auto &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv("/proc/self/exe", argv.data());
        _exit(127);
    }
    close(fd[1]);
    char buf[4096];
    ssize_t got;
    while ((got = read(fd[0], buf, sizeof buf)) > 0)
        out.append(buf, std::size_t(got));
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

// Returns false if a check failed or a child died of anything but a stack
// overflow.
static bool measure_in_children(const std::string &name, int runs, const std::vector<std::string> &args)
{
    std::vector<sample> v;
    for (int r = 0; r < runs; ++r) {
        std::string out;
        int status = run_child(args, out);
        bool parsed = false, overflow = false;
        sample s;
        std::size_t pos = 0;
        while (pos < out.size()) {
            std::size_t end = out.find('\n', pos);
            if (end == std::string::npos)
                end = out.size();
            std::string line = out.substr(pos, end - pos);
            pos = end + 1;
            overflow = overflow || line == "# STACK OVERFLOW";
            if (line[0] == '#' && r == 0 && line != "# STACK OVERFLOW")
                std::printf("%s\n", line.c_str());
            int ok = 0, used = 0;
            if (!parsed &&
                std::sscanf(line.c_str(), "RESULT %lf %lf %d %n", &s.ns_per_op, &s.allocs_per_op, &ok, &used) >= 3) {
                s.ok = ok != 0;
                std::snprintf(s.note, sizeof s.note, "%s", line.c_str() + used);
                parsed = true;
            }
        }
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parsed) {
            if (status != -1 && WIFSIGNALED(status))
                std::printf("%-34s %10s %9s  # CRASHED: killed by signal %d (%s)%s\n", name.c_str(), "CRASH", "-",
                            WTERMSIG(status), strsignal(WTERMSIG(status)),
                            overflow ? ": stack overflow (the article's inline resumption, erratum 5)" : "");
            else
                std::printf("%-34s %10s %9s  # child failed (status %d)\n", name.c_str(), "FAIL", "-", status);
            std::fflush(stdout);
            return overflow;
        }
        v.push_back(s);
    }
    std::vector<double> ns;
    bool ok = true;
    double amin = v[0].allocs_per_op, amax = amin;
    for (const auto &s : v) {
        ns.push_back(s.ns_per_op);
        ok = ok && s.ok;
        amin = std::min(amin, s.allocs_per_op);
        amax = std::max(amax, s.allocs_per_op);
    }
    std::sort(ns.begin(), ns.end());
    std::printf("%-34s %10.2f %9.4f  # min %.2f med %.2f max %.2f (%d runs)", name.c_str(), ns[ns.size() / 2],
                v.back().allocs_per_op, ns.front(), ns[ns.size() / 2], ns.back(), runs);
    if (amax - amin > 1e-9)
        std::printf(" allocs/op varied %.4f..%.4f", amin, amax);
    for (std::size_t i = 0; i < v.size(); ++i) { // each distinct note once, in run order
        bool seen = false;
        for (std::size_t j = 0; j < i; ++j)
            seen = seen || std::strcmp(v[i].note, v[j].note) == 0;
        if (!seen && v[i].note[0])
            std::printf(" %s%s", i ? "| " : "", v[i].note);
    }
    std::printf("%s\n", ok ? "" : " ** CHECK FAILED **");
    std::fflush(stdout);
    return ok;
}

// A filter matches as a substring; a trailing '$' anchors it at the end.
static bool wanted(const std::string &name, const std::vector<std::string> &filters)
{
    if (filters.empty())
        return true;
    for (const auto &f : filters) {
        bool anchored = !f.empty() && f.back() == '$';
        std::string want = anchored ? f.substr(0, f.size() - 1) : f;
        for (auto p = name.find(want); p != std::string::npos; p = name.find(want, p + 1))
            if (!anchored || p + want.size() == name.size())
                return true;
    }
    return false;
}

int bench_main(int argc, char **argv, const std::vector<workload> &table)
{
    std::size_t n = 1000000;
    int runs = 5;
    bool keep_heap = true, multi_threaded = true, list = false;
    std::string one;
    std::vector<std::string> filters;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-n" && i + 1 < argc)
            n = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "-r" && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (a == "--trim")
            keep_heap = false;
        else if (a == "--st")
            multi_threaded = false;
        else if (a == "--one" && i + 1 < argc)
            one = argv[++i];
        else if (a == "--list")
            list = true;
        else if (a == "-h" || a == "--help") {
            std::printf("usage: %s [-n N] [-r RUNS] [--st] [--trim] [--list] [NAME-SUBSTRING[$]...]\n", argv[0]);
            return 0;
        } else
            filters.push_back(a);
    }
    if (n == 0 || runs < 1 || runs > 64) {
        std::fprintf(stderr, "bench_cxx: need N >= 1 and 1 <= RUNS <= 64\n");
        return 2;
    }
    if (list) {
        for (const auto &w : table)
            std::printf("%s\n", w.name.c_str());
        return 0;
    }
    if (!one.empty()) { // child: one run of one workload
        for (const auto &w : table)
            if (w.name == one)
                return run_one(w, n, multi_threaded, keep_heap);
        std::fprintf(stderr, "unknown workload %s\n", one.c_str());
        return 2;
    }

    rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    std::string stack =
        rl.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(rl.rlim_cur >> 10) + "KiB";
    std::printf("# bench_cxx (the articles' C++, tests/bench/cxx), c++ %s\n", __VERSION__);
    std::printf("# N=%zu runs=%d (one process each: warm-up pass + timed pass) libc=%s heap=%s stack-limit=%s\n", n,
                runs, multi_threaded ? "multi-threaded" : "single-threaded", keep_heap ? "kept" : "trimmed",
                stack.c_str());
    std::printf("# %-32s %10s %9s\n", "name", "ns_per_op", "allocs/op");
    std::fflush(stdout);

    bool all_ok = true;
    for (const auto &w : table) {
        if (!wanted(w.name, filters))
            continue;
        std::vector<std::string> args = {argv[0], "--one", w.name, "-n", std::to_string(n)};
        if (!multi_threaded)
            args.push_back("--st");
        if (!keep_heap)
            args.push_back("--trim");
        all_ok = measure_in_children(w.name, runs, args) && all_ok;
    }
    return all_ok ? 0 : 1;
}

} // namespace cxx
