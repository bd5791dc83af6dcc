#!/bin/sh
# Gives the man pages that swift-argument-parser's generate-manual plugin writes the
# sections it cannot: ENVIRONMENT and FILES, a real EXIT STATUS (the plugin writes only
# "exits 0 on success, >0 if an error occurs") and, per page, EXAMPLES.
# Usage: man-sections.sh PAGES_DIR FRAGMENTS_DIR   (run by `make man`; idempotent)
set -eu
pages=$1 fragments=$2
# The parser's `help` pseudo-command gets a page with no content: not installed.
rm -f "$pages/rwsecret.help.1"
for page in "$pages"/*.1; do
  grep -q '^\.\\" rwsecret sections' "$page" && continue
  name=$(basename "$page" .1)
  examples="$fragments/examples/$name.mdoc"
  [ -f "$examples" ] || examples=/dev/null
  awk -v name="$name" -v env="$fragments/environment.mdoc" -v exit_status="$fragments/exit-status.mdoc" -v examples="$examples" '
    function include(file,   line) { while ((getline line < file) > 0) print line; close(file) }
    /^\.Sh "EXIT STATUS"/ {
      print ".\\\" rwsecret sections: Documentation/man/ (scripts/man-sections.sh)"
      include(env); include(exit_status); include(examples); skipping = 1; next
    }
    /^\.Sh / { skipping = 0 }
    # A blank line in a discussion is a paragraph break (mdoc warns "Empty input line"),
    # but not right before a list item or a section, where mdoc skips it with a warning.
    !skipping && (/^$/ || /^\.Pp$/) { paragraph = 1; next }
    paragraph { paragraph = 0; if ($0 !~ /^\.(It|Sh|Ss|El)/) print ".Pp" }
    # mdoc wants each sentence of running text on a line of its own.
    !skipping && !/^\./ {
      line = $0; out = ""
      while (match(line, /[A-Za-z0-9)]\. +[A-Z]/)) { out = out substr(line, 1, RSTART + 1) "\n"; line = substr(line, RSTART + 2); sub(/^ +/, "", line) }
      $0 = out line
    }
    # rwsecret(1) itself: its ENVIRONMENT section is below, not "the man page rwsecret(1)".
    !skipping && name == "rwsecret" { gsub(/see the man page rwsecret\(1\), or/, "see ENVIRONMENT below, or") }
    !skipping { print }
  ' "$page" > "$page.tmp"
  mv "$page.tmp" "$page"
done
