/*
 * libFuzzer target: the replay of a QEMU run (cli/qemu_run.h's trace
 * decoding, then sim/replay.h) on records the image never wrote. The
 * input is a list of records, each a type byte and then its payload (the
 * type's fixed length; a FAIL's text has a length byte first): the target
 * frames them with good CRCs, so that mutations reach the decoder and the
 * replay rather than stop at the checksum. The trace is then taken as
 * `mcsim qemu` takes it: refused when qemu_trace_problem says so, else
 * replayed against a fixed scenario (a device, an interrupt handler, a
 * passive server and its client) with the HELLO's tick rate. Replay may
 * refuse any record; it may not crash, leak or reach undefined
 * behaviour.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "util/diag.h"
#include "engine.h"
#include "load/load.h"
#include "null_sink.h"
#include "qemu/frame.h"
#include "qemu/qemu_run.h"
#include "replay.h"

static const char scenario_yaml[] =
    "mcsim: 1\n"
    "name: replayed\n"
    "duration: 1ms\n"
    "criticality: [lo, hi]\n"
    "endpoints: [req]\n"
    "notifications: [rx]\n"
    "devices:\n"
    "  nic: {irq: 33, notification: rx, arrivals: {periodic: 100us}}\n"
    "threads:\n"
    "  handler:\n"
    "    {priority: 200, criticality: hi, budget: 100us, period: 1ms,\n"
    "     program: [{loop: [{wait: rx}, {irq_ack: nic}, {call: req}]}]}\n"
    "  server:\n"
    "    {priority: 150, criticality: hi, passive: true,\n"
    "     program: [{loop: [{recv: req}, {compute: 10us}, reply]}]}\n"
    "  worker:\n"
    "    {priority: 100, criticality: lo, budget: 1ms, period: 1ms, program: [{compute: 1ms}]}\n";

static struct scenario scenario;


int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct diag d;
    (void)argc;
    (void)argv;
    diag_init(&d);
    if (load_scenario_text("replayed.yaml", scenario_yaml, sizeof scenario_yaml - 1,
                           &scenario, &d) != 0) {
        diag_print(&d, stderr);
        abort();
    }
    diag_release(&d);
    return 0;
}

/* Frame the records of data[0..size) into out (room for a frame of the
 * largest payload per input byte); returns the bytes written. */
static size_t frame_records(const uint8_t *data, size_t size, uint8_t *out)
{
    size_t pos = 0, n = 0;
    while (pos < size) {
        uint8_t type = data[pos++] % WIRE_TYPE_COUNT, *f = out + n;
        size_t len, have;
        if (type == 0)
            type = WIRE_ENTRY; /* 0 is no type: the commonest record instead */
        len = type != WIRE_FAIL ? (size_t)frame_payload_len(type) : pos < size ? data[pos++] : 0;
        have = size - pos < len ? size - pos : len;
        f[0] = WIRE_SYNC0;
        f[1] = WIRE_SYNC1;
        f[2] = type;
        f[3] = (uint8_t)len;
        memset(f + 4, 0, len);
        memcpy(f + 4, data + pos, have);
        pos += have;
        uint32_t crc = crc32_update(0, f + 2, 2u + len);
        for (int i = 0; i < 4; i++)
            f[4 + len + i] = (uint8_t)(crc >> (8 * i));
        n += WIRE_OVERHEAD + len;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* each record of k >= 1 input bytes makes at most 8 + 255 bytes */
    uint8_t *uart = malloc(size * (WIRE_OVERHEAD + WIRE_MAX_PAYLOAD) + 1);
    struct qemu_trace t;
    struct eng_result r;

    memset(&t, 0, sizeof t);
    if (!uart)
        return 0;
    if (qemu_trace_decode(&t, uart, frame_records(data, size, uart)) == 0 &&
        !qemu_trace_problem(&t, t.hello.u.hello.blob_crc)) {
        struct eng_options o = {
            .seed = scenario.seed,
            .duration = scenario.duration,
            .scheduler = scenario.scheduler,
            .trace_full = true,
            .sink = null_sink(),
            .version = "fuzz",
        };
        replay_run(&scenario, &o, "qemu", t.hello.u.hello.tick_hz, t.recs, t.n, &r);
    }
    qemu_trace_release(&t);
    free(uart);
    return 0;
}
