/*
 * Data races on plain memory.
 *
 * C11 5.1.2.4p25: "The execution of a program contains a data race if it
 * contains two conflicting actions in different threads, at least one of
 * which is not atomic, and neither happens before the other." Two actions
 * conflict (p4) if they touch the same memory location and one of them
 * writes it. Most of the steps' memory orders exist for this: the frame's
 * result written by the completer and read by the awaiter, the waiter
 * node's handle and next written by the waiter and read by set(), a frame
 * freed by one thread after another thread's last use of it.
 *
 * How the plain accesses get here: the explorer compiles the step's sources
 * (and the scenario's) a second time with -fsanitize=thread, which makes the
 * compiler call __tsan_read4(addr), __tsan_write8(addr), ... before every
 * load and store of memory that may be shared. The explorer is not linked
 * with ThreadSanitizer's runtime: this file defines those entry points, so
 * each plain access of the step comes here, and the step sources contain
 * nothing for the explorer.
 *
 * The check is FastTrack's (Flanagan and Freund, PLDI 2009), kept per byte:
 * a byte remembers the last write (thread, epoch, site) and each thread's
 * last read; an access that conflicts with one of them that does not happen
 * before it (clock.c) is a race. Freeing a block is a write to all of it,
 * as in ThreadSanitizer.
 */
#define _GNU_SOURCE /* dladdr, popen: naming the site of a racing access */
#include "model.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the shadow of each byte ------------------------------------------------ */

typedef struct access {
    uint32_t epoch;   /* 0: none */
    const void *pc;   /* a plain access: the return address into the instrumented code */
    const char *file; /* an atomic one: its site (hook.h) */
    int line;
    int trace_line;   /* how long the trace was then */
    bool wrote;       /* an atomic access that stored */
} access;

typedef struct shadow {
    uintptr_t addr;
    uint32_t generation; /* the schedule it belongs to: older entries are empty */
    int8_t writer;
    access write;
    access read[MODEL_SLOTS];
    /* Atomic accesses race with plain ones too (p25 asks only that one of
     * the two is not atomic): with a free above all, when the freeing
     * thread has not synchronized with another thread's last operation on
     * the object (a refcount decrement, abandon(), a node's exchange). */
    access atomic[MODEL_SLOTS];
} shadow;

#define SHADOW_BITS 16
#define SHADOW_SIZE (1u << SHADOW_BITS)
static shadow g_shadow[SHADOW_SIZE];
static uint32_t g_generation = 1;
static unsigned g_used;
static _Thread_local int t_quiet;

/* The failure's pair, for the graph. */
static model_access g_first, g_second;
static bool g_have_pair;

void model_race_reset(void)
{
    ++g_generation;
    g_used = 0;
    g_have_pair = false;
}

void model_quiet(bool on) { t_quiet += on ? 1 : -1; }
void explore_unchecked(bool on) { model_quiet(on); }

static shadow *shadow_of(uintptr_t addr)
{
    uint32_t h = (uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> (64 - SHADOW_BITS));
    for (;; h = (h + 1) & (SHADOW_SIZE - 1)) {
        shadow *s = &g_shadow[h];
        if (s->generation != g_generation) {
            if (++g_used > SHADOW_SIZE / 2)
                explore_fail("explorer", "more than %u bytes of plain memory touched in one schedule",
                             SHADOW_SIZE / 2);
            *s = (shadow){.addr = addr, .generation = g_generation, .writer = -1};
            return s;
        }
        if (s->addr == addr)
            return s;
    }
}

/* ---- sites ------------------------------------------------------------------- */

static const char g_atomic_marker;
#define ATOMIC_PC ((const void *)&g_atomic_marker)

/* "task.c:70 (p->m_holder = result;)": addr2line on the return address,
 * then the source line itself. Only when a race is reported. */
