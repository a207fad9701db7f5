/*
 * JSON out (json.h): RFC 8259, written as it goes, one value after
 * another; the writer keeps only whether the open object or array needs a
 * comma before its next member. Strings are UTF-8 as the program holds
 * them; quotes, backslashes and control characters are escaped.
 */
#include "core/json.h"

#include <assert.h>

static void before_value(json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (j->more[j->depth - 1])
            fputc(',', j->f);
        j->more[j->depth - 1] = true;
    }
}

static void open_value(json *j, char c)
{
    before_value(j);
    assert(j->depth < JSON_DEPTH && "json: nested too deep");
    fputc(c, j->f);
    j->more[j->depth++] = false;
}

static void close_value(json *j, char c)
{
    assert(j->depth > 0 && "json: nothing to close");
    --j->depth;
    fputc(c, j->f);
}

void json_begin(json *j, FILE *f) { *j = (json){.f = f}; }
void json_object(json *j) { open_value(j, '{'); }
void json_end_object(json *j) { close_value(j, '}'); }
void json_array(json *j) { open_value(j, '['); }
void json_end_array(json *j) { close_value(j, ']'); }

static void quoted(json *j, const char *s)
{
    fputc('"', j->f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(j->f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", j->f);
        else if (*p < 0x20)
            fprintf(j->f, "\\u%04x", *p);
        else
            fputc(*p, j->f);
    }
    fputc('"', j->f);
}

void json_key(json *j, const char *key)
{
    before_value(j);
    quoted(j, key);
    fputc(':', j->f);
    j->after_key = true;
}

void json_string(json *j, const char *s)
{
    before_value(j);
    if (s)
        quoted(j, s);
    else
        fputs("null", j->f);
}

void json_int(json *j, long v)
{
    before_value(j);
    fprintf(j->f, "%ld", v);
}

void json_number(json *j, double v)
{
    before_value(j);
    fprintf(j->f, "%.3f", v);
}

void json_bool(json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(json *j)
{
    before_value(j);
    fputs("null", j->f);
}

void json_raw(json *j, const char *text)
{
    before_value(j);
    fputs(text, j->f);
}
