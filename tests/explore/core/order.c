/*
 * Memory orders as values (C11 7.17.1p4, 7.17.3): memory_order_relaxed ..
 * memory_order_seq_cst are an enumeration, so an order is a value that a
 * program may compute, and the model works with values, never with the
 * text of the source. This is the one table of their names.
 *
 * What each order does (7.17.3p1-2): a store with release, acq_rel or
 * seq_cst performs a release operation; a load with acquire, consume,
 * acq_rel or seq_cst an acquire operation. consume is treated as acquire,
 * as every compiler does. A read-modify-write does both halves of its one
 * order (p2's "acq_rel ... both"). seq_cst is acquire and release here; its
 * single total order S (p6) is the next issue's.
 */
#include "model.h"

#include <stdatomic.h>
#include <string.h>

static const struct {
    int order;
    const char *name;
} g_orders[] = {
    {memory_order_relaxed, "relaxed"}, {memory_order_consume, "consume"}, {memory_order_acquire, "acquire"},
    {memory_order_release, "release"}, {memory_order_acq_rel, "acq_rel"}, {memory_order_seq_cst, "seq_cst"},
};
enum { NORDERS = sizeof g_orders / sizeof g_orders[0] };

const char *explore_order_name(int order)
{
    for (int i = 0; i < NORDERS; ++i)
        if (g_orders[i].order == order)
            return g_orders[i].name;
    return "?";
}

int explore_order_parse(const char *text)
{
    if (!text)
        return -1;
    if (strncmp(text, "memory_order_", strlen("memory_order_")) == 0)
        text += strlen("memory_order_");
    for (int i = 0; i < NORDERS; ++i)
        if (strcmp(g_orders[i].name, text) == 0)
            return g_orders[i].order;
    return -1;
}

bool order_acquires(int order)
{
    return order == memory_order_acquire || order == memory_order_consume || order == memory_order_acq_rel ||
           order == memory_order_seq_cst;
}

bool order_releases(int order)
{
    return order == memory_order_release || order == memory_order_acq_rel || order == memory_order_seq_cst;
}

/* Orders are not a chain: acquire and release are each weaker than
 * acq_rel, and neither is weaker than the other. `weaker` is strictly
 * weaker than `than` when it keeps no half `than` lacks and is not the
 * same; seq_cst is stronger than acq_rel (it adds S). */
bool order_weaker(int weaker, int than)
{
    if (weaker == than || (weaker == memory_order_consume && than == memory_order_acquire))
        return false;
    if (than == memory_order_seq_cst)
        return true;
    if (weaker == memory_order_seq_cst)
        return false;
    return (!order_acquires(weaker) || order_acquires(than)) && (!order_releases(weaker) || order_releases(than));
}
