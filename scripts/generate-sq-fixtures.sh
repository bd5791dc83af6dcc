#!/bin/sh
# Writes Fixtures/kinds/openpgp-sq/: `sq encrypt --symmetric` messages (sq 0.27's default
# --compression pad: padding after the end of the deflate stream, inside the MDC-protected
# data), of 1 and 500 random bytes, beside their plaintexts (sq-pad-N.txt). sq asks for the
# password on a terminal only, so `script` gives it one; the password is "sq pad ✓" (the tests'),
# typed in, never on argv.
set -eu
out="$(cd "$(dirname "$0")/.." && pwd)/Fixtures/kinds/openpgp-sq"
mkdir -p "$out"
for n in 1 500; do
    head -c "$n" /dev/urandom > "$out/sq-pad-$n.txt"
    rm -f "$out/sq-pad-$n.pgp"
    (sleep 1; printf 'sq pad ✓\n'; sleep 1; printf 'sq pad ✓\n'; sleep 1) |
        script -qc "sq encrypt --symmetric --output '$out/sq-pad-$n.pgp' '$out/sq-pad-$n.txt'" /dev/null > /dev/null
    test -s "$out/sq-pad-$n.pgp"
done