static void describe_site(const void *pc, char *buf, size_t size)
{
    if (!pc) {
        snprintf(buf, size, "(a free)");
        return;
    }
    if (pc == ATOMIC_PC) {
        snprintf(buf, size, "an atomic operation");
        return;
    }
    Dl_info info;
    if (!dladdr(pc, &info) || !info.dli_fname) {
        snprintf(buf, size, "%p", pc);
        return;
    }
    char cmd[700], file[300] = "";
    int line = 0;
    /* The call's return address is just after the access: look one byte back. */
    uintptr_t at = (uintptr_t)pc - 1, offset = at - (uintptr_t)info.dli_fbase;
    for (int attempt = 0; attempt < 2 && !line; ++attempt) {
        snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%lx 2>/dev/null", info.dli_fname,
                 (unsigned long)(attempt ? at : offset));
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        char out[300];
        if (fgets(out, sizeof out, p)) {
            char *colon = strrchr(out, ':');
            if (colon && colon[1] != '?') {
                *colon = '\0';
                snprintf(file, sizeof file, "%s", out);
                line = atoi(colon + 1);
            }
        }
        pclose(p);
    }
    if (!line) {
        snprintf(buf, size, "%s+0x%lx", info.dli_sname ? info.dli_sname : "?", (unsigned long)offset);
        return;
    }
    const char *slash = strrchr(file, '/');
    const char *name = slash ? slash + 1 : file;
    char code[160] = "";
    FILE *f = fopen(file, "r");
    if (f) {
        char text[256];
        for (int n = 1; fgets(text, sizeof text, f); ++n)
            if (n == line) {
                char *s = text + strspn(text, " \t");
                s[strcspn(s, "\n")] = '\0';
                snprintf(code, sizeof code, "%s", s);
                break;
            }
        fclose(f);
    }
    if (code[0])
        snprintf(buf, size, "%s:%d (%s)", name, line, code);
    else
        snprintf(buf, size, "%s:%d", name, line);
}

static const char *thread_label(int slot, char *buf, size_t size)
{
    if (slot == MODEL_MAIN)
        snprintf(buf, size, "main");
    else
        snprintf(buf, size, "T%d %s", slot, explore_thread_name(slot));
    return buf;
}

/* A static object's name, from the program's symbol table (nm -S): the
 * scenario's globals are what a student recognizes. */
static bool static_name(uintptr_t addr, char *buf, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)addr, &info) || !info.dli_fname)
        return false;
    uintptr_t offset = addr - (uintptr_t)info.dli_fbase;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "nm -S --defined-only '%s' 2>/dev/null", info.dli_fname);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char line[300], name[128];
    bool found = false;
    while (!found && fgets(line, sizeof line, p)) {
        unsigned long at, len;
        char type;
        if (sscanf(line, "%lx %lx %c %127s", &at, &len, &type, name) == 4 &&
            (offset >= at && offset < at + len)) {
            snprintf(buf, size, "%s (byte %lu)", name, (unsigned long)(offset - at));
            found = true;
        }
    }
    pclose(p);
    return found;
}

static void describe_memory(uintptr_t addr, char *buf, size_t size)
{
    const void *b = explore_block_of((const void *)addr);
    const char *name = b ? explore_name_of(b) : NULL;
    if (b && name)
        snprintf(buf, size, "'%s' (byte %lu of its block)", name, (unsigned long)(addr - (uintptr_t)b));
    else if (b)
        snprintf(buf, size, "a block (byte %lu)", (unsigned long)(addr - (uintptr_t)b));
    else if (!static_name(addr, buf, size))
        snprintf(buf, size, "%p", (void *)addr);
}

static void keep(model_access *a, int slot, bool write, const access *x)
{
    a->slot = slot;
    a->write = write;
    a->trace_line = x->trace_line;
    if (x->file) {
        const char *slash = strrchr(x->file, '/');
        snprintf(a->site, sizeof a->site, "%s:%d (%s)", slash ? slash + 1 : x->file, x->line,
                 x->pc == ATOMIC_PC ? "an atomic operation" : "atomic_init, a plain write");
    } else {
        describe_site(x->pc, a->site, sizeof a->site);
    }
}

bool model_race_pair(model_access *first, model_access *second)
{
    if (g_have_pair) {
        *first = g_first;
        *second = g_second;
    }
    return g_have_pair;
}

/* Where in the trace an access happened: an atomic operation is a line of
 * its own; a plain access lies between two lines. */
static const char *when(const access *x, char *buf, size_t size)
{
    if (x->pc == ATOMIC_PC)
        snprintf(buf, size, "trace line %d", x->trace_line + 1);
    else if (x->trace_line == 0)
        snprintf(buf, size, "before trace line 1");
    else
        snprintf(buf, size, "after trace line %d", x->trace_line);
    return buf;
}

