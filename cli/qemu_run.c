/*
 * Spawning QEMU with a time limit (qemu_run.h). The UART goes to a file
 * (`-serial file:`) so that the binary frames arrive byte for byte; QEMU's
 * own messages go to another file, shown when the run fails.
 */
#define _POSIX_C_SOURCE 200809L
#include "qemu_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int qemu_find_program(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    struct stat st;

    if (strchr(name, '/')) {
        if (stat(name, &st) != 0 || !(st.st_mode & S_IXUSR))
            return -1;
        snprintf(buf, len, "%s", name);
        return 0;
    }
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(buf, len, "%.*s/%s", (int)n, p, name);
        if (n > 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR))
            return 0;
        p += n + (colon != NULL);
    }
    return -1;
}

static _Noreturn void child(const struct qemu_job *job)
{
    char serial[4200], loader[4200];
    int null = open("/dev/null", O_RDONLY);
    int log = open(job->qemu_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    snprintf(serial, sizeof serial, "file:%s", job->uart_log);
    snprintf(loader, sizeof loader, "loader,file=%s,addr=%s,force-raw=on", job->blob,
             QEMU_BLOB_ADDR);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
    }
    char *argv[] = {(char *)job->qemu, "-M", "virt", "-cpu", "cortex-a53", "-m", "256M",
                    "-display", "none", "-monitor", "none", "-nic", "none", "-serial", serial,
                    "-semihosting", "-icount", "shift=0,align=off,sleep=off", "-kernel",
                    (char *)job->image, "-device", loader, NULL};
    execv(job->qemu, argv);
    fprintf(stderr, "mcsim: qemu: cannot run %s: %s\n", job->qemu, strerror(errno));
    _exit(127);
}

int qemu_run(const struct qemu_job *job, struct qemu_outcome *out, char *err, size_t errlen)
{
    double start = now_s();
    int wstatus = 0;
    pid_t pid, done;

    memset(out, 0, sizeof *out);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "mcsim: qemu: cannot start QEMU: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        child(job);
    for (;;) {
        done = waitpid(pid, &wstatus, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            snprintf(err, errlen, "mcsim: qemu: waiting for QEMU: %s", strerror(errno));
            return -1;
        }
        if (now_s() - start > job->timeout_s) {
            out->timed_out = true;
            kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
    out->seconds = now_s() - start;
    out->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    return 0;
}
