/*
 * SHA-256 (FIPS 180-4), to record which exact scenario file a run used.
 * Small and dependency-free: a scenario file is read whole, then hashed.
 */
#ifndef MCSIM_CLI_SHA256_H
#define MCSIM_CLI_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

/* An incremental hash: sha256_init, any number of sha256_update, then
 * sha256_final. Plain data; needs no release. */
struct sha256 {
    uint32_t state[8];
    uint64_t length; /* bytes hashed so far */
    uint8_t block[64];
    size_t used; /* bytes waiting in `block` */
};

/* Start a new hash in `h`. */
void sha256_init(struct sha256 *h);

/* Add `len` bytes at `data` (may be NULL when len is 0). */
void sha256_update(struct sha256 *h, const void *data, size_t len);

/* Finish and write the digest; `h` must be re-initialised to be reused. */
void sha256_final(struct sha256 *h, uint8_t out[SHA256_BYTES]);

/* The digest of `len` bytes at `data`, in one call. */
void sha256_digest(const void *data, size_t len, uint8_t out[SHA256_BYTES]);

/* Write the digest as 64 lower-case hex digits and a NUL into `hex`. */
void sha256_hex(const uint8_t digest[SHA256_BYTES], char hex[2 * SHA256_BYTES + 1]);

#endif /* MCSIM_CLI_SHA256_H */
