/*
 * Naming what a trace shows, so that a student reads `driver`, `m_waiting`
 * and `task.c:70 (p->m_holder = result;)` rather than addresses:
 *
 *   - source sites: the file's base name (one helper, base_name), and for
 *     a plain access, whose only trace is its return address in the
 *     instrumented code, the line addr2line finds there, with its text;
 *   - objects: the blocks and coroutine frames a scenario names
 *     (explore_name, explore_name_coro), the fields of the scenario's
 *     context (the table its source defines, explore_context_fields), the
 *     program's static objects (from the symbol table, nm), and fields
 *     ("&p->m_waiting" is `m_waiting`);
 *   - values: as the scenario decodes them (explore_decode), or a named
 *     block, or a small number.
 *
 * addr2line and nm run only when a data race is reported, and addr2line
 * once per code address for the whole process (a litmus test with racing
 * plain accesses reports a race in many schedules). A program that names
 * its plain accesses itself (a litmus file's, explore_plain) needs none.
 */
#define _GNU_SOURCE /* dladdr */
#include "core/part.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *base_name(const char *path)
{
    if (!path)
        return "";
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- sites ------------------------------------------------------------------ */

/* The text of line `line` of file, trimmed, or "". */
static void source_line(const char *file, int line, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(file, "r");
    if (!f)
        return;
    char text[256];
    for (int n = 1; fgets(text, sizeof text, f); ++n)
        if (n == line) {
            char *s = text + strspn(text, " \t");
            s[strcspn(s, "\n")] = '\0';
            snprintf(buf, size, "%s", s);
            break;
        }
    fclose(f);
}

void name_site(const char *file, int line, char *buf, size_t size)
{
    char code[160];
    source_line(file, line, code, sizeof code);
    if (code[0])
        snprintf(buf, size, "%s:%d (%s)", base_name(file), line, code);
    else
        snprintf(buf, size, "%s:%d", base_name(file), line);
}

static bool look_up(const void *pc, char *file, size_t size, int *line);

/* This file's part of the schedule's world, through its layer's (core/part.h). */
static inline names_state *st(void) { return &core_now()->names; }

bool name_code_line(const void *pc, char *file, size_t size, int *line)
{
    for (int i = 0; i < st()->ncode; ++i)
        if (st()->code[i].pc == pc) {
            snprintf(file, size, "%s", st()->code[i].file);
            *line = st()->code[i].line;
            return *line != 0;
        }
    bool found = look_up(pc, file, size, line);
    if (st()->ncode < (int)(sizeof st()->code / sizeof st()->code[0])) {
        struct code_line *c = &st()->code[st()->ncode++];
        c->pc = pc;
        snprintf(c->file, sizeof c->file, "%s", found ? file : "");
        c->line = found ? *line : 0;
    }
    return found;
}

/* The file and line of a code address, from addr2line: one process. */
static bool look_up(const void *pc, char *file, size_t size, int *line)
{
    Dl_info info;
    *line = 0;
    if (!dladdr(pc, &info) || !info.dli_fname)
        return false;
    char cmd[700];
    /* The call's return address is just after the access: look one byte back. */
    uintptr_t at = (uintptr_t)pc - 1, offset = at - (uintptr_t)info.dli_fbase;
    for (int attempt = 0; attempt < 2 && !*line; ++attempt) {
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
                snprintf(file, size, "%s", out);
                *line = atoi(colon + 1);
            }
        }
        pclose(p);
    }
    return *line != 0;
}

void name_code_address(const void *pc, char *buf, size_t size)
{
    char file[300];
    int line;
    Dl_info info;
    if (name_code_line(pc, file, sizeof file, &line))
        name_site(file, line, buf, size);
    else if (dladdr(pc, &info) && info.dli_fname)
        snprintf(buf, size, "%s+0x%lx", info.dli_sname ? info.dli_sname : "?",
                 (unsigned long)((uintptr_t)pc - 1 - (uintptr_t)info.dli_fbase));
    else
        snprintf(buf, size, "%p", pc);
}

/* ---- objects ------------------------------------------------------------------ */

void names_reset(void) { st()->nnames = 0; }

