/*
 * splitmix64 and xoshiro256**, from their published descriptions (see
 * rng.h). Only uint64_t arithmetic, so the ARM image links it as it is.
 */
#include "rng.h"

#include <stddef.h>

/* splitmix64's increment: 2^64 divided by the golden ratio, odd. */
#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15u

#define FNV64_OFFSET 0xcbf29ce484222325u
#define FNV64_PRIME 0x100000001b3u

static uint64_t rotl64(uint64_t x, unsigned k)
{
    return (x << k) | (x >> (64u - k));
}

/* splitmix64's output function: two xor-shift-multiply rounds (Stafford's
 * "Mix13" constants) that spread every input bit over the whole word. */
static uint64_t splitmix_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* One splitmix64 step: a Weyl sequence through the output function. */
static uint64_t splitmix_next(uint64_t *state)
{
    *state += SPLITMIX_GAMMA;
    return splitmix_mix(*state);
}

uint64_t rng_fnv1a64(const char *text)
{
    uint64_t h = FNV64_OFFSET;

    for (const unsigned char *p = (const unsigned char *)text; *p != 0; p++) {
        h ^= *p;
        h *= FNV64_PRIME;
    }
    return h;
}

/*
 * The xoshiro authors recommend filling the state from splitmix64: its
 * outputs are a bijection of consecutive counter values, so four of them
 * are never all zero (the one state xoshiro cannot leave).
 */
void rng_seed(struct rng *r, uint64_t seed)
{
    uint64_t sm = seed;

    for (size_t i = 0; i < 4; i++)
        r->s[i] = splitmix_next(&sm);
}

/*
 * The name's hash goes through the mixer before it meets the seed, so that
 * seeds and names that differ in a few low bits (seed 1 vs 2, "device:a"
 * vs "device:b") do not cancel each other out in the XOR.
 */
void rng_seed_stream(struct rng *r, uint64_t seed, const char *stream_name)
{
    rng_seed(r, seed ^ splitmix_mix(rng_fnv1a64(stream_name)));
}

/* xoshiro256**: the "**" scrambler (rotate, multiply by 5 then 9) on s[1],
 * then the linear xorshift update of the 256-bit state. */
uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

/*
 * For n = hi - lo + 1 values, 2^64 splits into floor(2^64 / n) whole blocks
 * of n and a remainder of 2^64 mod n values. Rejecting the draws below that
 * remainder leaves a multiple of n equally likely draws, which x mod n maps
 * evenly onto [0, n). 2^64 mod n is computed as (2^64 - n) mod n, i.e.
 * (-n) mod n in uint64_t, since 2^64 itself does not fit.
 */
uint64_t rng_uniform(struct rng *r, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return lo;
    uint64_t span = hi - lo;
    if (span == UINT64_MAX)
        return rng_next(r);
    uint64_t n = span + 1;
    uint64_t reject_below = (0u - n) % n;
    uint64_t x;
    do {
        x = rng_next(r);
    } while (x < reject_below);
    return lo + x % n;
}
