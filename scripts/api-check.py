#!/usr/bin/env python3
"""The public API of the library products, as `swift symbolgraph-extract` sees it, against api.txt.

Usage: scripts/api-check.py check|update|breaking   (from the repository root; SWIFT names the driver)

Builds RWSecretCore, RWSecretKit and RNCryptorCompat, extracts each module's public symbol graph
(synthesized members left out; a module's extensions of another's types are its own lines), and writes one line per public symbol: its kind, its path and its declaration.
`check` fails when the count, the digest or any line differs from the committed api.txt, and
shows the difference; `update` rewrites api.txt. Every change to the public API is then a
visible change to api.txt in the same commit (the swift-crypto / swift-nio habit).

`breaking` (`make api-breaking` while the repository has no tag) takes api.txt as the last
release's API: a symbol of api.txt that the build lacks, or declares differently, is a breaking
change. RWSecretKit re-exports RWSecretCore (`@_exported`), so a symbol of RWSecretKit that
moved to RWSecretCore is still there for every `import RWSecretKit`: RWSecretKit's symbols are
compared with the union of both modules', and a `let` that became a `var { get }` (a stored
property that became a computed one in an extension) is read the same way, and a default argument
that moved into an overload without its parameter is called the same way, so none is a break. It lists each, and fails unless the version's one place (Version.swift) has a major
version above api.txt's `version:` line (semantic versioning: a breaking change needs one).
"""
import difflib
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

MODULES = ["RWSecretCore", "RWSecretKit", "RNCryptorCompat"]
# What each module's `import` brings besides its own symbols: the modules it re-exports.
REEXPORTS = {"RWSecretKit": ["RWSecretCore"], "RNCryptorCompat": ["RWSecretCore"]}
SWIFT = os.environ.get("SWIFT", "swift")
ROOT = os.getcwd()
API_FILE = os.path.join(ROOT, "api.txt")


def version():
    return run("sh", os.path.join(ROOT, "scripts", "version.sh"))


def run(*args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def public_symbols(module, bin_path, triple, work):
    out = os.path.join(work, module)
    os.makedirs(out)
    # Every system-library target's module map (COpenSSL, CLibSecret, CZlib, ...), as SwiftPM hands them to a dependent.
    module_maps = sorted(glob.glob(os.path.join(ROOT, "Sources", "C*", "module.modulemap")))
    module_maps.append(os.path.join(bin_path, "CSHA1Kernel.build", "module.modulemap"))
    # swift-system's C module (RWSecretKit's public API uses its FilePath and Errno).
    module_maps += glob.glob(os.path.join(ROOT, ".build", "checkouts", "swift-system", "Sources", "CSystem", "include", "module.modulemap"))
    args = [SWIFT, "symbolgraph-extract", "-module-name", module, "-target", triple,
            "-I", os.path.join(bin_path, "Modules"), "-minimum-access-level", "public",
            "-skip-synthesized-members", "-output-dir", out]
    for path in module_maps:
        args += ["-Xcc", "-fmodule-map-file=" + path]
    subprocess.run(args, check=True)
    lines = set()
    for path in glob.glob(os.path.join(out, "*.symbols.json")):
        with open(path) as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            declaration = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
            lines.add("%s %s: %s" % (symbol["kind"]["identifier"], ".".join(symbol["pathComponents"]), " ".join(declaration.split())))
    return sorted(lines)


def render():
    for target in ("RWSecretKit", "RNCryptorCompat"):
        subprocess.run([SWIFT, "build", "--target", target], check=True, stdout=subprocess.DEVNULL)
    bin_path = run(SWIFT, "build", "--show-bin-path")
    triple = json.loads(run(SWIFT, "-print-target-info"))["target"]["triple"]
    with tempfile.TemporaryDirectory() as work:
        symbols = {module: public_symbols(module, bin_path, triple, work) for module in MODULES}
    body = []
    for module in MODULES:
        body += ["[%s]" % module] + symbols[module]
    digest = hashlib.sha256("\n".join(body).encode()).hexdigest()
    head = ["# The public API of the library products, one line per public symbol (swift symbolgraph-extract).",
            "# Rewritten by `make api-update`; `make api-check` fails when the build differs from it."]
    head.append("version: %s" % version())
    head += ["%s: %d public symbols" % (module, len(symbols[module])) for module in MODULES]
    head.append("digest: sha256 %s" % digest)
    return "\n".join(head + body) + "\n", symbols


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    text, symbols = render()
    counts = ", ".join("%s %d" % (module, len(symbols[module])) for module in MODULES)
    if mode == "update":
        with open(API_FILE, "w") as f:
            f.write(text)
        print("api.txt rewritten: %s public symbols" % counts)
        return 0
    committed = open(API_FILE).read() if os.path.exists(API_FILE) else ""
    if mode == "breaking":
        return breaking(committed, symbols)
    if committed == text:
        print("api-check: the public API matches api.txt (%s public symbols)" % counts)
        return 0
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), text.splitlines(True), "api.txt (committed)", "api.txt (this build)"))
    print("api-check: the public API differs from api.txt (%s public symbols now); if the change is meant, run `make api-update` and commit api.txt" % counts, file=sys.stderr)
    return 1


