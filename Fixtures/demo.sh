#!/usr/bin/env bash
# `make demo`: put the three demo passwords into a vault in a temporary folder with
# `rwsecret password add`, then decrypt Fixtures/messages.txt. Succeeds when the
# secrets come out as Fixtures/messages.expected says and the only failures are
# the file's intentionally bad lines (Fixtures/messages.bad: "LINE: REASON").
set -euo pipefail
bin=${1:?usage: demo.sh PATH-TO-rwsecret}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A throw-away vault; the demo never touches your keyring or your own vault.
unset RWSECRET_STORE RWSECRET_PASSWORD DBUS_SESSION_BUS_ADDRESS
export RWSECRET_VAULT="$tmp/vault"
export RWSECRET_VAULT_PASSPHRASE="demo vault passphrase"   # demo only: a real one comes from a prompt

echo "== adding the demo passwords to $RWSECRET_VAULT"
for password in password ray raywender; do
    printf '%s\n' "$password" | "$bin" password add --store file
done
"$bin" password list --store file
"$bin" status --store file

echo
echo "== rwsecret decrypt Fixtures/messages.txt"
set +e
"$bin" decrypt --store file "$here/messages.txt" >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
cat "$tmp/out"
cat "$tmp/err" >&2

expected_failures=$(grep -c '' "$here/messages.bad")
echo
if ! cmp -s "$tmp/out" "$here/messages.expected"; then
    echo "demo: the decrypted messages differ from Fixtures/messages.expected" >&2
    exit 1
fi
if [ "$status" -ne 1 ] || ! diff <(sed 's/^rwsecret: .*messages\.txt:\([0-9]*\): /\1: /' "$tmp/err") "$here/messages.bad" >/dev/null; then
    echo "demo: expected exactly the $expected_failures intended failures (Fixtures/messages.bad) and exit status 1; got status $status" >&2
    exit 1
fi
echo "demo: $(grep -c '' "$here/messages.expected") secrets decrypted; the $expected_failures failures above are the intended bad lines."
