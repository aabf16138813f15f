/*
 * The private work directory of a test executable that runs the `mcsim`
 * binary: made empty at setup, named $TMPDIR/mcsim-test-NAME-XXXXXX (or
 * under /tmp), removed at teardown with the files beside it
 * (<workdir>.out, <workdir>.err, where spawn.h keeps what mcsim printed,
 * so that a command leaves the directory itself as it found it). One per
 * process; every function fails the running test (cmocka) on an I/O
 * error it does not report.
 */
#ifndef MCSIM_TESTS_WORKDIR_H
#define MCSIM_TESTS_WORKDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Make the directory for test `name`, once, from a group setup. Returns 0,
 * or -1 (with a message) if MCSIM_BIN is unset (the test was not started
 * by CTest) or the directory cannot be made.
 */
int workdir_create(const char *name);

/* The directory's path, valid once workdir_create succeeded. */
const char *workdir_path(void);

/*
 * "<workdir>/name". The result lives in one of four static buffers, so up
 * to four may be held at once.
 */
const char *workdir_file(const char *name);

/* "<workdir>.suffix", beside the directory; the same four buffers. */
const char *workdir_beside(const char *suffix);

/* Remove everything inside the directory, subdirectories too. */
void workdir_clear(void);

/* A cmocka setup for one test: workdir_clear(), returns 0. */
int workdir_empty(void **state);

/* Remove the directory, all it holds and the files beside it; 0 or -1. */
int workdir_remove(void);

/* workdir_remove() as a cmocka group teardown. */
int workdir_teardown(void **state);

/* How many entries the directory holds (none: a command wrote nothing). */
size_t workdir_count(void);

/* True if workdir/name exists. */
bool workdir_exists(const char *name);

/*
 * The bytes of `path` (any path), malloc'd and NUL-terminated; their
 * number in *len if len is not NULL. NULL if it cannot be read.
 */
char *workdir_read_path(const char *path, size_t *len);

/* workdir_read_path(workdir_file(name), len). */
char *workdir_read(const char *name, size_t *len);

/* workdir_read, failing the test if the file cannot be read. */
char *workdir_must_read(const char *name, size_t *len);

/*
 * Copy `from` (any path) to workdir/to_name, or write `text` there: the
 * scenario a test runs.
 */
void workdir_copy(const char *from, const char *to_name);
void workdir_write(const char *to_name, const char *text);

#endif /* MCSIM_TESTS_WORKDIR_H */
