/*
 * The sidecar of a Microkit system (system.mcsim.yaml): what the .system
 * file does not say and a simulation needs, every key optional. Per PD:
 * the work of init, notified(ch) and protected(ch) (fixed or {min, max})
 * and what each handler does next (notify or call a channel, acknowledge
 * an interrupt), criticality and deadline; per interrupt its arrivals;
 * the platform, MIN_BUDGET, cores, duration, seed, expectations. Values
 * that are scenario values (durations, arrivals, platform, expectations)
 * are kept as YAML text and checked again when the scenario is loaded.
 */
#ifndef MCSIM_SDF_SIDECAR_H
#define MCSIM_SDF_SIDECAR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"
#include "sdf/sdf.h"

#define SDF_CHANNELS 62u

enum sdf_then_kind { THEN_NOTIFY, THEN_CALL, THEN_ACK };

struct sdf_then {
    enum sdf_then_kind kind;
    uint32_t ch;
    struct sdf_loc loc;
};

/* A handler: its work (YAML text: a duration or {min: .., max: ..}; NULL
 * = none) and what it does next. */
struct sdf_handler {
    bool present;
    char *work;
    uint64_t work_max_ns; /* the largest work, for the lint */
    struct sdf_then *then;
    size_t n_then;
    struct sdf_loc loc;
};

struct sdf_side_pd {
    char *name;
    struct sdf_loc loc;
    char *criticality;  /* NULL: the lowest level */
    char *deadline;     /* NULL: none */
    struct sdf_handler init;
    struct sdf_handler notified[SDF_CHANNELS];
    struct sdf_handler protected_[SDF_CHANNELS];
    char *arrivals[SDF_CHANNELS]; /* per interrupt channel id: YAML text of its arrivals */
};

struct sdf_sidecar {
    char *path;
    bool present;          /* a file was read */
    char *platform;        /* YAML text, NULL: defaults */
    char *criticality;     /* YAML text of the levels, NULL: [lo, hi] */
    char *duration;        /* NULL: 1s */
    char *seed;            /* NULL: 0 */
    char *expect;          /* YAML text, NULL: none */
    uint64_t min_budget_ns;/* 20us unless given */
    uint32_t cores;        /* 0: not given */
    int32_t core;          /* -1: not given */
    struct sdf_side_pd *pds;
    size_t n_pds;
};

/* Read the sidecar at `path`, checking its keys against system `s`
 * (every PD, channel and interrupt it names must exist). Returns 0, or -1
 * with every error in `d`. */
int sdf_sidecar_read(const char *path, const struct sdf_system *s, struct sdf_sidecar *out,
                     struct diag *d);

/* An empty sidecar: zero work, no arrivals, defaults. */
void sdf_sidecar_empty(struct sdf_sidecar *out);

void sdf_sidecar_release(struct sdf_sidecar *sc);

/* The sidecar's entry for PD `name`, or NULL. */
const struct sdf_side_pd *sdf_sidecar_pd(const struct sdf_sidecar *sc, const char *name);

/* Write a skeleton sidecar for `s`: every PD, channel end (with the peer's
 * name) and interrupt, zero work. Returns 0 or -1 (errno). */
int sdf_sidecar_skeleton(const struct sdf_system *s, FILE *f);

#endif /* MCSIM_SDF_SIDECAR_H */
