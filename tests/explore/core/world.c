/*
 * The layers' pointers to their parts of the running world (core/world.h).
 * Defined here, at the bottom, so that a layer reads its own without
 * calling up into run/, which sets them (run/world.c).
 */
#include "core/world.h"

void *world_parts[WORLD_LAYERS];
