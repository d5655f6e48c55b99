# SPDX-License-Identifier: GPL-2.0
# iotrace: `make` builds build/iotrace; `make test`, `make demo`, `make bench`.

SHELL		:= /bin/bash
BUILD		?= build
# One spelling of the build directory however make is called (the bench
# passes it absolute): -MMD names each object's dependencies under the
# spelling it was built with, and another spelling would not see them.
override BUILD	:= $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))
CC		?= gcc
CLANG		?= clang
BPFTOOL		?= bpftool
ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BTF_VMLINUX	?= /sys/kernel/btf/vmlinux

CFLAGS		?= -O2 -g
CFLAGS		+= -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -MMD -MP
CPPFLAGS	+= -I. -I$(BUILD)
LDLIBS		+= -lbpf -lelf -lzstd -lz -ljansson -lpthread
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -I. -I$(BUILD)

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:
.PHONY: all deps test unit e2e demo progs bench bench-quick clean format format-check fuzz FORCE install \
	uninstall fresh-check

# Before `make deps` a missing tool would stop the build at "clang: command
# not found"; say instead what to run.  Goals that run deps first (test, demo,
# bench) are checked in the make they start, after deps.
NO_TOOLS_GOALS	:= deps test demo bench bench-quick clean uninstall format format-check fresh-check
BUILD_HEADERS	:= bpf/libbpf.h gelf.h zstd.h zlib.h jansson.h
ifneq ($(filter-out $(NO_TOOLS_GOALS),$(or $(MAKECMDGOALS),all)),)
missing_tool	:= $(firstword $(foreach t,$(CC) $(CLANG) $(BPFTOOL),\
		     $(if $(shell command -v $(t) 2>/dev/null),,$(t))))
hash		:= \#
missing_header	:= $(shell for h in $(BUILD_HEADERS); do echo "$(hash)include <$$h>" | \
		     $(CC) -E -x c - >/dev/null 2>&1 || { echo $$h; break; }; done)
deps_hint	:= run 'make deps' (as root) to install the build dependencies
ifneq ($(missing_tool),)
$(error iotrace: $(missing_tool) not found: $(deps_hint))
endif
ifneq ($(missing_header),)
$(error iotrace: header $(missing_header) not found: $(deps_hint))
endif
endif

