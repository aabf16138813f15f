/*
 * `mcsim help format` and the documents it points to: every top-level key
 * the loader accepts (load_top_keys) and every program step it knows
 * (load_step_name) is in the summary and in docs/scenario-format.md, so a
 * key added to the loader without its documentation fails here.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "spawn.h"
#include "workdir.h"

static int setup(void **state)
{
    (void)state;
    return workdir_create("help");
}

static char *read_doc(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/docs/%s", MCSIM_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* `text` holds `word` as a key or step: at a line's start after spaces,
 * followed by ':' or a space (the summary), or in backquotes or as a YAML
 * key (the document). */
static int has_word(const char *text, const char *word, int doc)
{
    char pat[128];
    if (doc) {
        snprintf(pat, sizeof pat, "`%s", word);
        if (strstr(text, pat))
            return 1;
        snprintf(pat, sizeof pat, "\n%s:", word);
        return strstr(text, pat) != NULL;
    }
    size_t len = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p += len) {
        const char *q = p;
        while (q > text && q[-1] == ' ')
            q--;
        int at_line = q == text || q[-1] == '\n' || q[-1] == '|';
        if (at_line && (p[len] == ':' || p[len] == ' ' || p[len] == '\n'))
            return 1;
    }
    return 0;
}

static void test_help_format_lists_every_key_and_step(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("help format"), 0);
    assert_string_equal(spawn_err, "");
    assert_non_null(strstr(spawn_out, "docs/scenario-format.md"));
    for (size_t i = 0; load_top_keys[i]; i++)
        if (!has_word(spawn_out, load_top_keys[i], 0))
            fail_msg("mcsim help format does not list the key %s", load_top_keys[i]);
    size_t steps = 0;
    for (int k = 0; strcmp(load_step_name((enum scn_step_kind)k), "?") != 0; k++, steps++) {
        const char *name = load_step_name((enum scn_step_kind)k);
        char indented[64];
        snprintf(indented, sizeof indented, "\n  %s", name);
        /* A step is listed at the start of a line, or after '|' there. */
        if (!strstr(spawn_out, indented) && !has_word(spawn_out, name, 0))
            fail_msg("mcsim help format does not list the step %s", name);
    }
    assert_int_equal(steps, 19);
    assert_int_equal(workdir_count(), 0);
}

static void test_docs_name_every_key_and_step(void **state)
{
    (void)state;
    const char *doc = read_doc("scenario-format.md");
    for (size_t i = 0; load_top_keys[i]; i++)
        if (!has_word(doc, load_top_keys[i], 1))
            fail_msg("docs/scenario-format.md does not name the key %s", load_top_keys[i]);
    for (int k = 0; strcmp(load_step_name((enum scn_step_kind)k), "?") != 0; k++)
        if (!has_word(doc, load_step_name((enum scn_step_kind)k), 1))
            fail_msg("docs/scenario-format.md does not name the step %s",
                     load_step_name((enum scn_step_kind)k));
}

static void test_help_mentions_topics(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("help"), 0);
    assert_non_null(strstr(spawn_out, "\nhelp topics:\n  format     the scenario format in brief"));
    assert_int_equal(spawn_shell("help formats"), 2);
    assert_string_equal(spawn_err, "mcsim: unknown command 'formats' (see 'mcsim help')\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_format_lists_every_key_and_step),
        cmocka_unit_test(test_docs_name_every_key_and_step),
        cmocka_unit_test(test_help_mentions_topics),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
