/*
 * The child processes of tests/support/spawn.h: one fork and exec for
 * mcsim's arguments and for shell command lines alike.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "spawn.h"
#include "workdir.h"

char spawn_out[SPAWN_OUT_MAX], spawn_err[SPAWN_OUT_MAX];

/* Read all of `path` into `buf` (NUL-terminated, truncated to len - 1). */
static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;

    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Start argv (argv[0] a path) in the work directory, output beside it. */
static pid_t start_argv(const char *const *argv)
{
    char out_path[600], err_path[600];
    pid_t pid;

    snprintf(out_path, sizeof out_path, "%s", workdir_beside("out"));
    snprintf(err_path, sizeof err_path, "%s", workdir_beside("err"));
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if (o < 0 || e < 0 || chdir(workdir_path()) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

pid_t spawn_start(const char *const *args)
{
    const char *argv[SPAWN_MAX_ARGS + 2];
    int n = 0;

    argv[n++] = getenv("MCSIM_BIN");
    assert_non_null(argv[0]);
    for (; *args != NULL; args++) {
        assert_true(n < SPAWN_MAX_ARGS + 1);
        argv[n++] = *args;
    }
    argv[n] = NULL;
    return start_argv(argv);
}

int spawn_finish(pid_t pid)
{
    int st;

    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    slurp(workdir_beside("out"), spawn_out, sizeof spawn_out);
    slurp(workdir_beside("err"), spawn_err, sizeof spawn_err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int spawn_mcsim(const char *first, ...)
{
    const char *args[SPAWN_MAX_ARGS + 1];
    va_list ap;
    int n = 0;

    va_start(ap, first);
    for (const char *a = first; a != NULL; a = va_arg(ap, const char *)) {
        assert_true(n < SPAWN_MAX_ARGS);
        args[n++] = a;
    }
    va_end(ap);
    args[n] = NULL;
    return spawn_finish(spawn_start(args));
}

int spawn_sh(const char *command)
{
    const char *argv[] = {"/bin/sh", "-c", command, NULL};

    return spawn_finish(start_argv(argv));
}

int spawn_shell(const char *fmt, ...)
{
    const char *bin = getenv("MCSIM_BIN");
    char args[2048], line[4096];
    va_list ap;
    int n;

    assert_non_null(bin);
    va_start(ap, fmt);
    n = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof args);
    n = snprintf(line, sizeof line, "'%s' %s", bin, args);
    assert_true(n >= 0 && (size_t)n < sizeof line);
    return spawn_sh(line);
}
