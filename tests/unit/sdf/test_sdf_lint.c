/*
 * mcsim's lints: every example of tests/data/sdf/examples/ lints with the
 * findings listed here (LINE:COL SEVERITY CODE), and one hand-written
 * file per lint in tests/data/sdf/bad/ gives that finding at its exact
 * place. The command's exit statuses and output format.
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

#include "sdf/lint.h"
#include "sdf/sdf.h"
#include "sdf/sidecar.h"
#include "spawn.h"
#include "util/strbuf.h"
#include "workdir.h"

#define DIR MCSIM_SOURCE_DIR "/tests/data/sdf/"

struct expected {
    const char *file;
    const char *findings;
};

static const struct expected examples[] = {
    {"libvmm-smp-qemu_virt_aarch64.system",
     "29:5 note default-budget\n"},
    {"lionsos-firewall.system",
     "61:5 note default-budget\n"
     "66:5 note default-budget\n"
     "74:9 note default-budget\n"
     "85:9 note default-budget\n"
     "95:9 warning near-min-budget\n"
     "112:9 warning near-min-budget\n"
     "112:9 note priority-tie\n"
     "128:9 note default-budget\n"
     "140:9 note default-budget\n"
     "140:9 note priority-tie\n"
     "153:9 note default-budget\n"
     "165:9 note default-budget\n"
     "165:9 note priority-tie\n"
     "176:9 note default-budget\n"
     "176:9 note priority-tie\n"
     "188:9 note default-budget\n"
     "188:9 note priority-tie\n"},
    {"microkit-cap_sharing.system",
     "8:5 note default-budget\n"
     "22:5 note default-budget\n"},
    {"microkit-domains.system",
     "7:1 note domains\n"
     "33:5 note default-budget\n"
     "33:5 note default-priority\n"
     "37:5 note default-budget\n"
     "37:5 note default-priority\n"
     "37:5 note priority-tie\n"},
    {"microkit-ethernet.system",
     "47:5 note default-budget\n"
     "47:5 warning active-server\n"
     "71:5 note default-budget\n"
     "71:5 note priority-tie\n"
     "87:5 note default-budget\n"},
    {"microkit-hello.system",
     "8:5 note default-budget\n"
     "8:5 note default-priority\n"},
    {"microkit-hierarchy.system",
     "8:5 note default-budget\n"
     "10:9 note default-budget\n"
     "13:9 note default-budget\n"},
    {"microkit-passive_server.system",
     "8:5 note default-budget\n"
     "12:5 note default-budget\n"},
    {"microkit-setvar.system",
     "17:5 note default-budget\n"},
    {"microkit-timer.system",
     "10:5 note default-budget\n"
     "10:5 note default-priority\n"},
    {"sddf-echo_server-maaxboard.system",
     "60:5 note default-budget\n"
     "66:5 note default-budget\n"
     "72:9 warning near-min-budget\n"
     "88:9 note default-budget\n"
     "99:9 note default-budget\n"
     "112:9 note default-budget\n"
     "112:9 note priority-tie\n"
     "126:9 warning budget-no-period\n"
     "138:9 warning budget-no-period\n"
     "150:9 warning budget-no-period\n"
     "150:9 note priority-tie\n"
     "166:9 warning budget-no-period\n"
     "183:9 warning budget-no-period\n"
     "198:9 note default-budget\n"
     "198:9 warning passive-child\n"},
};

static const struct expected bad[] = {
    {"active_server.system",
     "4:5 warning active-server\n"},
    {"budget_no_period.system",
     "4:5 warning budget-no-period\n"},
    {"defaults.system",
     "4:5 note default-budget\n"
     "4:5 note default-priority\n"},
    {"min_budget.system",
     "4:5 error min-budget\n"},
    {"near_min_budget.system",
     "4:5 warning near-min-budget\n"},
    {"overload.system",
     "3:1 warning overload\n"},
    {"passive_child.system",
     "6:9 warning passive-child\n"},
    {"passive_no_calls.system",
     "4:5 warning passive-no-calls\n"},
    {"passive_smp.system",
     "4:5 warning passive-smp\n"},
    {"passive_unreachable.system",
     "4:5 warning passive-unreachable\n"},
    {"priority_tie.system",
     "7:5 note priority-tie\n"},
    {"server_stall.system",
     "11:9 warning server-stall\n"},
    {"vcpu_above.system",
     "7:13 warning vcpu-above\n"},
};

static const char *const severities[] = {"note", "warning", "error"};

/* The findings of `path` as LINE:COL SEVERITY CODE lines. */
static void lint_file(const char *path, uint32_t cores, const char *sidecar, struct strbuf *out)
{
    struct sdf_config cfg;
    struct sdf_system s;
    struct sdf_sidecar sc;
    struct sdf_lint l;
    struct diag d;

    sdf_config_default(&cfg);
    cfg.cores = cores;
    diag_init(&d);
    assert_int_equal(sdf_parse(path, &cfg, &s, &d), 0);
    if (sidecar)
        assert_int_equal(sdf_sidecar_read(sidecar, &s, &sc, &d), 0);
    else
        sdf_sidecar_empty(&sc);
    sdf_lint_run(&s, &cfg, &sc, &l);
    for (size_t i = 0; i < l.n; i++)
        sb_printf(out, "%u:%u %s %s\n", l.items[i].loc.line, l.items[i].loc.col,
                  severities[l.items[i].severity], l.items[i].code);
    sdf_lint_release(&l);
    sdf_sidecar_release(&sc);
    sdf_release(&s);
    diag_release(&d);
}

