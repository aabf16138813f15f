/*
 * Loading a scenario file in a unit test (scnload.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "load/load.h"
#include "scnload.h"
#include "util/diag.h"

void scnload_must(const char *path, struct scenario *s)
{
    struct diag d;
    diag_init(&d);
    if (load_scenario(path, s, &d) != 0) {
        diag_print(&d, stderr);
        diag_release(&d);
        fail_msg("%s does not load", path);
    }
    diag_release(&d);
}
