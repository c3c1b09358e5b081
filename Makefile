# Thin wrapper over Meson (the real build is meson.build).
#   make          build into build/ (first the build packages: install-deps.sh --demo)
#   make demo     install the missing build and run packages (as root; install-deps.sh
#                 --demo), build, run on the simulated fleet
#   make check    install what the tests add (install-deps.sh --test), build plain
#                 and sanitized, run every test, the threaded ones under
#                 ThreadSanitizer too (build-tsan/), print "N passed, N failed"
#   make check-fast  the plain build's unit tests and .t cases only (meson suites
#                 unit and cases; under 5 minutes on 2 cores): before each commit
#   make check-loaded  make check beside stress-ng --cpu 2 (tests wait for
#                 conditions, not durations: they must pass on a busy machine)
#   make lint     clang-format --dry-run, cppcheck, clang-tidy on src/ and sim/
#   make bench    benchmarks; results go to docs/BENCHMARKS.md
#   make eval     gpumon diagnose on the full generated sweep (tests/e2e/diagnose_gen.py,
#                 350 cases live, from the store and from CSV; ~10 minutes on 2 cores):
#                 precision, recall and confusion matrices into docs/diagnose.md
#   make fuzz     build the libFuzzer harnesses with clang (build-fuzz/) and run each
#                 for FUZZ_SECONDS (60); docs/fuzzing.md
#   make dist     the release tarballs dist/gpumon-VERSION-linux-{x86_64,aarch64}.tar.gz,
#                 built in one Debian 11 chroot (glibc floor 2.31; aarch64 cross-built)
#                 cached in /var/cache/gpumon-dist (root; scripts/dist.sh, docs/install.md);
#                 the aarch64 one is skipped with the reason without qemu-user-static
#   make check-dist  make dist, then the tarballs installed and smoke-run in Debian 11, 12
#                 and 13 chroots and in Debian 12 arm64 under qemu (root;
#                 scripts/dist-check.sh), then their RPMs built and rpmlint-checked
#                 (scripts/dist-rpm.sh); not in make check: CI runs it after make check,
#                 its chroots made beside it, nothing skipped (.ci/run, DIST_STRICT=1)
#   make check-arm64  the unit tests (meson suite unit) cross-built for aarch64 in make
#                 dist's Debian 11 chroot and run there under qemu-aarch64-static (root;
#                 scripts/check-arm64.sh, docs/install.md; not in make check nor CI)
#   make install  install gpumon, the simulator, the unit, the man pages and completions,
#                 libgpumon with its header and gpumon.pc (PREFIX via meson)

BUILD ?= build

.PHONY: all demo check check-fast check-loaded lint bench eval fuzz install clean deps dist check-dist \
	check-arm64

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	@scripts/install-deps.sh --demo --check >/dev/null 2>&1 || scripts/install-deps.sh --demo
	meson setup $(BUILD)

deps:
	scripts/install-deps.sh

demo:
	@scripts/demo.sh

check:
	@scripts/install-deps.sh --test --check >/dev/null 2>&1 || scripts/install-deps.sh --test
	@scripts/check.sh

check-fast:
	@scripts/install-deps.sh --check >/dev/null 2>&1 || scripts/install-deps.sh
	@scripts/check.sh --fast

check-loaded:
	@scripts/install-deps.sh --check >/dev/null 2>&1 || scripts/install-deps.sh
	@scripts/check.sh --loaded

lint: $(BUILD)/build.ninja
	@scripts/lint.sh $(BUILD)

bench:
	@scripts/bench.sh $(BUILD)

eval: all
	GPUMON=$(CURDIR)/$(BUILD)/src/gpumon SIM_LIB=$(CURDIR)/$(BUILD)/sim/libnvidia-ml.so.1 \
	SOURCE_ROOT=$(CURDIR) DIAG_HISTORY=$(CURDIR)/$(BUILD)/tests/e2e/diag_history \
	python3 tests/e2e/diagnose_gen.py --report --markdown docs/diagnose.md

fuzz:
	@scripts/install-deps.sh --test --check >/dev/null 2>&1 || scripts/install-deps.sh --test
	@scripts/fuzz.sh

dist:
	@scripts/dist.sh $(CURDIR)/dist
	@ARCH=aarch64 scripts/dist.sh $(CURDIR)/dist || [ $$? -eq 77 ]

check-dist: dist
	@scripts/dist-check.sh $(CURDIR)/dist
	@scripts/dist-rpm.sh $(CURDIR)/dist || { rc=$$?; [ $$rc -eq 77 ] && [ "$${DIST_STRICT:-0}" = 0 ]; }

check-arm64:
	@scripts/check-arm64.sh

install: all
	meson install -C $(BUILD)

clean:
	rm -rf build build-asan build-tsan build-bench build-fuzz build*.log dist