def unstored(line):
    """`swift.property P: let x: T` as the computed property it may have become: `var x: T { get }`."""
    head, _, declaration = line.partition(": ")
    if head.startswith("swift.property ") and declaration.startswith("let "):
        return head + ": var " + declaration[4:] + " { get }"
    return line


def defaults_kept(line, now):
    """`line` with default arguments that left its declaration, when every call that used one still
    compiles: the declaration is there without them, and so is an overload without each such
    parameter (moved to a module without the default's value, with the short form beside it)."""
    head, _, declaration = line.partition(": ")
    if not head.startswith(("swift.init ", "swift.func ", "swift.method ", "swift.type.method ")):
        return line
    plain = re.sub(r" = [^,()]+(?:\([^()]*\))?(?=[,)])", "", declaration)
    if plain == declaration or head + ": " + plain not in now:
        return line
    path = head.split(" ", 1)[1]
    for label in re.findall(r"(\w+)(?: \w+)?: [^,()=]+ = ", declaration):
        shorter = path.replace(label + ":", "", 1)
        if not any(other.partition(": ")[0].split(" ", 1)[-1] == shorter for other in now):
            return line
    return head + ": " + plain


def breaking(committed, symbols):
    baseline = next((line.split(":", 1)[1].strip() for line in committed.splitlines() if line.startswith("version:")), None)
    if baseline is None:
        print("api-breaking: api.txt names no version, so it is no baseline (skipped)")
        return 0
    module, before = None, {}
    for line in committed.splitlines():
        if line.startswith("[") and line.endswith("]"):
            module = line[1:-1]
        elif module and line and not line.startswith("#"):
            before.setdefault(module, set()).add(line)
    broken = []
    for name in MODULES:
        # What `import NAME` reaches: its symbols and those of the modules it re-exports.
        now = set(symbols[name]).union(*(symbols[other] for other in REEXPORTS.get(name, [])))
        old = before.get(name, set())
        # Reading a `let` and a `var { get }` is the same call for a consumer.
        old = {line if line in now or unstored(line) not in now else unstored(line) for line in old}
        old = {line if line in now else defaults_kept(line, now) for line in old}
        broken += ["%s: %s" % (name, line) for line in sorted(old - now)]
        # A case added to a public enum breaks every exhaustive switch over it.
        enums = {line.split(":")[0].split(" ", 1)[1] for line in old if line.startswith("swift.enum ")}
        broken += ["%s: added %s" % (name, line) for line in sorted(now - old)
                   if line.startswith("swift.enum.case ") and line.split(":")[0].split(" ", 1)[1].rsplit(".", 1)[0] in enums]
    current = version()
    print("api-breaking: the public API of %s against api.txt (version %s), as version %s (RWSecretKit and RNCryptorCompat with what they re-export)" % (", ".join(MODULES), baseline, current))
    if not broken:
        print("api-breaking: nothing public broke since %s" % baseline)
        return 0
    print("api-breaking: %d symbols of %s are gone or declared differently:" % (len(broken), baseline))
    for line in broken:
        print("  - " + line)
    if int(current.split(".")[0]) > int(baseline.split(".")[0]):
        print("api-breaking: allowed: %s is a new major version" % current)
        return 0
    print("api-breaking: breaking changes need a new major version (Sources/RWSecretCore/Support/Version.swift says %s)" % current, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
