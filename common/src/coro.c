/* Frame allocation for coroutines that are not tasks (drivers, test bodies). */
#include "lockstep/coro.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <string.h>

lockstep_coro *lockstep_coro_new(size_t frame_size, lockstep_resume_fn resume, lockstep_destroy_fn destroy)
{
    assert(frame_size >= sizeof(lockstep_coro) && "lockstep_coro_new: frame smaller than its header");
    assert(resume && destroy && "lockstep_coro_new: resume and destroy are required");
    lockstep_coro *h = lockstep_alloc(frame_size);
    if (!h)
        return NULL;
    memset(h, 0, frame_size);
    lockstep_coro_init(h, resume, destroy);
    return h;
}

void lockstep_coro_free(lockstep_coro *h)
{
    lockstep_free(h);
}