static _Noreturn void race(uintptr_t addr, int u, bool u_writes, const access *earlier, int t, bool t_writes,
                           const access *now, const char *free_site)
{
    char what[200], a[48], b[48], why[600], w1[48], w2[48];
    describe_memory(addr, what, sizeof what);
    keep(&g_first, u, u_writes, earlier);
    keep(&g_second, t, t_writes, now);
    g_have_pair = true;
    model_explain_missing_edge(u, earlier->epoch, t, why, sizeof why);
    thread_label(u, a, sizeof a);
    thread_label(t, b, sizeof b);
    when(earlier, w1, sizeof w1);
    when(now, w2, sizeof w2);
    if (free_site)
        explore_fail("data race", "%s frees %s at %s (%s) while %s %s it at %s (%s), and nothing orders that access "
                     "before the free. %s", b, what, free_site, w2, a, u_writes ? "wrote" : "read", g_first.site, w1,
                     why);
    explore_fail("data race", "on %s: %s %s it at %s (%s), %s %s it at %s (%s), and nothing orders the two. %s", what,
                 a, u_writes ? "wrote" : "read", g_first.site, w1, b, t_writes ? "writes" : "reads", g_second.site, w2,
                 why);
}

/* ---- the check ------------------------------------------------------------------ */

static void check_byte(uintptr_t addr, bool write, const void *pc, const char *free_site, const char *file, int line)
{
    int t = model_slot();
    shadow *s = shadow_of(addr);
    access now = {.epoch = model_now(t), .pc = pc, .file = file, .line = line, .trace_line = explore_trace_length()};
    if (s->writer >= 0 && !model_hb(s->writer, s->write.epoch, t))
        race(addr, s->writer, true, &s->write, t, write, &now, free_site);
    for (int u = 0; u < MODEL_SLOTS; ++u)
        if (s->atomic[u].epoch && (write || s->atomic[u].wrote) && !model_hb(u, s->atomic[u].epoch, t))
            race(addr, u, s->atomic[u].wrote, &s->atomic[u], t, write, &now, free_site);
    if (write) {
        for (int u = 0; u < MODEL_SLOTS; ++u)
            if (s->read[u].epoch && !model_hb(u, s->read[u].epoch, t))
                race(addr, u, false, &s->read[u], t, true, &now, free_site);
        /* Every earlier access happens before this write: later accesses
         * need only be checked against it (FastTrack). */
        memset(s->read, 0, sizeof s->read);
        memset(s->atomic, 0, sizeof s->atomic);
        s->writer = (int8_t)t;
        s->write = now;
    } else {
        s->read[t] = now;
    }
}

/* atomic_init: "not an atomic operation" (7.17.2.2): a plain write, which
 * another thread's atomic operation must not race with. The sequencer's
 * m_latest exchange is acq_rel for this: the node it hands over was
 * initialized by the queue call that put it there. */
void model_init_as_write(const volatile void *p, size_t size, const char *file, int line)
{
    if (t_quiet || !explore_running())
        return;
    for (size_t i = 0; i < size; ++i)
        check_byte((uintptr_t)p + i, true, NULL, NULL, file, line);
}

/* An atomic operation on [p, p + size): checked against the plain accesses
 * only (two atomic operations never race), and remembered for them. */
void model_atomic_access(const volatile void *p, size_t size, bool wrote)
{
    if (t_quiet || !explore_running())
        return;
    int t = model_slot();
    access now = {.epoch = model_now(t), .pc = ATOMIC_PC, .file = explore_site_file, .line = explore_site_line,
                  .trace_line = explore_trace_length(), .wrote = wrote};
    for (size_t i = 0; i < size; ++i) {
        uintptr_t addr = (uintptr_t)p + i;
        shadow *s = shadow_of(addr);
        if (s->writer >= 0 && !model_hb(s->writer, s->write.epoch, t))
            race(addr, s->writer, true, &s->write, t, wrote, &now, NULL);
        if (wrote)
            for (int u = 0; u < MODEL_SLOTS; ++u)
                if (s->read[u].epoch && !model_hb(u, s->read[u].epoch, t))
                    race(addr, u, false, &s->read[u], t, true, &now, NULL);
        if (!s->atomic[t].wrote || wrote)
            s->atomic[t] = now;
        else
            s->atomic[t].epoch = now.epoch; /* keep "it stored", at the later epoch */
    }
}

static void plain_access(const volatile void *p, size_t size, bool write, const void *pc)
{
    if (t_quiet || !explore_running())
        return;
    const void *b = explore_block_of(p);
    if (b && explore_freed(b)) {
        char site[200], what[240];
        describe_site(pc, site, sizeof site);
        snprintf(what, sizeof what, "%s at %s", write ? "writes" : "reads", site);
        explore_check_access(p, size, what);
    }
    for (size_t i = 0; i < size; ++i)
        check_byte((uintptr_t)p + i, write, pc, NULL, NULL, 0);
}

