/*
 * Running the `mcsim` binary (MCSIM_BIN, set by CTest) as a user runs it:
 * in the work directory of workdir.h, its standard output and error going
 * to <workdir>.out and <workdir>.err (outside, so the directory holds only
 * what mcsim wrote) and read back into spawn_out and spawn_err, truncated
 * to SPAWN_OUT_MAX - 1 bytes. A failure to start the child fails the
 * running test (cmocka).
 */
#ifndef MCSIM_TESTS_SPAWN_H
#define MCSIM_TESTS_SPAWN_H

#include <sys/types.h>

#define SPAWN_OUT_MAX (1 << 16)
#define SPAWN_MAX_ARGS 16

/* What the last command finished by spawn_finish printed. */
extern char spawn_out[SPAWN_OUT_MAX], spawn_err[SPAWN_OUT_MAX];

/*
 * Start `mcsim ARGS...` (args: at most SPAWN_MAX_ARGS, NULL-terminated)
 * and return at once with its pid: a test that must act while it runs
 * (interrupt it) calls spawn_finish itself.
 */
pid_t spawn_start(const char *const *args);

/*
 * Wait for `pid` and load its output into spawn_out and spawn_err.
 * Returns its exit status, or 128 + the signal that killed it.
 */
int spawn_finish(pid_t pid);

/* Run `mcsim ARGS...` (NULL-terminated) to the end; its exit status. */
int spawn_mcsim(const char *first, ...);

/*
 * Run `'$MCSIM_BIN' ARGS` through /bin/sh (ARGS from printf-like `fmt`,
 * quoted by the caller, may redirect standard output inside the work
 * directory) to the end; its exit status.
 */
int spawn_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a shell command (not mcsim) in the work directory; its exit status. */
int spawn_sh(const char *command);

#endif /* MCSIM_TESTS_SPAWN_H */
