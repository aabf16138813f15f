#!/bin/sh
# readme.using_it: the commands of README "Using it" run top to bottom as
# a user of a fresh clone runs them: in an empty directory holding only
# the clone's scenarios/ and tests/ (links to the source tree), with
# build/default/mcsim this build's binary. Every command exits 0, or the
# status its comment announces ("exit 1: ..."); every file it names is
# tracked by git (so it exists in a clone); whatever the commands write
# is covered by .gitignore. The QEMU commands, set apart after "These two
# need the QEMU image", are not run here (tests/qemu.cmake runs them).
# Usage: readme_using_it.sh MCSIM SOURCE_DIR WORK_DIR
set -u
MCSIM=$1 SRC=$2 WORK=$3
fail() { echo "readme.using_it: $*" >&2; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK/build/default" || fail "cannot make $WORK"
ln -s "$SRC/scenarios" "$WORK/scenarios" && ln -s "$SRC/tests" "$WORK/tests" &&
    ln -s "$MCSIM" "$WORK/build/default/mcsim" || fail "cannot link into $WORK"

# The indented commands of the first block of "## Using it".
sed -n '/^## Using it/,/^## /p' "$SRC/README.md" |
    sed '/QEMU image/,$d' | grep '^    build/default/mcsim ' > "$WORK/../using_it.txt"
n=$(wc -l < "$WORK/../using_it.txt")
[ "$n" -ge 15 ] || fail "found only $n commands in README 'Using it'"

git -C "$SRC" rev-parse 2>/dev/null && tracked=1 || tracked=0
cd "$WORK" || fail "cd $WORK"
i=0
while IFS= read -r line; do
    i=$((i + 1))
    cmd=${line%%  #*}
    case $line in
    *"# "*"(exit "[0-9]*) want=$(echo "$line" | sed 's/.*(exit \([0-9]*\).*/\1/') ;;
    *) want=0 ;;
    esac
    # the files it reads exist in a clone: tracked by git
    for word in $cmd; do
        case $word in
        scenarios/*|tests/*)
            [ $tracked = 0 ] || [ -n "$(git -C "$SRC" ls-files -- "$word")" ] ||
                fail "command $i reads $word, which a clone does not have: $cmd" ;;
        esac
    done
    # shellcheck disable=SC2086 # the README's words, globs included
    sh -c "$cmd" > out.$i.txt 2> err.$i.txt
    got=$?
    [ "$got" = "$want" ] || { cat err.$i.txt >&2; fail "command $i exited $got, not $want: $cmd"; }
    rm -f out.$i.txt err.$i.txt
done < "$WORK/../using_it.txt"

# what they wrote is ignored by git
for f in * .[!.]*; do
    [ -e "$f" ] || continue
    case $f in scenarios|tests|build) continue ;; esac
    [ -d "$f" ] && f=$f/
    git -C "$SRC" check-ignore -q --no-index "$f" || [ $tracked = 0 ] ||
        fail "the commands wrote $f, which .gitignore does not cover"
done
echo "readme.using_it: $n commands ran as README 'Using it' says"
