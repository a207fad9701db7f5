/*
 * The tokens of herd7's C litmus syntax (lexer.c), for the parser.
 */
#ifndef LOCKSTEP_LITMUS_LEXER_H
#define LOCKSTEP_LITMUS_LEXER_H

#include <stdbool.h>
#include <stddef.h>

enum token_kind {
    TOK_EOF,
    TOK_NAME,   /* an identifier or keyword: P0, atomic_int, exists, r0 */
    TOK_NUMBER, /* 42, 0x10 (a minus sign is a TOK_PUNCT) */
    TOK_STRING, /* "a description" */
    TOK_PUNCT,  /* ( ) { } [ ] ; , : * = == != < <= > >= + - / & | ^ ~ ! && || /\ \/ */
    TOK_ERROR,  /* a character the syntax has no use for */
};

typedef struct token {
    enum token_kind kind;
    char text[64];
    long value; /* TOK_NUMBER */
    int line;
    int column; /* of its first character, from 1 (characters, not bytes) */
    const char *start, *end; /* where it is in the text (for the parts a tool shows as written) */
} token;

typedef struct lexer {
    const char *p;
    const char *source; /* the whole text: a line's columns are counted from it */
    int line;
    bool code; /* inside a thread's body: "(*" is a parenthesis and a star, not a comment */
} lexer;

void lexer_init(lexer *lx, const char *source);
token lexer_next(lexer *lx);
/* The column of line's first character that is not a blank (1 if none):
 * where a refusal that names a line, not a token, points. */
int lexer_first_column(const lexer *lx, int line);
void lexer_line(lexer *lx, char *buf, size_t size);

#endif /* LOCKSTEP_LITMUS_LEXER_H */
