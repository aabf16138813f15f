/*
 * mcsim sweep --slurm: the sweep as a Slurm job array (cli/sweep_int.h).
 * mcsim builds no scheduler of its own: it writes DIR/slurm/sweep.sbatch,
 * an array of K tasks each running `mcsim sweep SPEC --shard I/K -o
 * DIR/shards/I`, submits it with sbatch, and (unless --no-wait) waits for
 * it with `sbatch --wait` and merges the shards.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep_int.h"

/* `path` made absolute (the job runs in another directory). */
static int absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return snprintf(out, len, "%s", path) < (int)len ? 0 : -1;
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return snprintf(out, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

/* Single-quote `s` for sh. */
static void quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

static int write_script(const char *path, const struct sweep_spec *spec,
                        const struct sweep_args *a, const char *exe, const char *spec_abs,
                        const char *dir_abs)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "#!/bin/sh\n# Written by mcsim sweep --slurm: %u shards of %s\n", a->shards,
            spec->name);
    fprintf(f, "#SBATCH --job-name=mcsim-sweep-%s\n#SBATCH --array=0-%u\n", spec->name,
            a->shards - 1);
    fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    fprintf(f, "#SBATCH --output=%s/slurm/shard-%%a.log\n", dir_abs);
    if (a->partition)
        fprintf(f, "#SBATCH --partition=%s\n", a->partition);
    fputs("exec ", f);
    quoted(f, exe);
    fputs(" sweep ", f);
    quoted(f, spec_abs);
    fprintf(f, " --quiet --shard \"$SLURM_ARRAY_TASK_ID/%u\" -o ", a->shards);
    quoted(f, dir_abs);
    fputs("\"/shards/$SLURM_ARRAY_TASK_ID\"\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Run sbatch --parsable [--wait] SCRIPT; the job id into `id`. */
static int submit(const char *script, bool wait_, char *id, size_t len)
{
    int fd[2], status;
    pid_t pid;
    ssize_t r;
    size_t got = 0;
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        if (wait_)
            execlp("sbatch", "sbatch", "--parsable", "--wait", script, (char *)NULL);
        else
            execlp("sbatch", "sbatch", "--parsable", script, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    while (pid > 0 && got + 1 < len && (r = read(fd[0], id + got, len - 1 - got)) > 0)
        got += (size_t)r;
    id[got] = '\0';
    id[strcspn(id, ";\n")] = '\0';
    close(fd[0]);
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int sweep_slurm(const struct sweep_spec *spec, const struct sweep_args *a)
{
    char exe[PATH_MAX], spec_abs[PATH_MAX], dir_abs[PATH_MAX], slurm[PATH_MAX + 8],
        script[PATH_MAX + 32], id[64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int rc;
    if (n <= 0 || absolute(a->spec, spec_abs, sizeof spec_abs) != 0 ||
        absolute(a->dir, dir_abs, sizeof dir_abs) != 0) {
        fprintf(stderr, "mcsim: sweep: cannot name this program or the paths absolutely\n");
        return 3;
    }
    exe[n] = '\0';
    snprintf(slurm, sizeof slurm, "%s/slurm", dir_abs);
    if ((rc = sweep_mkdir(slurm)) != 0)
        return rc;
    snprintf(script, sizeof script, "%s/sweep.sbatch", slurm);
    if (write_script(script, spec, a, exe, spec_abs, dir_abs) != 0) {
        fprintf(stderr, "mcsim: %s: cannot write it: %s\n", script, strerror(errno));
        return 2;
    }
    rc = submit(script, !a->no_wait, id, sizeof id);
    if (rc == 127 || rc < 0) {
        fprintf(stderr, "mcsim: sweep: sbatch cannot be run (is Slurm installed and this a "
                        "submit host?)\n");
        return 2;
    }
    if (a->no_wait) {
        if (rc != 0)
            fprintf(stderr, "mcsim: sweep: sbatch refused %s\n", script);
        else
            printf("%s\n", id);
        return rc == 0 ? 0 : 2;
    }
    if (!a->quiet)
        fprintf(stderr, "mcsim: sweep: Slurm job %s ended%s; merging %u shards\n", id,
                rc == 0 ? "" : " with a failed task", a->shards);
    return sweep_merge_dir(dir_abs, a->quiet);
}
