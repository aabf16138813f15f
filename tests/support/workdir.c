/*
 * The work directory of tests/support/workdir.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "workdir.h"

static char dir[256];

/* Four, as a test may name a file or two on each side of a comparison. */
static const char *in_ring(const char *fmt, const char *a, const char *b)
{
    static char ring[4][600];
    static unsigned k;

    k = (k + 1) % 4;
    snprintf(ring[k], sizeof ring[k], fmt, a, b);
    return ring[k];
}

int workdir_create(const char *name)
{
    const char *tmp = getenv("TMPDIR");

    if (!getenv("MCSIM_BIN")) {
        print_message("MCSIM_BIN is not set: run this test through ctest\n");
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/mcsim-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    return mkdtemp(dir) ? 0 : -1;
}

const char *workdir_path(void)
{
    return dir;
}

const char *workdir_file(const char *name)
{
    return in_ring("%s/%s", dir, name);
}

const char *workdir_beside(const char *suffix)
{
    return in_ring("%s.%s", dir, suffix);
}

/* Remove what `path` holds; the directory itself stays. */
static void clear_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    struct stat sb;
    char sub[1024];

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            clear_tree(sub);
            rmdir(sub);
        } else {
            remove(sub);
        }
    }
    closedir(d);
}

void workdir_clear(void)
{
    assert_true(dir[0] != '\0');
    clear_tree(dir);
}

int workdir_empty(void **state)
{
    (void)state;
    workdir_clear();
    return 0;
}

int workdir_remove(void)
{
    if (dir[0] == '\0')
        return 0;
    clear_tree(dir);
    remove(workdir_beside("out"));
    remove(workdir_beside("err"));
    return rmdir(dir);
}

int workdir_teardown(void **state)
{
    (void)state;
    return workdir_remove();
}

size_t workdir_count(void)
{
    size_t n = 0;
    struct dirent *e;
    DIR *d = opendir(dir);

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

bool workdir_exists(const char *name)
{
    struct stat sb;

    return stat(workdir_file(name), &sb) == 0;
}

char *workdir_read_path(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

char *workdir_read(const char *name, size_t *len)
{
    return workdir_read_path(workdir_file(name), len);
}

char *workdir_must_read(const char *name, size_t *len)
{
    char *buf = workdir_read(name, len);

    if (!buf)
        fail_msg("cannot read %s", workdir_file(name));
    return buf;
}

void workdir_copy(const char *from, const char *to_name)
{
    char buf[4096];
    FILE *in = fopen(from, "rb"), *o = fopen(workdir_file(to_name), "wb");
    size_t n;

    assert_non_null(in);
    assert_non_null(o);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, o), n);
    fclose(in);
    fclose(o);
}

void workdir_write(const char *to_name, const char *text)
{
    FILE *f = fopen(workdir_file(to_name), "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}
