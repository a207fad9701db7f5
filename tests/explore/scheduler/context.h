/* A thread's context: a stack, and the registers that run on it, and the
 * switch from one to another (context.c). thread.c's coroutines are built
 * on it; nothing else switches stacks. */
#ifndef LOCKSTEP_EXPLORE_CONTEXT_H
#define LOCKSTEP_EXPLORE_CONTEXT_H

#include <stdbool.h>

typedef struct context context;

/* A context of its own (a stack, mapped once), or, main: the calling
 * thread's, on the stack it already runs on. Exits the process (status 2)
 * if there is no memory for it. */
context *context_new(bool main);
/* The next switch to c runs entry from the top, on c's stack, as if c had
 * never run (a schedule starts each thread afresh). entry never returns:
 * it ends by switching away for good. */
void context_start(context *c, void (*entry)(void));
/* Runs `to` from where it left off (or from its entry); returns when some
 * context switches back to `from`, or never, for_good: `from` has
 * finished, and only context_start may run it again. */
void context_switch(context *from, context *to, bool for_good);

#endif /* LOCKSTEP_EXPLORE_CONTEXT_H */
