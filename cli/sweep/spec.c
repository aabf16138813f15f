/*
 * What a sweep spec implies: its utilisation points and sets
 * (cli/sweep/spec.h).
 */
#include "sweep/spec.h"


uint32_t sweep_spec_points(const struct sweep_spec *s)
{
    if (s->u_step == 0 || s->u_to < s->u_from)
        return 0;
    return (s->u_to - s->u_from) / s->u_step + 1;
}

uint32_t sweep_spec_utilisation(const struct sweep_spec *s, uint32_t i)
{
    return s->u_from + i * s->u_step;
}

uint64_t sweep_spec_total_sets(const struct sweep_spec *s)
{
    return (uint64_t)sweep_spec_points(s) * s->sets;
}
