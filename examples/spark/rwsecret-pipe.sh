#!/bin/sh
# The RDD.pipe launcher of decrypt_table.py --engine pipe: rows on stdin, one JSON record per
# input line on stdout (rwsecret decrypt --in-band --id-column).
#
# stdin: first one line `RWSECRET-PASSWORDS <base64>`, the password lines (LABEL<TAB>SECRET
# or SECRET) as base64, then the rows. RDD.pipe starts this script with the environment the
# driver gave it (env=…, which replaces the whole environment): RWSECRET_BIN (the rwsecret
# binary) and RWSECRET_JOBS (read by rwsecret), never a password. The passwords are never in
# an environment or on a command line, where any process of the same user could read them
# through /proc or ps: this shell reads the first line into a variable (its own memory, as
# mapInPandas's Python worker holds them) and hands them to rwsecret through a pipe, read as
# --password-fd 3.
set -eu
if [ -n "${RWSECRET_PIPE_PASSWORDS+set}" ]; then
    # What the launcher read before: in its environment, it was readable in /proc/PID/environ
    # for the whole partition.
    echo "rwsecret-pipe.sh: RWSECRET_PIPE_PASSWORDS is not read (an environment is readable by" \
         "every process of the user): give the passwords as the first line of stdin," \
         "RWSECRET-PASSWORDS <base64>" >&2
    exit 64
fi
bin=${RWSECRET_BIN:-rwsecret}
# `read` takes exactly one line off the pipe (one byte at a time), leaving the rows to rwsecret.
if ! IFS= read -r header || [ "${header#RWSECRET-PASSWORDS }" = "$header" ]; then
    echo "rwsecret-pipe.sh: stdin must start with the line RWSECRET-PASSWORDS <base64 of the password lines>" >&2
    exit 64
fi
# printf is a builtin: the passwords are on no command line. The rows stay on fd 4 while the
# pipe of passwords becomes rwsecret's fd 3 (its stdin is the rest of this script's stdin).
exec 4<&0
printf '%s\n' "${header#RWSECRET-PASSWORDS }" | base64 -d | {
    exec "$bin" decrypt --in-band --id-column --no-store --quiet --password-fd 3 3<&0 0<&4 4<&-
}
