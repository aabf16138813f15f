/*
 * What identifies this build of mcsim: the project version plus the
 * commit it was built from (and a hash of the sources when they differ
 * from that commit), or a hash of the sources where there is no git
 * (cmake/build_version.cmake writes it at every build). Recorded in
 * runs.version and printed by `mcsim --version`, so that two runs'
 * "same file, seed and version" can be told from the database.
 */
#ifndef MCSIM_CLI_VERSION_H
#define MCSIM_CLI_VERSION_H

extern const char mcsim_build_version[];

#endif /* MCSIM_CLI_VERSION_H */
