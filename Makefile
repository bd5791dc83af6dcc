# rwsecret — build, test, install. Needs the Swift 6 toolchain on PATH (apt cannot provide it);
# everything else is installed by `make deps`.
PREFIX ?= /usr/local
SWIFT ?= swift
APT_PACKAGES := libssl-dev libsecret-1-dev pkg-config gnome-keyring libsecret-tools dbus-x11 zlib1g-dev libbz2-dev libargon2-dev
# `make test` also needs these: the start-up facts (scripts/check-startup.sh) run under strace
# and count instructions under callgrind; `decrypt --binary -o` is tested on a bindfs (FUSE)
# mount, a filesystem without O_TMPFILE (skipped, saying so, where there is no /dev/fuse); the
# age and Ansible Vault round trips run the peers themselves (`age`, `ansible-vault` from
# ansible-core); zlib inflates the age test kit's vectors; ssh-keygen makes the
# SSH keys that age recipients and identities are tested with; gpg (gnupg) makes the OpenPGP
# messages of the round trips; the vault cache tests look at the keys with keyctl; the core
# image tests take one with gdb's gcore.
TEST_APT_PACKAGES := strace valgrind bindfs fuse3 age ansible-core zlib1g-dev openssh-client gnupg keyutils gdb libbotan-2-19
# The version's one place is Sources/RWSecretCore/Support/Version.swift.
VERSION := $(shell sh scripts/version.sh)
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# The release build links the Swift runtime statically, and libstdc++ (which the runtime
# needs) too: loading libstdc++.so costs every start about 1 ms. `-lstdc++` finds the
# archive first in STATIC_CXX; without one (no libstdc++.a found), it stays dynamic.
STATIC_CXX := $(CURDIR)/.build/static-libstdc++
LIBSTDCXX_A := $(firstword $(wildcard $(shell (clang -print-file-name=libstdc++.a; gcc -print-file-name=libstdc++.a) 2>/dev/null)))
# Start-up (scripts/startup-cost.sh measures it): `--disable-local-rpath` drops SwiftPM's
# RUNPATH $ORIGIN, which made the loader try 14 paths beside the binary before finding
# libcrypto, libm, libgcc_s and libc where they are; lld (the toolchain's) packs the ~39,000
# relative relocations into DT_RELR (`-z pack-relative-relocs`, glibc 2.36+), which gold
# cannot. Still a PIE: the binary keeps address-space randomisation. Cross-module optimisation:
# since RWSecretCore is a module of its own, RWSecretKit and the tool called its generic code
# (Base64 for every message line, the kind registry's ForeignFormat) unspecialised, and each
# first call instantiated generic metadata at run time (6.8 M instructions of start-up outside
# the KDF instead of 6.2 M); with it the binary is as fast as the one-module build was
# (docs/performance.md, "One engine").
# Code layout (issue 36, docs/performance.md "Code laid out in the order it runs"): every function
# in a section of its own (-function-sections; the Swift runtime's archives mostly are already), so that
# lld can put the functions a run executes side by side, in scripts/link-order/rwsecret.order's
# order (scripts/link-order/generate.sh, `make link-order`): a one-message decrypt faulted in 68
# stretches of 64 KiB of code, 22 with it. libgcc's unwinder linked in (libgcc_eh.a, as
# libstdc++ is): one shared library less to map and relocate, and no CPUID-probing constructor.
LIBGCC_EH_A := $(firstword $(wildcard $(shell (clang -print-file-name=libgcc_eh.a; gcc -print-file-name=libgcc_eh.a) 2>/dev/null)))
LINK_ORDER := $(CURDIR)/scripts/link-order/rwsecret.order
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld \
  -Xlinker -z -Xlinker pack-relative-relocs $(if $(LIBSTDCXX_A),-Xlinker -L$(STATIC_CXX)) \
  -Xswiftc -cross-module-optimization \
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
  -Xlinker --symbol-ordering-file=$(LINK_ORDER) -Xlinker --no-warn-symbol-ordering \
  $(if $(LIBGCC_EH_A),-Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
# The static binary `make release` builds is copied here at once: `make man` (the argument
# parser's plugin) rebuilds .build/release/rwsecret without the static flags, so `install`
# must never take that one.
DIST := $(CURDIR)/.build/dist
# The toolchain's root (…/usr/bin/swift → …), hidden from the installed binary by the test.
TOOLCHAIN := $(abspath $(dir $(shell command -v $(SWIFT) 2>/dev/null))/../..)

.PHONY: all deps build release test test-long check-install check-consumer thin-check docs api-check api-update api-breaking release-check demo bench bench-openpgp bench-scaling bench-peers bench-age man completions install uninstall clean static-cxx fuzz sanitize spark-deps test-spark bench-spark

all: build

## deps: install the Debian packages that are missing (with sudo when not root)
deps:
	@missing=""; for p in $(APT_PACKAGES) $(EXTRA_APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "error: the Swift 6 toolchain is not on PATH (see README)"; exit 1; }

build: deps
	$(SWIFT) build

## release: the static release binaries (Swift runtime and libstdc++ linked in), copied to .build/dist:
## rwsecret (the front: `decrypt`, without ArgumentParser) and rwsecret-commands (every command),
## which the front runs for anything else when it lies beside it (or in ../libexec/rwsecret)
release: deps static-cxx
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret-commands
	mkdir -p "$(DIST)"
	cp "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret" "$(DIST)/rwsecret"
	cp "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret-commands" "$(DIST)/rwsecret-commands"

static-cxx:
	@if [ -n "$(LIBSTDCXX_A)" ]; then mkdir -p "$(STATIC_CXX)" && ln -sf "$(LIBSTDCXX_A)" "$(STATIC_CXX)/libstdc++.a"; fi

## test: the test command (CI runs it): installs what is missing, builds, runs every test,
## checks that `make install` installs a static binary, and ends with a short summary
## (counts, every skipped test and why), and that the tool uses only the library's public API
## (thin-check --typecheck). The full output is kept in .build/test-output.txt.
test: EXTRA_APT_PACKAGES = $(TEST_APT_PACKAGES)
test: deps
	$(SWIFT) build --build-tests
	@mkdir -p .build; python=$$(sh scripts/pypi-python.sh); \
	  { RWSECRET_PYPI_PYTHON="$$python" $(SWIFT) test 2>&1; echo $$? > .build/test-status; } | tee .build/test-output.txt
	@{ $(MAKE) --no-print-directory check-install 2>&1; echo $$? > .build/install-status; } > .build/install-check.txt; \
	  tail -n 3 .build/install-check.txt; \
	  status=$$(cat .build/test-status); [ "$$(cat .build/install-status)" -eq 0 ] || status=1; \
	  { $(MAKE) --no-print-directory check-consumer > .build/consumer-check.txt 2>&1; } || status=1; tail -n 3 .build/consumer-check.txt; \
	  { SWIFT="$(SWIFT)" sh scripts/thin-check.sh --typecheck > .build/thin-check.txt 2>&1; } || status=1; tail -n 1 .build/thin-check.txt; \
	  sh scripts/test-summary.sh .build/test-output.txt $$status .build/install-check.txt

## test-long: the soak loops too long for `make test`, at full length: 2,000 keyring decrypts with
## the warm-up thread held inside GLib by a shim and a busy core (KeyringWarmUpRaceTests; 200 in `make test`),
## and the OpenPGP peer matrix with fresh keys from gpg 2.2, sq and rnp (OpenPGPPeerMatrixTests; skipped in `make test`)
test-long: EXTRA_APT_PACKAGES = $(TEST_APT_PACKAGES)
test-long: deps
	$(SWIFT) build --build-tests
	RWSECRET_LONG_TESTS=1 $(SWIFT) test --skip-build --filter 'KeyringWarmUpRaceTests|OpenPGPPeerMatrixTests'

## check-install: `make install` into a throw-away DESTDIR, then prove both binaries static
check-install:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  $(MAKE) --no-print-directory install DESTDIR="$$tmp" PREFIX=/usr/local && \
	  bash Tests/release/exit-race.sh "$$tmp/usr/local/bin/rwsecret" && \
	  sh scripts/check-installed-binary.sh "$$tmp/usr/local" "$$tmp/usr/local/bin/rwsecret" "$(TOOLCHAIN)"

## link-order: rebuilds the release, then rewrites scripts/link-order/rwsecret.order from what it
## executes (scripts/link-order/generate.sh, callgrind), and links the release again in that order;
## check-startup.sh (make check-install) fails when the code a one-message decrypt runs spreads over
## more 64 KiB stretches than its budget: that is when to run it
.PHONY: link-order
link-order: release
	sh scripts/link-order/generate.sh "$(DIST)/rwsecret"
	@# SwiftPM does not see the order file as an input of the link: remove what it links, so it links again.
	rm -f "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret" "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret-commands"
	$(MAKE) --no-print-directory release

## check-startup-growth: one more command (compiled in with -D RWS_EXTRA_COMMAND, its own scratch
## path) adds at most 0.2 M instructions to a one-message decrypt (callgrind; scripts/startup-growth.sh)
.PHONY: check-startup-growth
check-startup-growth: release
	SWIFT="$(SWIFT)" sh scripts/startup-growth.sh "$(DIST)/rwsecret" $(RELEASE_FLAGS)

## check-consumer: a throw-away package depends on a tagged clone (committed code) by
## file:// URL and `from:` version, builds (SwiftPM refuses unsafe flags in a dependency)
## and decrypts with RWSecretKit, RNCryptorCompat and RWSecretCore alone (an RNCryptor-only program that
## links libcrypto and the runtimes only; RWSecretCore's target needs none of the other kinds' modules)
check-consumer:
	@SWIFT="$(SWIFT)" sh scripts/consumer-check.sh

## thin-check: the tool's sources (Sources/rwsecret) built by a throw-away package against the
## RWSecretKit product, by path: fails listing every use of the library's non-public API
## (scripts/thin-check.sh; files still moving into the library are listed there, not failed).
## `make test` runs its fast form, a typecheck against the test build's module.
thin-check:
	@SWIFT="$(SWIFT)" sh scripts/thin-check.sh

## docs: the DocC documentation of the library products, RWSecretCore, RWSecretKit and RNCryptorCompat (their catalogs
## Sources/*/*.docc, swift-docc-plugin), into .build/plugins/Swift-DocC/outputs, combined so that
## RWSecretKit's pages link RWSecretCore's (``/RWSecretCore/Symbol``); any warning (a broken link,
## an unknown symbol) fails it
docs: deps
	$(SWIFT) package generate-documentation --target RWSecretCore --target RWSecretKit --target RNCryptorCompat \
		--enable-experimental-combined-documentation --warnings-as-errors

## api-check: the public symbols of RWSecretCore, RWSecretKit and RNCryptorCompat (swift symbolgraph-extract) against
## the committed api.txt: fails when the count, the digest or any declaration differs
api-check: deps
	SWIFT="$(SWIFT)" python3 scripts/api-check.py check

## api-update: rewrites api.txt from the build (commit it with the API change it records)
api-update: deps
	SWIFT="$(SWIFT)" python3 scripts/api-check.py update

## api-breaking: swift package diagnose-api-breaking-changes for RWSecretCore, RWSecretKit and RNCryptorCompat against
## the latest tag; fails on a breaking change; says so and succeeds while there is no tag (no baseline)
api-breaking: deps
	SWIFT="$(SWIFT)" sh scripts/api-breaking.sh

## release-check: before tagging the version: CHANGELOG.md's section, api-check, the consumer check by
## URL and `from:` the version, and swift package diagnose-api-breaking-changes against the last
## tag (skipped, and said, while the repository has no tag)
release-check: deps
	SWIFT="$(SWIFT)" sh scripts/release-check.sh

## fuzz: builds the libFuzzer targets (Fuzz/, into .build-fuzz/) and runs each FUZZ_SECONDS (default 60)
## from its seed corpus Fuzz/corpus/TARGET; fails on the first crash (see docs/hacking.md, "Fuzzing and sanitizers")
fuzz: deps
	$(MAKE) -f Fuzz/Makefile run SWIFTC="$(SWIFT)c"

## sanitize: the test suite under AddressSanitizer, then under ThreadSanitizer (own scratch paths)
sanitize: deps
	Fuzz/sanitize.sh "$(SWIFT)"

## demo: three passwords into a throw-away vault, then decrypt Fixtures/messages.txt
demo: build
	@bash Fixtures/demo.sh "$$($(SWIFT) build --show-bin-path)/rwsecret"

## bench: the performance figures (release build), beside PyPI rncryptor's (scripts/pypi-python.sh: python3's, else a venv under .build/peers),
## then the static binary's start-up cost (scripts/startup-cost.sh: callgrind instructions outside
## the KDF, page faults, wall time, relocations; SKIPPED lines when valgrind or strace is missing),
## then OpenPGP against gpg -d (scripts/bench-openpgp.sh), and last issue 36's standing ratios in
## one table (`make bench-goals`). The binary section runs at 256 MiB; RWSECRET_BENCH_MIB="256 1024" adds
## the 1 GiB shapes (about 4 more minutes on 2 cores: the whole was 12 minutes with them). The bench is
## built with the release's flags, as rwsecret is: one build configuration, so neither rebuilds the other's modules.
bench: EXTRA_APT_PACKAGES = age time gnupg libsecret-tools
bench: deps static-cxx bench-floors
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret-bench
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret-commands
	RWSECRET_BENCH_MIB="$${RWSECRET_BENCH_MIB:-256}" RWSECRET_PYPI_PYTHON="$$(sh scripts/pypi-python.sh)" "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret-bench" kdf password cli keyring binary
	sh scripts/startup-cost.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret"
	bash scripts/bench-openpgp.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret"
	"$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret-bench" goals

## bench-goals: issue 36's standing ratios, each against its baseline in the same turns (alternating,
## medians), one table with the goal, the load average and the command (Sources/rwsecret-bench/GoalsBench.swift):
## (a) a small message vs `openssl version`, beside Swift/C start-up floors (bench-floors); (b) a keyring
## decrypt vs `secret-tool lookup` (private bus + gnome-keyring) and hangs in 200 runs; (c) per wrong password
## vs Python's hashlib.pbkdf2_hmac; (d) 256 MiB --binary with 3 candidates vs openssl dgst + enc -d;
## (e) 1 GiB age and gpg -c to stdout vs age -d / gpg -d (bench-age.sh, bench-openpgp.sh, STDOUT=1).
## Sizes and counts: RWSECRET_BENCH_LATENCY_TURNS=41 RWSECRET_BENCH_KEYRING_RUNS=200 RWSECRET_BENCH_KDF_TURNS=7
## RWSECRET_BENCH_BINARY_MIB=256 RWSECRET_BENCH_BINARY_TURNS=5 RWSECRET_BENCH_STREAM_MIB=1024
## RWSECRET_BENCH_STREAM_ROUNDS=3 RWSECRET_BENCH_HANG_S=10 (a quick run: all turns 3, KEYRING_RUNS=20, MIBs 64)
.PHONY: bench-goals bench-floors
bench-goals: EXTRA_APT_PACKAGES = age time gnupg libsecret-tools
bench-goals: release bench-floors
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret-bench
	RWSECRET_BIN="$(DIST)/rwsecret" "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret-bench" goals

## bench-floors: the start-up floors bench-goals times beside `openssl version` (scripts/bench-floors):
## a Swift "hello" linked as the release is (static Swift runtime, lld, DT_RELR), the same with
## libcrypto linked and initialised, C with libcrypto initialised, and C with libcrypto's first
## HMAC and AES (OpenSSL 3's provider and name map); into .build/bench-floors
BENCH_FLOORS := $(CURDIR)/.build/bench-floors
SWIFT_FLOOR_FLAGS := -O -static-stdlib -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs $(if $(LIBSTDCXX_A),-L $(STATIC_CXX)) $(if $(LIBGCC_EH_A),-Xclang-linker -static-libgcc)
bench-floors: static-cxx
	@mkdir -p "$(BENCH_FLOORS)"
	$(SWIFT)c $(SWIFT_FLOOR_FLAGS) -module-cache-path "$(BENCH_FLOORS)/cache" scripts/bench-floors/hello.swift -o "$(BENCH_FLOORS)/swift-hello"
	$(SWIFT)c $(SWIFT_FLOOR_FLAGS) -module-cache-path "$(BENCH_FLOORS)/cache" scripts/bench-floors/hello-crypto.swift -lcrypto -o "$(BENCH_FLOORS)/swift-crypto"
	$${CC:-cc} -O2 scripts/bench-floors/hello-crypto.c -lcrypto -o "$(BENCH_FLOORS)/c-crypto"
	$${CC:-cc} -O2 scripts/bench-floors/hello-evp.c -lcrypto -o "$(BENCH_FLOORS)/c-evp"

## bench-openpgp: `rwsecret decrypt --binary` against `gpg -d` on the same `gpg -c` file, in turn, outputs checked:
## wall, CPU and peak RSS, medians of ROUNDS=3, SIZES="256" (MiB), COMPRESS="none zlib", STDOUT=1 both to stdout > OUT (scripts/bench-openpgp.sh)
bench-openpgp: release
	bash scripts/bench-openpgp.sh "$(DIST)/rwsecret"

## bench-scaling: issue 22's many-core table (scripts/bench-scaling.sh): `decrypt --jobs N` against N separate
## `--jobs 1` processes over 1/N of the lines each, wall, msg/s, keys derived and user CPU, and a 64-password chain
## with the right one last; then clustered draws from 3 and 64 passwords, --json and --in-band at --jobs 1 and the
## largest N; MESSAGES=21000 PASSWORDS=3 JOBS="1 2 4 8 16" (default: powers of two up to the CPUs) LONG=0
## LONG_MESSAGES=2000 MODES=0 MODE_MESSAGES=3000 MODE_JOBS. Estimated at about 7 minutes on 16 CPUs with SHA-NI at
## the defaults (not measured here), most of it --jobs 1 and N = 2; MESSAGES=6000 for about 3 (docs/performance-scaling.md)
bench-scaling: release
	bash scripts/bench-scaling.sh "$(DIST)/rwsecret"

## bench-peers: the side-by-side (scripts/side-by-side.sh): rwsecret, RNCryptor-C's rn_decrypt (RN_DECRYPT=PATH,
## built outside this repository), PyPI rncryptor (installed into a venv under .build when missing) and
## OpenSSL's own tools, round-robin in one run, every output checked; SIZES="16 256 1024" (MiB), QUICK=1
bench-peers: release
	bash scripts/side-by-side.sh "$(DIST)/rwsecret"

## bench-age: a 1 GiB age file on disk opened by rwsecret and by age -d side by side (scripts/bench-age.sh):
## median wall time over ROUNDS=7 alternating rounds and peak RSS, against issue 24's 1.3x and 64 MiB;
## SIZE_MIB=1024, WORK=.build/bench-age (on disk), STDOUT=1 also times both writing to stdout (docs/kinds.md)
bench-age: EXTRA_APT_PACKAGES = age time
bench-age: release
	bash scripts/bench-age.sh "$(DIST)/rwsecret"

## spark-deps: PySpark, pandas and pyarrow from PyPI in a virtual environment under the build folder,
## Java, and GNU parallel (its recipe is tested by test-spark)
SPARK_VENV := $(CURDIR)/.build/spark-venv
PYTHON ?= python3
# pandas and pyarrow as PySpark 4 supports them (pyspark.sql.pandas.utils): pandas 2.2 or later
# but not 3 (PySpark warns "does not yet fully support pandas >= 3.0.0" on every job), pyarrow 18
# or later. A venv that PySpark's own check warns about is brought into line.
SPARK_PIP := "pyspark>=4.0,<5" "pandas>=2.2,<3" "pyarrow>=18"
SPARK_CHECK := from pyspark.sql.pandas.utils import require_minimum_pandas_version as p, require_minimum_pyarrow_version as a; p(); a()
spark-deps: deps
	@command -v java >/dev/null || { echo "installing openjdk-17-jre-headless (Spark needs Java 17 or later)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless; }
	@command -v parallel >/dev/null || { echo "installing GNU parallel"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends parallel; }
	@"$(SPARK_VENV)/bin/python" -W error -c '$(SPARK_CHECK)' 2>/dev/null || { \
	  echo "installing PySpark, pandas and pyarrow into $(SPARK_VENV) (about 500 MB, once)"; \
	  [ -x "$(SPARK_VENV)/bin/pip" ] || $(PYTHON) -m venv "$(SPARK_VENV)" || { $(SUDO) apt-get install -y -qq python3-venv && $(PYTHON) -m venv "$(SPARK_VENV)"; }; \
	  "$(SPARK_VENV)/bin/pip" install --quiet --disable-pip-version-check $(SPARK_PIP); }

## test-spark: the Spark example (examples/spark) in local[2] on a generated table, every row checked
test-spark: release spark-deps
	bash examples/spark/run_tests.sh "$(SPARK_VENV)" "$(DIST)/rwsecret" "$(CURDIR)/.build/spark-test" $(SPARK_ROWS)

## bench-spark: the Spark example's msg/s and CPU per message against one local rwsecret decrypt, same data
BENCH_SPARK_ROWS ?= 10000
bench-spark: release spark-deps
	"$(SPARK_VENV)/bin/python" examples/spark/bench.py --venv "$(SPARK_VENV)" \
	  --rwsecret "$(DIST)/rwsecret" --work "$(CURDIR)/.build/spark-bench" --rows $(BENCH_SPARK_ROWS)

## man: the man pages, generated by swift-argument-parser's plugin (from the commands' help
## and discussion), then given the EXIT STATUS, ENVIRONMENT and EXAMPLES sections of
## Documentation/man/ (the plugin writes only a generic exit status). From the debug build:
## the pages are the same, and the static release binary is not relinked.
MAN_OUT := .build/plugins/GenerateManual/outputs/rwsecret
man: deps
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --multi-page --configuration debug
	sh scripts/man-sections.sh $(MAN_OUT) Documentation/man

## completions: bash, zsh and fish completion scripts from the argument parser
completions: release
	mkdir -p .build/completions
	for shell in bash zsh fish; do \
	  "$(DIST)/rwsecret" --generate-completion-script $$shell > .build/completions/rwsecret.$$shell; \
	done

## install: the static binaries of .build/dist (never .build/release, which `man` rebuilds dynamic):
## bin/rwsecret, and the whole tool it runs for every command but `decrypt` in libexec/rwsecret
install: man completions release
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/libexec/rwsecret" "$(DESTDIR)$(PREFIX)/share/man/man1" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 "$(DIST)/rwsecret-commands" "$(DESTDIR)$(PREFIX)/libexec/rwsecret/rwsecret-commands"
	install -m 0755 "$(DIST)/rwsecret" "$(DESTDIR)$(PREFIX)/bin/rwsecret"
	install -m 0644 $(MAN_OUT)/*.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"
	install -m 0644 .build/completions/rwsecret.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/rwsecret"
	install -m 0644 .build/completions/rwsecret.zsh "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_rwsecret"
	install -m 0644 .build/completions/rwsecret.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rwsecret.fish"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/rwsecret" "$(DESTDIR)$(PREFIX)/libexec/rwsecret/rwsecret-commands" "$(DESTDIR)$(PREFIX)"/share/man/man1/rwsecret.*1 \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/rwsecret" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_rwsecret" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rwsecret.fish"
	rmdir "$(DESTDIR)$(PREFIX)/libexec/rwsecret" 2>/dev/null || true

clean:
	rm -rf .build
