# rwsecret — build, test, install. Needs the Swift 6 toolchain on PATH (apt cannot provide it);
# everything else is installed by `make deps`.
PREFIX ?= /usr/local
SWIFT ?= swift
APT_PACKAGES := libssl-dev libsecret-1-dev pkg-config gnome-keyring libsecret-tools dbus-x11
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
RELEASE_FLAGS := -c release --static-swift-stdlib

.PHONY: all deps build release test demo bench install uninstall clean

all: build

## deps: install the Debian packages that are missing (with sudo when not root)
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
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

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret

## test: the test command (CI runs it): installs what is missing, builds, runs every test
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

## demo: three passwords into a throw-away vault, then decrypt Fixtures/messages.txt
demo: build
	@bash Fixtures/demo.sh "$$($(SWIFT) build --show-bin-path)/rwsecret"

## bench: the performance figures (release build)
bench: deps
	$(SWIFT) build -c release --product rwsecret-bench
	$(SWIFT) build $(RELEASE_FLAGS) --product rwsecret
	"$$($(SWIFT) build -c release --show-bin-path)/rwsecret-bench"

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/rwsecret" "$(DESTDIR)$(PREFIX)/bin/rwsecret"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/rwsecret"

clean:
	rm -rf .build