void model_free_as_write(const volatile void *p, size_t size, const char *file, int line)
{
    if (!explore_running())
        return;
    char at[160];
    if (file) {
        const char *slash = strrchr(file, '/');
        snprintf(at, sizeof at, "%s:%d", slash ? slash + 1 : file, line);
    } else {
        snprintf(at, sizeof at, "lockstep_free");
    }
    for (size_t i = 0; i < size; ++i)
        check_byte((uintptr_t)p + i, true, NULL, at, NULL, 0);
}

/* ---- ThreadSanitizer's entry points --------------------------------------------- */

/* The instrumented code's calls, in the names and signatures the compilers
 * emit (gcc and clang agree). Declared here, since no header of the
 * runtime is included. */
#define PC __builtin_return_address(0)
#define PLAIN(n)                                                                                               \
    void __tsan_read##n(void *p);                                                                              \
    void __tsan_write##n(void *p);                                                                             \
    void __tsan_unaligned_read##n(void *p);                                                                    \
    void __tsan_unaligned_write##n(void *p);                                                                   \
    void __tsan_read##n(void *p) { plain_access(p, n, false, PC); }                                            \
    void __tsan_write##n(void *p) { plain_access(p, n, true, PC); }                                            \
    void __tsan_unaligned_read##n(void *p) { plain_access(p, n, false, PC); }                                  \
    void __tsan_unaligned_write##n(void *p) { plain_access(p, n, true, PC); }
PLAIN(1)
PLAIN(2)
PLAIN(4)
PLAIN(8)
PLAIN(16)

void __tsan_read_range(void *p, unsigned long size);
void __tsan_write_range(void *p, unsigned long size);
void __tsan_read_range(void *p, unsigned long size) { plain_access(p, size, false, PC); }
void __tsan_write_range(void *p, unsigned long size) { plain_access(p, size, true, PC); }

void *__tsan_memcpy(void *dst, const void *src, unsigned long size);
void *__tsan_memmove(void *dst, const void *src, unsigned long size);
void *__tsan_memset(void *dst, int c, unsigned long size);
void *__tsan_memcpy(void *dst, const void *src, unsigned long size)
{
    plain_access(src, size, false, PC);
    plain_access(dst, size, true, PC);
    return memcpy(dst, src, size);
}
void *__tsan_memmove(void *dst, const void *src, unsigned long size)
{
    plain_access(src, size, false, PC);
    plain_access(dst, size, true, PC);
    return memmove(dst, src, size);
}
void *__tsan_memset(void *dst, int c, unsigned long size)
{
    plain_access(dst, size, true, PC);
    return memset(dst, c, size);
}

/* The module constructor and the call stack: nothing to do. */
void __tsan_init(void);
void __tsan_func_entry(void *caller);
void __tsan_func_exit(void);
void __tsan_init(void) {}
void __tsan_func_entry(void *caller) { (void)caller; }
void __tsan_func_exit(void) {}

/* Atomic operations the hook did not turn into the model's: in the step
 * sources there are none (every atomic there is an atomic_*_explicit call,
 * hook.h), so these are the scenario's own, outside the model. They do the
 * operation and nothing else. */
#define ATOMICS(n, T)                                                                                          \
    T __tsan_atomic##n##_load(const volatile T *a, int mo);                                                   \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo);                                                \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo);                 \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo);                   \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo);                       \
    T __tsan_atomic##n##_load(const volatile T *a, int mo) { return __atomic_load_n(a, mo); }                  \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo) { __atomic_store_n(a, v, mo); }                  \
    T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo) { return __atomic_exchange_n(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo) { return __atomic_fetch_add(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo) { return __atomic_fetch_sub(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo) { return __atomic_fetch_and(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo) { return __atomic_fetch_or(a, v, mo); }          \
    T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo) { return __atomic_fetch_xor(a, v, mo); }        \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)                  \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        return __atomic_compare_exchange_n(a, c, v, 0, mo, __ATOMIC_RELAXED);                                  \
    }                                                                                                          \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)                    \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        return __atomic_compare_exchange_n(a, c, v, 0, mo, __ATOMIC_RELAXED);                                  \
    }                                                                                                          \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)                        \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        __atomic_compare_exchange_n(a, &c, v, 0, mo, __ATOMIC_RELAXED);                                        \
        return c;                                                                                              \
    }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)

/* Fences: hook.h rejects atomic_thread_fence in the step sources. */
void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(mo); }
void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(mo); }