static void add_name(const volatile void *addr, const char *name, bool coro)
{
    for (int i = 0; i < st()->nnames; ++i)
        if (st()->names[i].addr == addr) {
            st()->names[i] = (named){addr, name, coro};
            return;
        }
    if (st()->nnames < 32)
        st()->names[st()->nnames++] = (named){addr, name, coro};
}

void explore_name(const volatile void *addr, const char *name) { add_name(addr, name, false); }
void explore_name_coro(const volatile void *addr, const char *name) { add_name(addr, name, true); }
void explore_name_fields(void) { st()->name_fields = true; }
bool names_of_fields(void) { return st()->name_fields; }

const char *explore_name_of(const volatile void *addr)
{
    for (int i = 0; i < st()->nnames; ++i)
        if (st()->names[i].addr == addr)
            return st()->names[i].name;
    return NULL;
}

bool name_is_coro(const volatile void *addr)
{
    for (int i = 0; i < st()->nnames; ++i)
        if (st()->names[i].addr == addr)
            return st()->names[i].coro;
    return false;
}

const char *name_field(const char *text, char *buf, size_t size)
{
    const char *s = text;
    for (const char *p = text; *p; ++p) {
        if (p[0] == '-' && p[1] == '>')
            s = p + 2;
        else if (*p == '.' || *p == '&' || *p == '(' || *p == ' ')
            s = p + 1;
    }
    snprintf(buf, size, "%s", s);
    buf[strcspn(buf, ") ")] = '\0';
    return buf;
}

void name_value(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size)
{
    if (explore_decode(field, obj, v, buf, size))
        return;
    const char *name = explore_name_of((const void *)v);
    if (name && v)
        snprintf(buf, size, "%s", name);
    else if (v < 4096)
        snprintf(buf, size, "%lu", (unsigned long)v);
    else
        snprintf(buf, size, "0x%lx", (unsigned long)v);
}

/* A static object's name, from the program's symbol table (nm -S): a
 * planted program's shared memory (selftest.c), the step's own statics. */
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
        if (sscanf(line, "%lx %lx %c %127s", &at, &len, &type, name) == 4 && offset >= at && offset < at + len) {
            snprintf(buf, size, "%s (byte %lu)", name, (unsigned long)(offset - at));
            found = true;
        }
    }
    pclose(p);
    return found;
}

void explore_name_context(const void *ctx, size_t size, const explore_field *fields, size_t nfields)
{
    st()->context = (uintptr_t)ctx;
    st()->context_size = size;
    st()->fields = fields;
    st()->nfields = nfields;
}

/* An address in the scenario's context: "set_called (the scenario's
 * context)", the field from its source's table, or the byte. A student
 * knows the field's name from the scenario's struct, never its address. */
static bool context_name(uintptr_t addr, char *buf, size_t size)
{
    if (!st()->context || addr < st()->context || addr - st()->context >= st()->context_size)
        return false;
    size_t at = addr - st()->context;
    for (size_t i = 0; i < st()->nfields; ++i) {
        const explore_field *f = &st()->fields[i];
        if (at < f->offset || at - f->offset >= f->size)
            continue;
        if (at == f->offset)
            snprintf(buf, size, "%s (the scenario's context)", f->name);
        else
            snprintf(buf, size, "%s (byte %lu of it, in the scenario's context)", f->name,
                     (unsigned long)(at - f->offset));
        return true;
    }
    snprintf(buf, size, "the scenario's context (byte %lu)", (unsigned long)at);
    return true;
}

void name_memory(uintptr_t addr, char *buf, size_t size)
{
    const void *b = alloc_block_of((const void *)addr);
    const char *name = b ? explore_name_of(b) : NULL;
    if (b && name)
        snprintf(buf, size, "'%s' (byte %lu of its block)", name, (unsigned long)(addr - (uintptr_t)b));
    else if (b)
        snprintf(buf, size, "a block (byte %lu)", (unsigned long)(addr - (uintptr_t)b));
    else if (!context_name(addr, buf, size) && !static_name(addr, buf, size))
        snprintf(buf, size, "%p", (void *)addr);
}


void names_set_threads(const explore_scenario *s) { st()->scenario = s; }

const char *name_thread(int thread, char *buf, size_t size)
{
    if (thread == EXPLORE_MAIN)
        snprintf(buf, size, "main");
    else
        snprintf(buf, size, "T%d %s", thread, st()->scenario ? st()->scenario->thread_names[thread] : "?");
    return buf;
}