static void check(const struct expected *e, size_t n, const char *dir)
{
    for (size_t i = 0; i < n; i++) {
        char path[512], side[512];
        struct strbuf got = {0};
        snprintf(path, sizeof path, DIR "%s%s", dir, e[i].file);
        snprintf(side, sizeof side, "%s", path);
        strcpy(strstr(side, ".system"), ".mcsim.yaml");
        lint_file(path, strstr(e[i].file, "smp") ? (dir[0] == 'e' ? 4 : 2) : 1,
                  strstr(e[i].file, "server_stall") ? side : NULL, &got);
        if (strcmp(sb_str(&got), e[i].findings) != 0)
            fprintf(stderr, "%s:\n%s", e[i].file, sb_str(&got));
        assert_string_equal(sb_str(&got), e[i].findings);
        sb_release(&got);
    }
}

static void test_examples(void **state)
{
    (void)state;
    check(examples, sizeof examples / sizeof examples[0], "examples/");
}

/* Every lint of lint.h has its file, with that one finding. */
static void test_bad_files(void **state)
{
    static const char *const codes[] = {
        "min-budget", "near-min-budget", "budget-no-period", "default-budget",
        "default-priority", "overload", "passive-unreachable", "passive-no-calls",
        "active-server", "server-stall", "passive-child", "passive-smp", "priority-tie",
        "vcpu-above"};
    (void)state;
    check(bad, sizeof bad / sizeof bad[0], "bad/");
    for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++) {
        bool found = false;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            found |= strstr(bad[i].findings, codes[c]) != NULL;
        assert_true(found);
    }
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("sdf_lint");
}

/* Exit 0 with notes only, 1 with a warning, 2 for an invalid file; the
 * findings on standard output, Microkit's errors on standard error. */
