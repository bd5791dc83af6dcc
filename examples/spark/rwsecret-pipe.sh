#!/bin/sh
# The RDD.pipe launcher of decrypt_table.py --engine pipe: rows on stdin, one JSON record per
# input line on stdout (rwsecret decrypt --in-band --id-column).
#
# RDD.pipe starts this script with the environment the driver gave it (env=…, which replaces
# the whole environment): RWSECRET_BIN (the rwsecret binary), RWSECRET_JOBS, and
# RWSECRET_PIPE_PASSWORDS (password lines, LABEL<TAB>SECRET or SECRET). The passwords are
# taken out of the environment here and written into a pipe that rwsecret reads as
# --password-fd 3, so rwsecret's own environment and command line never hold them. They are
# in this shell's environment for the few milliseconds before that (readable through /proc by
# the same user only): mapInPandas (the default engine) avoids even that.
set -eu
passwords=${RWSECRET_PIPE_PASSWORDS-}
unset RWSECRET_PIPE_PASSWORDS
bin=${RWSECRET_BIN:-rwsecret}
# printf is a shell builtin: the passwords are on no command line. The rows stay on fd 4
# while the pipe of passwords becomes fd 3.
exec 4<&0
printf '%s\n' "$passwords" | {
    exec "$bin" decrypt --in-band --id-column --no-store --quiet --password-fd 3 3<&0 0<&4 4<&-
}
