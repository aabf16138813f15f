/*
 * mcsim_fuzz_seeds: makes the seed corpora of the targets whose inputs
 * are not YAML, from real inputs (run by hand; the corpora are committed):
 *
 *   mcsim_fuzz_seeds blob DIR SCENARIO...   each scenario's blob (as
 *                                           `mcsim qemu` writes it) in DIR
 *   mcsim_fuzz_seeds replay DIR UART...     each QEMU UART output (kept by
 *                                           `mcsim qemu --keep`) as
 *                                           fuzz_replay's records: a type
 *                                           byte, then the payload
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "util/diag.h"
#include "qemu/frame.h"
#include "load/load.h"

static const char *stem(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int write_file(const char *dir, const char *name, const char *ext, const void *buf,
                      size_t n)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    if (!(f = fopen(path, "wb")) || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    printf("%s: %zu bytes\n", path, n);
    return 0;
}

static int blob_seed(const char *dir, const char *yaml)
{
    struct diag d;
    struct scenario s;
    int rc = 1;
    diag_init(&d);
    if (load_scenario(yaml, &s, &d) == 0) {
        size_t n = blob_encode(&s, 0, NULL, 0);
        uint8_t *buf = malloc(n);
        if (buf) {
            blob_encode(&s, 0, buf, n);
            rc = write_file(dir, stem(yaml), ".blob", buf, n);
        }
        free(buf);
        scenario_release(&s);
    }
    diag_print(&d, stderr);
    diag_release(&d);
    return rc;
}

static int replay_seed(const char *dir, const char *uart)
{
    FILE *f = fopen(uart, "rb");
    uint8_t *in = malloc(BLOB_MAX_BYTES), *out = malloc(BLOB_MAX_BYTES);
    size_t n = 0, m = 0;
    struct frame_reader r;
    struct frame fr;
    int rc = 1;
    if (f && in && out) {
        n = fread(in, 1, BLOB_MAX_BYTES, f);
        frame_reader_init(&r, in, n);
        while (frame_next(&r, &fr)) {
            out[m++] = fr.type;
            if (fr.type == WIRE_FAIL)
                out[m++] = fr.len;
            memcpy(out + m, fr.payload, fr.len);
            m += fr.len;
        }
        rc = write_file(dir, stem(uart), ".records", out, m);
    }
    if (f)
        fclose(f);
    free(in);
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc < 4 || (strcmp(argv[1], "blob") != 0 && strcmp(argv[1], "replay") != 0)) {
        fprintf(stderr, "usage: mcsim_fuzz_seeds blob|replay DIR FILE...\n");
        return 2;
    }
    for (int i = 3; i < argc; i++)
        rc |= strcmp(argv[1], "blob") == 0 ? blob_seed(argv[2], argv[i])
                                           : replay_seed(argv[2], argv[i]);
    return rc;
}
