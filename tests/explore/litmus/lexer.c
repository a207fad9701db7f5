/*
 * The tokens of herd7's C litmus syntax.
 *
 * A litmus file mixes two languages: the litmus frame (the test's name, an
 * init block, the final condition, comments in OCaml's (* ... *)) and C
 * (the threads' bodies, with C's comments). Both are tokenized here; the
 * parser says which one it is reading (lexer.code), because "(*x)" in C is a
 * parenthesis and a dereference, while in the frame "(*" opens a comment.
 */
#include "lexer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lexer_init(lexer *lx, const char *source)
{
    *lx = (lexer){.p = source, .source = source, .line = 1, .code = false};
}

/* The column of at, a place in the text: its characters from the start of
 * its line, from 1 (a UTF-8 continuation byte is no character). */
static int column_of(const lexer *lx, const char *at)
{
    const char *start = at;
    while (start > lx->source && start[-1] != '\n')
        --start;
    int column = 1;
    for (const char *q = start; q < at; ++q)
        column += ((unsigned char)*q & 0xC0) != 0x80;
    return column;
}

int lexer_first_column(const lexer *lx, int line)
{
    const char *p = lx->source;
    for (int n = 1; n < line && p; ++n) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (!p)
        return 1;
    while (*p == ' ' || *p == '\t')
        ++p;
    return column_of(lx, p);
}

/* Skips a comment that ends with `end`, counting its lines. */
static void skip_until(lexer *lx, const char *end)
{
    size_t n = strlen(end);
    while (*lx->p && strncmp(lx->p, end, n) != 0) {
        if (*lx->p == '\n')
            ++lx->line;
        ++lx->p;
    }
    if (*lx->p)
        lx->p += n;
}

static void skip_space_and_comments(lexer *lx)
{
    for (;;) {
        if (*lx->p == '\n') {
            ++lx->line;
            ++lx->p;
        } else if (isspace((unsigned char)*lx->p)) {
            ++lx->p;
        } else if (strncmp(lx->p, "/*", 2) == 0) {
            skip_until(lx, "*/");
        } else if (strncmp(lx->p, "//", 2) == 0) {
            skip_until(lx, "\n");
            ++lx->line;
        } else if (!lx->code && strncmp(lx->p, "(*", 2) == 0) {
            skip_until(lx, "*)");
        } else {
            return;
        }
    }
}

/* The two- and one-character punctuation, longest first. */
static const char *const g_punct[] = {"/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "{", "}", "[", "]",
                                      ";",   ",",   ":",  "*",  "=",  "<",  ">",  "+",  "-", "/", "&", "|", "^", "~",
                                      "!"};

/* The rest of the line, raw: the test's name (MP+rel+acq holds pluses). */
void lexer_line(lexer *lx, char *buf, size_t size)
{
    while (*lx->p == ' ' || *lx->p == '\t')
        ++lx->p;
    size_t n = strcspn(lx->p, "\r\n");
    while (n > 0 && isspace((unsigned char)lx->p[n - 1]))
        --n;
    snprintf(buf, size, "%.*s", (int)n, lx->p);
    lx->p += strcspn(lx->p, "\n");
}

static token scan(lexer *lx)
{
    skip_space_and_comments(lx);
    token t = {.kind = TOK_EOF, .line = lx->line, .column = column_of(lx, lx->p), .start = lx->p};
    const char *p = lx->p;
    if (!*p)
        return t;
    if (isalpha((unsigned char)*p) || *p == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            ++n;
        t.kind = TOK_NAME;
        snprintf(t.text, sizeof t.text, "%.*s", (int)n, p);
        lx->p += n;
        return t;
    }
    if (isdigit((unsigned char)*p)) { /* a minus sign is the parser's: r0-1 */
        char *end;
        t.kind = TOK_NUMBER;
        t.value = strtol(p, &end, 0);
        snprintf(t.text, sizeof t.text, "%.*s", (int)(end - p), p);
        lx->p = end;
        return t;
    }
    if (*p == '"') {
        const char *end = strchr(p + 1, '"');
        if (!end) {
            t.kind = TOK_ERROR;
            snprintf(t.text, sizeof t.text, "\"");
            return t;
        }
        t.kind = TOK_STRING;
        snprintf(t.text, sizeof t.text, "%.*s", (int)(end - p - 1), p + 1);
        for (const char *q = p; q < end; ++q)
            lx->line += *q == '\n';
        lx->p = end + 1;
        return t;
    }
    for (size_t i = 0; i < sizeof g_punct / sizeof g_punct[0]; ++i) {
        size_t n = strlen(g_punct[i]);
        if (strncmp(p, g_punct[i], n) == 0) {
            t.kind = TOK_PUNCT;
            snprintf(t.text, sizeof t.text, "%s", g_punct[i]);
            lx->p += n;
            return t;
        }
    }
    t.kind = TOK_ERROR;
    snprintf(t.text, sizeof t.text, "%c", *p);
    lx->p += 1;
    return t;
}

token lexer_next(lexer *lx)
{
    token t = scan(lx);
    t.end = lx->p;
    return t;
}