# Sources of the one binary; each folder adds its own files here.
LIB_SRCS	:= $(wildcard lib/*.c)
LOADER_SRCS	:= $(wildcard loader/*.c)
CLI_SRCS	:= $(wildcard cli/*.c)
ANALYZE_SRCS	:= $(wildcard analyze/*.c)
REPLAY_SRCS	:= $(wildcard replay/*.c)
APP_SRCS	:= $(LIB_SRCS) $(LOADER_SRCS) $(CLI_SRCS) $(ANALYZE_SRCS) $(REPLAY_SRCS)
APP_OBJS	:= $(patsubst %.c,$(BUILD)/obj/%.o,$(APP_SRCS))
# Everything but main(), for linking unit tests.
CORE_OBJS	:= $(filter-out $(BUILD)/obj/cli/main.o,$(APP_OBJS))

BPF_SRCS	:= $(wildcard bpf/*.bpf.c)
BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
# iotrace_tidhash: the capture again, for kernels without task storage
SKELS		:= $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS)) \
		   $(BUILD)/iotrace_tidhash.skel.h

all: $(BUILD)/iotrace

# vmlinux.h from the running kernel's BTF when it has one, else the committed copy.
$(BUILD)/vmlinux.h:
	$(Q)mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)if [ -r $(BTF_VMLINUX) ]; then \
		$(BPFTOOL) btf dump file $(BTF_VMLINUX) format c > $@; \
	else \
		cp vmlinux/$(ARCH)/vmlinux.h $@; \
	fi

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/bpf/iotrace_tidhash.bpf.o: bpf/iotrace.bpf.c $(BUILD)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DIOT_NO_TASK_STORAGE -MMD -MP -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The version baked into the binary: VERSION, and `git describe` when this is
# a git checkout of its own (not a tarball unpacked inside another one).
# Rewritten only when it changes, so a build that changed nothing links
# nothing.
IOTRACE_VERSION	:= $(shell cat VERSION)
IOTRACE_GIT	:= $(if $(wildcard .git),$(shell git describe --always --dirty 2>/dev/null))

$(BUILD)/version.h: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf '#define IOTRACE_VERSION "%s"\n#define IOTRACE_GIT "%s"\n' \
		'$(IOTRACE_VERSION)' '$(IOTRACE_GIT)' >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(BUILD)/obj/cli/version.o $(BUILD)/san/obj/cli/version.o: $(BUILD)/version.h

$(BUILD)/obj/%.o: %.c | $(SKELS)
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/iotrace: $(APP_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

deps:
	$(Q)scripts/deps.sh

# Unit tests: tests/test_<module>.c, CUnit, linked against everything but main().
UNIT_SRCS	:= $(wildcard tests/test_*.c)
UNIT_BINS	:= $(patsubst tests/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# Programs the end-to-end tests record: tests/progs/*.c
# but mpiio.c, an MPI program: built by mpicc, and only where Open MPI is installed (the
# build and the tests of everything else need no MPI)
MPICC		?= mpicc
PROG_SRCS	:= $(filter-out tests/progs/mpiio.c,$(wildcard tests/progs/*.c))
PROG_BINS	:= $(patsubst tests/progs/%.c,$(BUILD)/progs/%,$(PROG_SRCS)) \
		   $(if $(shell command -v $(MPICC) 2>/dev/null),$(BUILD)/progs/mpiio)

# The test programs, by name for the recipes that run after deps: the make they
# start reads this file again, and sees an mpicc that deps has just installed.
progs: $(PROG_BINS)

$(BUILD)/tests/%: tests/%.c $(CORE_OBJS)
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDFLAGS) $(LDLIBS) -lcunit

$(BUILD)/progs/%: tests/progs/%.c
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ -lpthread

$(BUILD)/progs/mpiio: tests/progs/mpiio.c
	$(Q)mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS) $< -o $@

# The same unit tests under AddressSanitizer and UndefinedBehaviorSanitizer,
# from objects of their own, so a memory error fails `make test`.
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_OBJS	:= $(patsubst $(BUILD)/obj/%,$(BUILD)/san/obj/%,$(CORE_OBJS))
SAN_BINS	:= $(patsubst tests/%.c,$(BUILD)/san/tests/%,$(UNIT_SRCS))

$(BUILD)/san/obj/%.o: %.c | $(SKELS)
	$(Q)mkdir -p $(@D)
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/san/tests/%: tests/%.c $(SAN_OBJS)
	$(Q)mkdir -p $(@D)
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) $(filter %.c %.o,$^) -o $@ $(LDFLAGS) \
		$(LDLIBS) -lcunit

unit: $(UNIT_BINS) $(SAN_BINS)
	$(Q)tests/run_unit.sh $(UNIT_BINS) $(SAN_BINS)

e2e: $(BUILD)/iotrace $(PROG_BINS)
	$(Q)tests/run_e2e.sh

test: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(SAN_BINS) progs $(FUZZ_BINS) \
		$(BENCH_TOOLS)
	$(Q)tests/run_all.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/progs/demo_workload
	$(Q)scripts/demo.sh

# The benchmark's floor: empty programs on iotrace's tracepoints, and the
# small loader that holds them attached during a run (bench/run.sh); the
# fixed-rate load generator of bench/cost.sh, which an e2e test checks; and
# dioruns, run by hand, for what a direct read's buffer layout costs.
BENCH_TOOLS	:= $(BUILD)/bench/floor.bpf.o $(BUILD)/bench/floor_load $(BUILD)/bench/loadgen \
		   $(BUILD)/bench/dioruns

$(BUILD)/bench/floor.bpf.o: bench/floor.bpf.c $(BUILD)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/bench/floor_load: bench/floor_load.c
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) -lbpf

$(BUILD)/bench/loadgen: bench/loadgen.c
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS)

$(BUILD)/bench/dioruns: bench/dioruns.c replay/iobuf.c
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ -o $@ $(LDFLAGS)

# Each part rewrites its own sections of docs/BENCHMARKS.md (and accuracy.sh
# the plots docs/*.png). They need root: loop devices, mounts, cgroup v1
# blkio, drop_caches, BPF. bench-quick takes about six minutes here (two
# and a half of them cost.sh), bench over an hour.
BENCH_PARTS	:= bench/run.sh bench/cost.sh bench/analysis.sh bench/accuracy.sh \
		   bench/svcaccuracy.sh bench/mhaccuracy.sh bench/matrix.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all progs $(BENCH_TOOLS)
	$(Q)for b in $(BENCH_PARTS); do BUILD=$(BUILD) $$b || exit 1; done

bench-quick: deps
	$(Q)$(MAKE) --no-print-directory all progs $(BENCH_TOOLS)
	$(Q)for b in $(BENCH_PARTS); do BUILD=$(BUILD) $$b --quick || exit 1; done

# libFuzzer targets (clang): tests/fuzz/fuzz_*.c, seeds in tests/fuzz/corpus/NAME.
# FUZZ_TIME seconds per target (default 60; the hardening bar is 600).
FUZZ_TIME	?= 60
FUZZ_FLAGS	:= -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIB	:= $(LIB_SRCS) $(ANALYZE_SRCS)
FUZZ_SRCS	:= $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS	:= $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

$(BUILD)/fuzz/fuzz_trace: tests/fuzz/fuzz_trace.c $(FUZZ_LIB) $(wildcard lib/*.h analyze/*.h)
	$(Q)mkdir -p $(@D)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_FLAGS) -std=gnu11 -D_GNU_SOURCE $(filter %.c,$^) -o $@ \
		-lzstd -lz -ljansson -lbpf

$(BUILD)/fuzz/fuzz_annotated: tests/fuzz/fuzz_annotated.c $(LIB_SRCS) \
		$(REPLAY_SRCS) $(wildcard lib/*.h replay/*.h)
	$(Q)mkdir -p $(@D)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_FLAGS) -std=gnu11 -D_GNU_SOURCE $(filter %.c,$^) -o $@ \
		-lzstd -lz -ljansson -lbpf -lpthread

fuzz: $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do \
		n=$${f##*/}; mkdir -p $(BUILD)/fuzz/corpus-$$n; \
		echo "== $$n for $(FUZZ_TIME) s"; \
		$$f -max_total_time=$(FUZZ_TIME) -close_fd_mask=2 -max_len=65536 -timeout=10 \
			-artifact_prefix=$(BUILD)/fuzz/$$n- $(BUILD)/fuzz/corpus-$$n \
			tests/fuzz/corpus/$${n#fuzz_} 2>&1 | grep -E 'Done [0-9]+ runs|ERROR|SUMMARY|crash' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

# Installed like any tool: PREFIX (default /usr/local), DESTDIR for packaging.
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/iotrace
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
MAN_PAGES	:= $(wildcard docs/man/*.1)
DOCS		:= README.md $(wildcard docs/*.md docs/*.png)

install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 755 $(BUILD)/iotrace $(DESTDIR)$(BINDIR)/iotrace
	$(Q)install -D -m 644 scripts/iotrace.bash-completion $(DESTDIR)$(BASHCOMPDIR)/iotrace
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	$(Q)$(if $(MAN_PAGES),install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/)
	$(Q)install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/

uninstall:
	$(call msg,REMOVE,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/iotrace $(DESTDIR)$(BASHCOMPDIR)/iotrace \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	$(Q)rm -rf $(DESTDIR)$(DOCDIR)

# make test and make demo in a fresh minbase Debian chroot (root, network to the mirror).
fresh-check:
	$(Q)scripts/fresh-check.sh

# Every C file and header of the tree, BPF and tests included; vmlinux.h is generated.
FORMAT_SRCS	:= $(filter-out vmlinux/% $(BUILD)/%,$(wildcard *.[ch] */*.[ch] */*/*.[ch]))

format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRCS)

format:
	$(Q)clang-format -i $(FORMAT_SRCS)

clean:
	$(Q)rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
