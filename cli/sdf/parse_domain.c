/*
 * <domains>: the domain scheduler's domains and schedule, checked as
 * Microkit's tool checks them. mcsim simulates no domain scheduler; a file
 * with domains is accepted or rejected as Microkit does, and the lint says
 * the schedule is not simulated.
 */
#include "parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool add_domain(struct sdf_ctx *c, const struct sdf_xml_node *k, const char *name)
{
    for (size_t i = 0; i < c->n_domains; i++)
        if (strcmp(c->domain_names[i], name) == 0) {
            sdf_err(c, k, "Each <domain>'s name element must be unique found existing domain "
                          "'%s'",
                    name);
            return false;
        }
    const char **a = realloc(c->domain_names, (c->n_domains + 1) * sizeof *a);
    if (!a) {
        c->oom = true;
        return false;
    }
    c->domain_names = a;
    a[c->n_domains++] = name;
    return true;
}

/* A <domain>: returns 1 with an explicit id (in *id), 0 without, -1 bad. */
static int parse_domain(struct sdf_ctx *c, const struct sdf_xml_node *k, uint64_t *id)
{
    static const char *const attrs[] = {"name", "id", NULL};
    const char *name, *id_s;

    sdf_check_attrs(c, k, attrs);
    if (!(name = sdf_required(c, k, "name")) || !add_domain(c, k, name))
        return -1;
    if (!(id_s = sdf_xml_attr(k, "id")))
        return 0;
    if (!sdf_number(c, k, id_s, id))
        return -1;
    if (*id >= c->cfg->num_domains) {
        sdf_err(c, k, "domain id %llu should be less than the configured KernelNumDomains value "
                      "of %u",
                (unsigned long long)*id, c->cfg->num_domains);
        return -1;
    }
    return 1;
}

static bool known_domain(const struct sdf_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_domains; i++)
        if (strcmp(c->domain_names[i], name) == 0)
            return true;
    return false;
}

static void parse_entry(struct sdf_ctx *c, const struct sdf_xml_node *k)
{
    static const char *const attrs[] = {"domain", "duration", NULL};
    const char *dom, *dur, *sp;
    char num[64];
    uint64_t v;

    sdf_check_attrs(c, k, attrs);
    dom = sdf_required(c, k, "domain");
    dur = sdf_required(c, k, "duration");
    if (!dom || !dur)
        return;
    if (!known_domain(c, dom)) {
        sdf_err(c, k, "domain '%s' does not exist,", dom);
        return;
    }
    if (!(sp = strchr(dur, ' ')) || (size_t)(sp - dur) >= sizeof num) {
        sdf_err(c, k, "The duration '%s' must contain a value and a unit, e.g. '1000 us'", dur);
        return;
    }
    memcpy(num, dur, (size_t)(sp - dur));
    num[sp - dur] = '\0';
    if (!sdf_number(c, k, num, &v))
        return;
    if (v == 0)
        sdf_err(c, k, "The duration '%s' must be non-zero", dur);
    else if (strcmp(sp + 1, "us") != 0 && strcmp(sp + 1, "ticks") != 0)
        sdf_err(c, k, "The duration '%s' must be in either 'ticks' or 'us'", dur);
}

static void parse_schedule(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    static const char *const attrs[] = {"index_shift", "start_index", NULL};
    static const char *const none[] = {NULL};
    const char *s;
    uint64_t start = 0, shift = 0, len = 0;
    bool has_shift = false, ok = true;

    sdf_check_attrs(c, n, attrs);
    if ((s = sdf_xml_attr(n, "start_index")))
        ok = sdf_number(c, n, s, &start);
    if ((s = sdf_xml_attr(n, "index_shift")))
        ok = (has_shift = sdf_number(c, n, s, &shift)) && ok;
    for (size_t i = 0; i < n->n_kids; i++) {
        const struct sdf_xml_node *k = n->kids[i];
        if (strcmp(k->name, "schedule_entry") == 0)
            parse_entry(c, k);
        else if (strcmp(k->name, "schedule_end_marker") == 0)
            sdf_check_attrs(c, k, none);
        else {
            sdf_err_at(c, sdf_loc_of(k), "invalid XML element as child of <domain_schedule> '%s'",
                       k->name);
            continue;
        }
        len++;
    }
    if (!ok)
        return;
    if (len >= c->cfg->num_domain_schedules)
        sdf_err_at(c, sdf_loc_of(n), "More than configured KernelNumDomainSchedules %u number of "
                                     "<schedule_entry> elements found",
                   c->cfg->num_domain_schedules);
    else if (start >= len)
        sdf_err(c, n, "schedule_start_index '%llu' is greater than the length of the schedule "
                      "'%llu'",
                (unsigned long long)start, (unsigned long long)len);
    else if (has_shift && shift + len >= c->cfg->num_domain_schedules)
        sdf_err(c, n, "schedule_index_shift '%llu' on top of the schedule length '%llu' would "
                      "exceed than the configured KernelNumDomainSchedules %u",
                (unsigned long long)start, (unsigned long long)len,
                c->cfg->num_domain_schedules);
}

void sdf_parse_domains(struct sdf_ctx *c, const struct sdf_xml_node *n)
{
    static const char *const none[] = {NULL};
    const struct sdf_xml_node *sched = NULL;
    size_t explicit_ids = 0, implicit = 0;
    uint64_t id, ids[256];

    sdf_check_attrs(c, n, none);
    if (c->cfg->cores != 1) {
        sdf_err_at(c, sdf_loc_of(n),
                   "The domain scheduler is not supported in multicore builds of seL4");
        return;
    }
    for (size_t i = 0; i < n->n_kids; i++) {
        const struct sdf_xml_node *k = n->kids[i];
        if (strcmp(k->name, "domain") == 0) {
            int r = parse_domain(c, k, &id);
            for (size_t j = 0; r == 1 && j < explicit_ids; j++)
                if (ids[j] == id) {
                    sdf_err(c, k, "Each <domain>'s id element must be unique found existing "
                                  "domain with id '%llu'",
                            (unsigned long long)id);
                    r = -1;
                }
            if (r == 1 && explicit_ids < sizeof ids / sizeof ids[0])
                ids[explicit_ids++] = id;
            implicit += r == 0;
        } else if (strcmp(k->name, "domain_schedule") == 0) {
            if (sched)
                sdf_err(c, k, "The <domain_schedule> element can only appear once");
            sched = k;
        } else {
            sdf_err_at(c, sdf_loc_of(k), "invalid XML element as child of <domains> '%s'",
                       k->name);
        }
    }
    c->sys->has_domains = c->n_domains > 0;
    if (!sched) {
        sdf_err(c, n, "The <domain_schedule> element must appear once");
        return;
    }
    /* ids without an explicit one are taken from 0..=num_domains, as Microkit's tool does */
    if (implicit + explicit_ids > (size_t)c->cfg->num_domains + 1 && implicit)
        sdf_err(c, n, "Number of domains exceeds %u", c->cfg->num_domains);
    parse_schedule(c, sched);
}
