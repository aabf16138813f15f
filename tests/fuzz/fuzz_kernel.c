/*
 * libFuzzer target: random invocations against the kernel (issue 19).
 * The input is a stream of choices read by tests/support's kfuzz
 * generator (kfuzz.h): its first byte picks the scheduler (odd: classic),
 * then for every system call the input picks, 8 bytes a choice
 * (little-endian, modulo the number of options; past the end, 0), the
 * capability slot, the label, the message registers and the extra caps;
 * which thread makes it is the kernel's decision. Five workers with
 * CSpaces of their own and the root task waking them; the invariant
 * checker runs after every kernel entry (a broken invariant or a kernel
 * panic aborts: CMOCKA_TEST_ABORT), and a sentinel thread or context that
 * changed without a capability allowing it aborts too.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mcsim/bootinfo.h>

#include "kfuzz.h"

struct input {
    const uint8_t *data;
    size_t size, at;
};

static uint64_t next_draw(void *ctx, uint64_t n)
{
    struct input *in = ctx;
    uint64_t v = 0;

    for (unsigned i = 0; i < 8; i++, in->at++)
        v |= (uint64_t)(in->at < in->size ? in->data[in->at] : 0) << (8 * i);
    return n == UINT64_MAX ? v : v % n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CMOCKA_TEST_ABORT", "1", 1); /* a failed check aborts: a crash */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, 1};
    struct kfuzz_src src = {next_draw, &in};
    struct kfuzz_stats st = {0};
    const char *what = NULL;

    if (size < 1)
        return 0;
    kfuzz_setup(data[0] & 1 ? SCHED_CLASSIC : SCHED_MCS);
    while (in.at < in.size && st.calls < 4096) {
        kfuzz_step(&src, &st);
        if (!kfuzz_sentinel_intact(&what)) {
            fprintf(stderr, "fuzz_kernel: %s changed without a capability\n", what);
            abort();
        }
    }
    return 0;
}
