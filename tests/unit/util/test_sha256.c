/*
 * cli/sha256: the FIPS 180-4 test vectors, whole and fed in pieces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/sha256.h"

static void check(const char *text, const char *hex)
{
    uint8_t digest[SHA256_BYTES];
    char got[2 * SHA256_BYTES + 1];
    sha256_digest(text, strlen(text), digest);
    sha256_hex(digest, got);
    assert_string_equal(got, hex);
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    check("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
          "klmnopqrlmnopqrsmnopqrstnopqrstu",
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* One million 'a', fed in uneven pieces across block boundaries. */
static void test_sha256_incremental(void **state)
{
    (void)state;
    static char chunk[997];
    struct sha256 h;
    uint8_t digest[SHA256_BYTES];
    char got[2 * SHA256_BYTES + 1];
    size_t left = 1000000;
    memset(chunk, 'a', sizeof chunk);
    sha256_init(&h);
    while (left > 0) {
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        sha256_update(&h, chunk, n);
        left -= n;
    }
    sha256_final(&h, digest);
    sha256_hex(digest, got);
    assert_string_equal(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_sha256_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
