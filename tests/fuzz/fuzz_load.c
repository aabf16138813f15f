/*
 * libFuzzer target: the scenario loader (cli/load.h) on any bytes. Every
 * input either loads or is refused with diagnostics; neither may crash,
 * leak or reach undefined behaviour (ASan, UBSan). A scenario that loads
 * must also go through the scenario blob and come back the same (the
 * encoding of the decoded blob is the blob), since `mcsim qemu` sends
 * every valid scenario that way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "util/diag.h"
#include "load/load.h"

static void blob_round_trip(const struct scenario *s)
{
    size_t size = blob_encode(s, BLOB_TRACE_FULL, NULL, 0);
    uint8_t *a = malloc(size), *b = malloc(size);
    struct scenario back;
    uint32_t flags;

    if (!a || !b || size > BLOB_MAX_BYTES)
        goto out;
    blob_encode(s, BLOB_TRACE_FULL, a, size);
    if (blob_decode(a, size, &back, &flags) != BLOB_OK || flags != BLOB_TRACE_FULL)
        abort(); /* a valid scenario's blob is refused */
    if (blob_encode(&back, flags, NULL, 0) != size)
        abort();
    blob_encode(&back, flags, b, size);
    if (memcmp(a, b, size) != 0)
        abort(); /* the blob does not carry the scenario exactly */
    scenario_release(&back);
out:
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d;
    struct scenario s;

    diag_init(&d);
    if (load_scenario_text("fuzz.yaml", (const char *)data, size, &s, &d) == 0) {
        blob_round_trip(&s);
        scenario_release(&s);
    } else if (diag_errors(&d) == 0) {
        abort(); /* refused without saying why */
    }
    for (size_t i = 0; i < diag_count(&d); i++) {
        char line[256];
        diag_format(&d.msgs[i], line, sizeof line);
    }
    diag_release(&d);
    return 0;
}