static void test_command(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "bad/priority_tie.system", NULL), 0);
    assert_string_equal(
        spawn_out, DIR "bad/priority_tie.system:7:5: note: PDs 'a' and 'b' share priority 10 "
                       "on core 0: they take turns in round robin, so either may wait a whole "
                       "budget of the other before it runs [priority-tie]\n");
    assert_non_null(strstr(spawn_err, "warning: no sidecar"));
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "bad/min_budget.system", NULL), 1);
    assert_int_equal(spawn_mcsim("sdf", "lint", "--min-budget", "1us",
                                 DIR "bad/min_budget.system", NULL),
                     0);
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "microkit/ch_invalid_pd.system", NULL), 2);
    assert_string_equal(spawn_out, "");
    assert_non_null(strstr(spawn_err, "ch_invalid_pd.system:15:9: error: invalid PD name "
                                      "'invalidpd' on element 'end'"));
    assert_int_equal(spawn_mcsim("sdf", "lint", "nowhere.system", NULL), 2);
    assert_int_equal(workdir_count(), 0);
}

/* sdf init: a skeleton naming every PD, channel end (with its peer) and
 * interrupt, that lints and reads back; never overwritten. */
static void test_init(void **state)
{
    (void)state;
    static const char want[] = "pds:\n"
                               "  server:\n"
                               "    # criticality: lo\n"
                               "    # deadline: 1ms\n"
                               "    init: 0us\n"
                               "    notified:\n"
                               "      0: 0us   # notified by 'client' (its channel 0)\n"
                               "    protected:\n"
                               "      0: 0us   # called by 'client' (its channel 0)\n"
                               "    # channel 0: to 'client', may notify\n";
    char *text;
    size_t n;

    assert_int_equal(spawn_mcsim("sdf", "init", DIR "examples/microkit-passive_server.system",
                                 "-o", "side.yaml", NULL),
                     0);
    text = workdir_must_read("side.yaml", &n);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "duration: 1s\nseed: 0\nmin_budget: 20us\n"));
    assert_non_null(strstr(text, "      0: 0us   # notified by 'server' (its channel 0)\n"
                                 "    # channel 0: to 'server', may notify, may call (pp)\n"));
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "examples/microkit-passive_server.system",
                                 "--sidecar", "side.yaml", NULL),
                     0);
    assert_string_equal(spawn_err, "");
    assert_int_equal(spawn_mcsim("sdf", "init", DIR "examples/microkit-passive_server.system",
                                 "-o", "side.yaml", NULL),
                     2);
    assert_int_equal(workdir_count(), 1);
    remove(workdir_file("side.yaml"));
    free(text);
}

/* --arch x86_64: Microkit's x86 rules (an MSI interrupt accepted, on the
 * line of its vector; overlapping I/O ports at the later port); the ARM
 * default refuses the MSI interrupt; an unknown --arch is a usage error. */
static void test_arch_x86(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "microkit/pd_overlapping_x86_io_ports_2.system",
                                 "--arch", "x86_64", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "pd_overlapping_x86_io_ports_2.system:15:9: error: I/O port "
                                      "id: 0, half-open range: [0x3ff, 0x407) in protection "
                                      "domain: 'test2' overlaps with I/O port id: 0, half-open "
                                      "range: [0x3f8, 0x400) in protection domain: 'test1' (at "
                                      "10:9)\n"));
    assert_int_equal(spawn_mcsim("sdf", "export", DIR "microkit/irq_msi_pci_valid.system", "--arch",
                                 "x86_64", "-o", "x.yaml", NULL),
                     0);
    char *text = workdir_must_read("x.yaml", NULL);
    assert_non_null(strstr(text, "  irq_test1_0:   # interrupt 0 of PD 'test1'\n    irq: 0\n"));
    free(text);
    remove(workdir_file("x.yaml"));
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "microkit/irq_msi_pci_valid.system", NULL), 2);
    assert_non_null(strstr(spawn_err, "irq_msi_pci_valid.system:10:9: error: x86 MSI IRQ isn't "
                                      "supported on ARM and RISC-V"));
    assert_int_equal(spawn_mcsim("sdf", "lint", DIR "microkit/irq_msi_pci_valid.system", "--arch",
                                 "x86", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "--arch takes aarch64, riscv64 or x86_64, not 'x86'"));
    assert_int_equal(workdir_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_arch_x86),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
