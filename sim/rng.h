/*
 * Deterministic random numbers for the simulated world: xoshiro256**
 * (Blackman and Vigna, "Scrambled linear pseudorandom number generators",
 * 2018) seeded through splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", 2014), written here from those
 * descriptions.
 *
 * Every random choice of a run comes from a stream named after its source
 * ("device:net", ...), derived from the scenario's seed and the name alone
 * (docs/scenario-format.md, Principles: deterministic), so adding a thread or a
 * device never changes another source's draws. The output depends only on
 * 64-bit integer arithmetic: the same seed and name give the same numbers
 * on every machine and in the ARM image (no libc is used).
 */
#ifndef MCSIM_SIM_RNG_H
#define MCSIM_SIM_RNG_H

#include <stdint.h>

/* The xoshiro256** state; never all zero once seeded. */
struct rng {
    uint64_t s[4];
};

/* The 64-bit FNV-1a hash of the NUL-terminated `text` (offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3). Exposed so that tests and tools
 * can derive the same stream identity. */
uint64_t rng_fnv1a64(const char *text);

/* Seed `r` directly from `seed`: its state is the first four outputs of
 * splitmix64 started at `seed`. Any seed, including 0, is valid. */
void rng_seed(struct rng *r, uint64_t seed);

/* Seed `r` as the stream `stream_name` of the run seeded with `seed`: as
 * rng_seed() on seed XOR mix(rng_fnv1a64(stream_name)), mix being
 * splitmix64's output function. Two streams of one run differ whenever their
 * names differ; a stream does not depend on which other streams exist.
 * `stream_name` must be a NUL-terminated string. */
void rng_seed_stream(struct rng *r, uint64_t seed, const char *stream_name);

/* The next 64 uniformly distributed bits of the stream; advances it. */
uint64_t rng_next(struct rng *r);

/* A uniformly distributed integer in [lo, hi], both included, without
 * modulo bias: draws that fall in the incomplete last block of the 2^64
 * range are rejected and redrawn (at most one in two on average, so the
 * expected number of draws is below 2). hi - lo may be UINT64_MAX (then one
 * draw is returned as it is). lo == hi returns lo without drawing. The
 * caller guarantees lo <= hi (the loader checks min <= max); lo > hi
 * returns lo without drawing. */
uint64_t rng_uniform(struct rng *r, uint64_t lo, uint64_t hi);

#endif /* MCSIM_SIM_RNG_H */
