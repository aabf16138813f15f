/*
 * What the `mcsim export` tests share (tests/unit/export/): the scenario
 * recorded twice under an odd file name (run 1 classic, run 2 mcs) in the
 * work directory as t.db, running mcsim there, reading its JSON back.
 */
#ifndef MCSIM_TESTS_EXPORT_FX_H
#define MCSIM_TESTS_EXPORT_FX_H

#include "json.h"

#define EXPORT_SCENARIO MCSIM_SOURCE_DIR "/tests/data/export/donation.yaml"

/* A file name with a quote, a comma and a newline: the scenario's name
 * (its stem) and path must survive both formats' quoting. */
#define ODD_NAME "we\"ird,na\nme"

/* Run `mcsim ARGS` in the work directory, standard output to out.txt;
 * returns the exit status, standard error in spawn_err. */
int export_run(const char *args);

/* The work directory `name` holding t.db: run 1 classic, run 2 mcs of
 * EXPORT_SCENARIO copied as ODD_NAME.yaml (a cmocka group setup). */
int export_setup(const char *name);

/* The strict JSON object in file `name` of the work directory (fails the
 * test if it is not one). */
struct json *export_json_file(const char *name);

#endif /* MCSIM_TESTS_EXPORT_FX_H */
