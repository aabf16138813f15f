/*
 * The `mcsim export` tests' fixture (export_fx.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "export_fx.h"
#include "spawn.h"
#include "workdir.h"

int export_run(const char *args)
{
    return spawn_shell("%s >out.txt", args);
}

int export_setup(const char *name)
{
    if (workdir_create(name) != 0)
        return -1;
    workdir_copy(EXPORT_SCENARIO, ODD_NAME ".yaml");
    if (export_run("run '" ODD_NAME ".yaml' -o t.db --scheduler classic --quiet") > 1 ||
        export_run("run '" ODD_NAME ".yaml' -o t.db --quiet") > 1) {
        print_message("mcsim run failed: %s\n", spawn_err);
        return -1;
    }
    return 0;
}

struct json *export_json_file(const char *name)
{
    size_t len;
    char msg[256] = "";
    char *text = workdir_read(name, &len);
    struct json *v;
    assert_non_null(text);
    v = json_parse(text, len, msg, sizeof msg);
    if (!v)
        fail_msg("%s is not strict JSON: %s", name, msg);
    free(text);
    assert_int_equal(v->type, JSON_OBJECT);
    return v;
}
