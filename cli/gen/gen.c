/*
 * gen_scenario(): draw, write and load a random scenario in one call
 * (gen.h). The text goes through the ordinary loader, so a generated
 * scenario is exactly what `mcsim run` would read from a file.
 */
#include "gen/gen.h"

#include <stdio.h>
#include <string.h>

#include "load/load.h"

int gen_scenario(const struct gen_knobs *k, uint64_t seed, struct scenario *s, struct strbuf *yaml,
                 struct diag *d)
{
    struct gen_system g;
    struct strbuf text = {0};
    char why[160], name[64], path[96];
    int rc;
    memset(s, 0, sizeof *s);
    if (gen_draw(k, seed, &g, why, sizeof why) != 0) {
        diag_error(d, NULL, 0, 0, "generator: %s", why);
        return -1;
    }
    snprintf(name, sizeof name, "gen-%llu", (unsigned long long)seed);
    snprintf(path, sizeof path, "gen-%llu.yaml", (unsigned long long)seed);
    gen_emit_yaml(&g, name, &text);
    gen_system_release(&g);
    if (text.failed) {
        sb_release(&text);
        diag_error(d, NULL, 0, 0, "generator: out of memory");
        return -1;
    }
    rc = load_scenario_text(path, sb_str(&text), text.len, s, d);
    if (yaml)
        sb_puts(yaml, sb_str(&text));
    sb_release(&text);
    return rc;
}
