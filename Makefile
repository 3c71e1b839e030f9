# attnladder: `make run` reruns the ladder (or shows the committed one without a GPU),
# `make test` is what CI runs. Everything builds on a machine without a GPU.

CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
CC        ?= gcc
BUILD     ?= build
PYTHON    ?= python3

# Fat binaries: Ampere, Ada (the seeds' L4) and Hopper, plus sm_90 PTX for newer parts.
ARCHS     ?= -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_89,code=sm_89 \
             -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90


INCLUDES  := -Iharness -Iharness/include -Ikernels/oracle \
             -I$(CUDA)/include
# The rungs' include path, as the frozen manifests pin their nvcc command (ci/frozen/,
# nvcc-command): kernels/reference was the oracle's folder when they were frozen; no rung
# includes from it, and an unfreeze drops it. The kernels' objects add kernels/oracle.
PHASE_INCLUDES := -Iharness -Iharness/include -Ikernels/reference \
             -I$(CUDA)/include
OPT       ?= -O2 -g
CFLAGS    += $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread $(INCLUDES)
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra \
             --Werror all-warnings -cudart shared $(ARCHS) $(PHASE_INCLUDES)

# The harness runs on a GPU machine with the CUDA libraries but no -dev packages:
# jansson and zlib (runs committed as .json.gz) are linked statically, CUDA dynamically
# (the driver's libraries are there). cuBLAS is not linked: measure/cublas_lib.c loads it
# when a GPU run first needs it, so that a process that does not (show, gate, a test)
# does not map and relocate it (0.07 s a start, 0.2 s under ASan; the run path set here
# is where it is found; measure/loader.c loads it before the first phase, as it was
# loaded while linked).
HARNESS_LIBS := -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 \
                -Wl,-Bstatic -ljansson -lz -Wl,-Bdynamic \
                -lcudart -ldl -lm -pthread

# The commands in harness/cmd/, the stages they stand on in folders beside it.
HARNESS_STAGES := core measure evidence gate report
HARNESS_SRC  := $(sort $(wildcard $(patsubst %,harness/%/*.c,cmd $(HARNESS_STAGES)))) \
                $(sort $(wildcard kernels/oracle/*.c))
HARNESS_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(HARNESS_SRC))
LIB_OBJ      := $(filter-out $(BUILD)/obj/harness/cmd/main.o,$(HARNESS_OBJ))

PHASE_DIRS   := $(patsubst %/,%,$(sort $(wildcard phases/[0-9][0-9]_*/)))
PHASE_NAMES  := $(notdir $(PHASE_DIRS))
PHASE_SOS    := $(patsubst %,$(BUILD)/phases/%.so,$(PHASE_NAMES))
KERNEL_DIRS  := $(patsubst %/,%,$(filter-out kernels/oracle/,$(sort $(wildcard kernels/*/))))
KERNEL_NAMES := $(notdir $(KERNEL_DIRS))
KERNEL_SOS   := $(patsubst %,$(BUILD)/kernels/%.so,$(KERNEL_NAMES))

# One folder of tests per stage (and per command, kernel or rung tested), as harness/ is.
TEST_SRC     := $(sort $(wildcard harness/tests/*/test_*.c))
TEST_BINS    := $(patsubst harness/tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))

# Each directory's .cu files are compiled into one object; its headers and any .c files
# they include are prerequisites only.
# A phase or kernel directory may hold `build.mk` setting LDLIBS_<name> (extra link
# libraries, e.g. -lcublas) or NVCCFLAGS_<name> (e.g. an sm_90a target).
-include $(wildcard phases/*/build.mk kernels/*/build.mk)

.PHONY: all deps build run test unit-tests kernel-checks phase-objects clean FORCE asan-build asan-tests fuzz fuzz-corpus fuzz-long sanitize test-switches planted-phases
.DEFAULT_GOAL := all

all: build
build: $(BUILD)/attnladder $(PHASE_SOS) $(KERNEL_SOS) $(BUILD)/gitinfo

# The commit and dirty flag of the tree that was built, for runs on a copy without .git.
$(BUILD)/gitinfo: FORCE
	@mkdir -p $(BUILD); c=$$(git rev-parse HEAD 2>/dev/null || echo unknown); \
	d=$$(git status --porcelain --untracked-files=no 2>/dev/null | head -1); \
	s=clean; [ -z "$$d" ] || s=dirty; echo "$$c $$s" > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# ---- dependencies (Debian packages; root or sudo) ---------------------------------
deps:
	@bash ci/tools/deps.sh

# ---- the harness (C11) --------------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/attnladder: $(HARNESS_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(HARNESS_LIBS)

-include $(HARNESS_OBJ:.o=.d)

NVCC_VERSION := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
$(BUILD)/obj/harness/measure/device_info.o: CFLAGS += -DATTN_NVCC_VERSION='"$(NVCC_VERSION)"'


# ---- phases and kernels: one shared object each, ptxas report beside it ---------------
.SECONDEXPANSION:
# How a phase's object is built, written once: the rules below run it and
# `make -s nvcc-command-NAME` prints it (with the build directory as <build>), which the
# freeze manifest pins, so a frozen phase built with other flags fails `make test`.
# A phase of one .cu file: one nvcc command. A phase of several, or one that links an
# object of the rung below (PHASE_LINKS_<name>), is compiled one object a translation unit
# (each .cu with the same flags and -c, under <build>/obj/phases/NAME/), then linked by
# nvcc: what nvcc does inside one command over several .cu files, but an object can then
# be linked by the rung above instead of compiled again. Until issue 53 rung 12 compiled
# rung 11's rung10.cu (rung 10 whole, with 06 and 09 inside) again: 92 of its 110 CPU s.
# Rung 11's machine code is the same both ways (ci/frozen/11_split_keys.recompiled.txt).
# A rung named in PHASE_ONLY_LINKS_<name> compiles none of its own .cu files: it is the
# objects named there, linked (below).
phase_cus = $(if $(PHASE_ONLY_LINKS_$(1)),,$(sort $(wildcard phases/$(1)/*.cu)))
phase_links = $(PHASE_LINKS_$(1)) $(PHASE_ONLY_LINKS_$(1))
phase_objs = $(patsubst phases/%.cu,$(2)/obj/phases/%.o,$(call phase_cus,$(1)) $(call phase_links,$(1)))
phase_by_objs = $(strip $(word 2,$(call phase_cus,$(1))) $(call phase_links,$(1)))
phase_obj_nvcc = $(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_$(1)) -Xptxas -v -MD -MF $(2)/obj/$(basename $(3)).d \
                 -c -o $(2)/obj/$(basename $(3)).o $(3)
phase_link_nvcc = $(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_$(1)) -Xptxas -v -o $(2)/phases/$(1).so $(call phase_objs,$(1),$(2)) $(LDLIBS_$(1))
# (A rung of linked objects alone prints how they are compiled, with their own rung's flags,
# as the object rule below compiles them: that is how its code is made, and the freeze pins it.)
phase_nvcc = $(if $(call phase_by_objs,$(1)), \
               $(foreach cu,$(PHASE_ONLY_LINKS_$(1)),$(call phase_obj_nvcc,$(word 2,$(subst /, ,$(cu))),$(2),$(cu)) &&) \
               $(foreach cu,$(call phase_cus,$(1)),$(call phase_obj_nvcc,$(1),$(2),$(cu)) &&) \
               $(call phase_link_nvcc,$(1),$(2)), \
             $(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_$(1)) -Xptxas -v -MD -MF $(2)/phases/$(1).d \
               -o $(2)/phases/$(1).so $(call phase_cus,$(1)) $(LDLIBS_$(1)))
# Rung 12 holds rung 11 whole: its attention.cu includes rung 11's, and the rest of rung 11
# (rung10.cu, the translation unit behind rung10_link::) is this object, rung 11's own.
# (Here and not in rung 12's build.mk: a build.mk names no other directory, ci/freeze.sh.)
PHASE_LINKS_12_decode_rows := phases/11_split_keys/rung10.cu
# Rung 13 holds rung 12 in a unit of its own (its rung12.cu), and rung 12 needs rung 11's
# rung10.cu object: linked, not compiled again.
PHASE_LINKS_13_row_blocks := phases/11_split_keys/rung10.cu
# Rung 14 holds rung 13 in a unit of its own (its rung13.cu), and rung 13 needs its rung12.cu
# object and rung 11's rung10.cu object: linked, not compiled again.
PHASE_LINKS_14_short_keys := phases/13_row_blocks/rung12.cu phases/11_split_keys/rung10.cu
# Rung 15 holds rung 14's attention.cu in a unit of its own (its rung14.cu) and rung 13 in
# another (its q_ahead.cu, with its path); rung 14's second unit, rung13.cu, and the
# objects rung 14 links: linked, not compiled again.
PHASE_LINKS_15_q_ahead := phases/14_short_keys/rung13.cu phases/13_row_blocks/rung12.cu phases/11_split_keys/rung10.cu
# Rung 16 compiles again every unit that holds rung 09's kernels (rung 15's q_ahead.cu, rung
# 14's rung13.cu, rung 11's rung10.cu), with its include path (phases/16_step_descriptors/
# build.mk); rung 15's rung14.cu and rung 13's rung12.cu hold none: linked, not compiled again.
PHASE_LINKS_16_step_descriptors := phases/15_q_ahead/rung14.cu phases/13_row_blocks/rung12.cu
# Rung 17 holds rung 16's attention.cu in a unit of its own (its rung16.cu) and rung 15's
# q_ahead.cu, as rung 16 compiles it, in another (its row_tail.cu, with its path); the
# objects rung 16 links and its rung13.cu and rung10.cu: linked, not compiled again.
PHASE_LINKS_17_row_tail := phases/16_step_descriptors/rung13.cu phases/16_step_descriptors/rung10.cu \
                           phases/15_q_ahead/rung14.cu phases/13_row_blocks/rung12.cu
# Rung 18 holds rung 17's attention.cu in a unit of its own (its rung17.cu) and rung 13
# whole in another (its short_dynamic.cu, with its path); rung 17's row_tail.cu and
# rung16.cu objects and the objects rung 17 links: linked, not compiled again.
PHASE_LINKS_18_short_dynamic := phases/17_row_tail/row_tail.cu phases/17_row_tail/rung16.cu \
                                $(PHASE_LINKS_17_row_tail)
# Rung 19 compiles again every unit of rung 18 and of the rungs it links that holds rung 09's
# kernels (rung 18's short_dynamic.cu, rung 17's row_tail.cu, rung 16's rung13.cu and
# rung10.cu), with its include path (phases/19_staged_store/build.mk); rung 18's rung17.cu,
# rung 17's rung16.cu, rung 15's rung14.cu and rung 13's rung12.cu hold dispatch alone:
# linked, not compiled again.
PHASE_LINKS_19_staged_store := phases/18_short_dynamic/rung17.cu phases/17_row_tail/rung16.cu \
                               phases/15_q_ahead/rung14.cu phases/13_row_blocks/rung12.cu
# Rung 20 compiles again the same units as rung 19, with its include path (phases/
# 20_store_loads_first/build.mk), and links the same dispatch objects.
PHASE_LINKS_20_store_loads_first := $(PHASE_LINKS_19_staged_store)
# Rung 21 compiles again the same units as rung 20, with its include path (phases/
# 21_dynamic_3wg/build.mk), and links the same dispatch objects.
PHASE_LINKS_21_dynamic_3wg := $(PHASE_LINKS_20_store_loads_first)
# Rung 22 compiles again the same units as rung 21, with its include path (phases/
# 22_causal_rows/build.mk), and links the same dispatch objects.
PHASE_LINKS_22_causal_rows := $(PHASE_LINKS_21_dynamic_3wg)
# Rung 10 is rung 11's rung10.o alone: rung10.cu is rung 10's attention.cu whole (rungs 06-09
# inside it) in namespace rung10, with its entry weak and of default visibility; linked by
# itself that entry is the one the shared object exports, C linkage (the namespace does not
# rename it), rung 10's own table (nm -D: a weak object, V, where it was D; the loader finds
# it the same). Rung 10's attention.cu is then compiled once, in that unit, not a second time
# for its own shared object: 80.4 CPU s of make test's nvcc step (rung 10 built alone, nice
# 5, load 1) became a link of 1.1. What the object adds to rung 10 (the table rung 11 calls
# it through, and wgmma_split.cuh's host path: rung 09's kernel with its keys split, no
# kernel of its own) is never reached from rung 10's entry. Every device function of rung
# 10 is the same as compiled from attention.cu, names aside (ci/frozen/
# 10_latency.recompiled.txt); ci/freeze.sh pins rung10.cu and what it includes in rung 10's
# closure, and this command. (A build directory from before keeps its 10_latency.so, newer
# than rung10.o, until rung 10 or 11 changes: the same device code.)
PHASE_ONLY_LINKS_10_latency := phases/11_split_keys/rung10.cu
# Named here, so that make keeps them (not intermediate files) and builds a missing one.
PHASE_OBJS := $(sort $(foreach p,$(PHASE_NAMES),$(if $(call phase_by_objs,$(p)),$(call phase_objs,$(p),$(BUILD)))))
phase-objects: $(PHASE_OBJS)
# Each binary's record of what it was built from (ci/tools/record_sources.sh), which a GPU
# session checks against the tree before it measures (ci/checks/check_build_sources.sh);
# the recorder is a prerequisite so that a build from before the records is rebuilt.
$(BUILD)/phases/%.so: $$(wildcard phases/$$*/*.cu phases/$$*/*.cuh phases/$$*/*.h phases/$$*/*.c) harness/include/attn_phase.h \
                     ci/tools/record_sources.sh $$(if $$(call phase_by_objs,$$*),$$(call phase_objs,$$*,$(BUILD)))
	@mkdir -p $(dir $@)
	@echo "nvcc  $@$(if $(call phase_by_objs,$*), (link))"
	@$(if $(call phase_by_objs,$*), \
	  { cat $(patsubst %.o,%.ptxas.txt,$(call phase_objs,$*,$(BUILD))) >&2 && $(call phase_link_nvcc,$*,$(BUILD)); }, \
	  $(call phase_nvcc,$*,$(BUILD))) 2> $(BUILD)/phases/$*.ptxas.txt \
	  || { cat $(BUILD)/phases/$*.ptxas.txt >&2; rm -f $@; exit 1; }
	@$(if $(call phase_by_objs,$*),cat $(patsubst %.o,%.d,$(call phase_objs,$*,$(BUILD))) > $(BUILD)/phases/$*.d)
	@bash ci/tools/record_sources.sh $@ $(BUILD)/phases/$*.d $(filter phases/$*/% harness/include/attn_phase.h,$^)
# One translation unit of a phase built from objects, with its phase's flags; its ptxas
# report beside it (the phase's report gathers them).
$(BUILD)/obj/phases/%.o: phases/%.cu $$(wildcard phases/$$(*D)/*.cuh phases/$$(*D)/*.h phases/$$(*D)/*.c) \
                         harness/include/attn_phase.h
	@mkdir -p $(dir $@)
	@echo "nvcc  $@"
	@$(call phase_obj_nvcc,$(*D),$(BUILD),$<) 2> $(@:.o=.ptxas.txt) \
	  || { cat $(@:.o=.ptxas.txt) >&2; rm -f $@; exit 1; }
nvcc-command-%:
	@echo '$(strip $(call phase_nvcc,$*,<build>))'
# the sources of other rungs whose objects a rung links (ci/freeze.sh adds them and what they
# include to its closure)
phase-links-%:
	@echo '$(strip $(call phase_links,$*))'
phase-only-links-%:
	@echo '$(strip $(PHASE_ONLY_LINKS_$*))'
# a rung's planted copy's --include arguments, with the copy as <copy> (ci/checks/test_plant_transform.py)
plant-includes-%:
	@echo '$(strip $(call plant_includes,$*,<copy>))'

$(BUILD)/kernels/%.so: $$(wildcard kernels/$$*/*.cu kernels/$$*/*.cuh kernels/$$*/*.h kernels/$$*/*.c) harness/include/attn_phase.h \
                      ci/tools/record_sources.sh
	@mkdir -p $(dir $@)
	@echo "nvcc  $@"
	@$(NVCC) $(NVCCFLAGS) -Ikernels/oracle $(NVCCFLAGS_$*) -Xptxas -v -MD -MF $(BUILD)/kernels/$*.d \
	  -o $@ $(filter %.cu,$^) $(LDLIBS_$*) 2> $(BUILD)/kernels/$*.ptxas.txt \
	  || { cat $(BUILD)/kernels/$*.ptxas.txt >&2; rm -f $@; exit 1; }
	@bash ci/tools/record_sources.sh $@ $(BUILD)/kernels/$*.d $(filter kernels/$*/% harness/include/attn_phase.h,$^)

# A phase built from objects has its objects' dependency files; its own NAME.d (theirs
# gathered, for its record of sources) is not read, nor one left by its build before.
-include $(filter-out $(patsubst %,$(BUILD)/phases/%.d,$(foreach p,$(PHASE_NAMES),$(if $(call phase_by_objs,$(p)),$(p)))), \
           $(wildcard $(BUILD)/phases/*.d)) $(wildcard $(BUILD)/obj/phases/*/*.d $(BUILD)/kernels/*.d)

# ---- tests ---------------------------------------------------------------------------
$(BUILD)/tests/%: harness/tests/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB_OBJ) -lcmocka $(HARNESS_LIBS)

# Loader fixtures: tiny ABI objects built with gcc (no GPU code).
FIXTURES := $(BUILD)/fixtures/good_phase.so $(BUILD)/fixtures/abi2_phase.so \
            $(BUILD)/fixtures/no_symbol.so $(BUILD)/fixtures/null_run.so
# Three builds of rungs that choose a path by shape (ab's code paths and rule probes,
# ci/checks/test_ab_gate.sh)
PATH_FIXTURES := $(foreach b,base head offsweep,$(BUILD)/fixtures/paths/$(b)/phases/07_fixture_paths.so \
                   $(BUILD)/fixtures/paths/$(b)/phases/01_fixture_one_path.so)
$(BUILD)/fixtures/paths/%/phases/07_fixture_paths.so: harness/tests/fixtures/path_phase.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden $(if $(filter head,$*),-DHEAD_BUILD) \
	  $(if $(filter offsweep,$*),-DHEAD_OFF_SWEEP) -o $@ $<
$(BUILD)/fixtures/paths/%/phases/01_fixture_one_path.so: harness/tests/fixtures/path_phase.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -DONE_PATH -o $@ $<
$(BUILD)/fixtures/abi2_phase.so: harness/tests/fixtures/good_phase.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -DABI=2 -o $@ $<
$(BUILD)/fixtures/good_phase.so: harness/tests/fixtures/good_phase.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -DABI=1 -o $@ $<
$(BUILD)/fixtures/%.so: harness/tests/fixtures/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $<

unit-tests: $(TEST_BINS) $(FIXTURES)
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; ATTN_FIXTURES=$(BUILD)/fixtures $$t; done

kernel-checks: $(PHASE_SOS) $(KERNEL_SOS)
	@bash ci/checks/check_kernels.sh $(BUILD) $(PHASE_SOS) $(KERNEL_SOS)

# ---- the gate's planted slowdown (test-only binary; never what `make run` uses) ---------
$(BUILD)/testing/plant_delay.so: harness/planted/plant_delay.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -o $@ $<
$(BUILD)/attnladder-test: $(HARNESS_SRC) $(wildcard harness/*/*.h)
	$(CC) $(CFLAGS) -DATTN_TEST_SWITCHES -DATTN_NVCC_VERSION='"$(NVCC_VERSION)"' -o $@ $(HARNESS_SRC) $(HARNESS_LIBS)
# A faulty implementation (one interior query tile wrong) that the correctness check
# must fail wherever it is wrong; loaded from a scratch build directory on the GPU.
$(BUILD)/testing/faulty_skip_tile.so: harness/planted/faulty_skip_tile.c harness/include/attn_phase.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcudart -ldl
# The A/B study's slowed stand-in for one implementation of a head build.
$(BUILD)/testing/planted_wrapper.so: harness/planted/planted_wrapper.c harness/include/attn_phase.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcudart -ldl
test-switches: $(BUILD)/attnladder-test $(BUILD)/testing/plant_delay.so $(BUILD)/testing/faulty_skip_tile.so \
               $(BUILD)/testing/planted_wrapper.so
# Every phase again with a delay at the entry of each kernel, set at run time (cycles; 0
# by default): the A/B study's fine planted slowdown, inside the phase's own launches
# (ci/tools/plant_transform.py makes the copy, harness/planted/plant_hook.cuh the delay).
# Built from a copy under the build directory; the rung's files are only read.
PLANTED_SOS := $(patsubst %,$(BUILD)/testing/planted/%.so,$(PHASE_NAMES))
# A rung's flags with each include folder of its own (-Iphases/NAME/...: rung 16's overlay/)
# turned to the planted copy's (2: the copy), so its units include the hooked files; and those
# folders as plant_transform.py's --include, which follows a unit's includes through them.
plant_flags = $(subst -Iphases/$(1)/,-I$(2)/,$(NVCCFLAGS_$(1)))
plant_includes = $(patsubst -I%,--include %,$(filter -I$(2)/%,$(call plant_flags,$(1),$(2))))
planted_nvcc = $(NVCC) $(NVCCFLAGS) $(call plant_flags,$(1),$(BUILD)/testing/plant_src/$(1)) \
               -include $(CURDIR)/harness/planted/plant_hook.cuh \
               -Xptxas -v -o $(BUILD)/testing/planted/$(1).so \
               $(BUILD)/testing/plant_src/$(1)/*.cu $(call phase_link_objs,$(1)) $(LDLIBS_$(1))
# the objects of the rung below a rung links (rung 12: rung 11's rung10.cu), as its plain build;
# not those of a rung of linked objects alone (PHASE_ONLY_LINKS_: rung 10), whose planted copy
# is its own files, hooked and compiled (the object holds no hook). So make test's planted
# check of rung 10 (below) compiles its hooked attention.cu as before: no object holds that
# code (32 CPU s; rung 11's check reads rung10.cu at -O0 only, 11 CPU s for the rung).
phase_link_objs = $(patsubst phases/%.cu,$(BUILD)/obj/phases/%.o,$(PHASE_LINKS_$(1)))
$(BUILD)/testing/planted/%.so: $$(wildcard phases/$$*/*.cu phases/$$*/*.cuh phases/$$*/*.h phases/$$*/*.c) \
                               harness/include/attn_phase.h harness/planted/plant_hook.cuh ci/tools/plant_transform.py \
                               $$(call phase_link_objs,$$*)
	@mkdir -p $(dir $@)
	@$(PYTHON) ci/tools/plant_transform.py phases/$* $(BUILD)/testing/plant_src/$* \
	  $(call plant_includes,$*,$(BUILD)/testing/plant_src/$*) > $(BUILD)/testing/planted/$*.hooks.txt \
	  || { cat $(BUILD)/testing/planted/$*.hooks.txt; exit 1; }
	@echo "nvcc  $@ (planted)"
	@$(call planted_nvcc,$*) 2> $(BUILD)/testing/planted/$*.ptxas.txt \
	  || { cat $(BUILD)/testing/planted/$*.ptxas.txt >&2; rm -f $@; exit 1; }
planted-phases: $(PLANTED_SOS) $(BUILD)/testing/planted_wrapper.so
# make test's check of the same transform: every phase's copy takes the hook and compiles
# to an object (no link: a shared object may leave host symbols undefined, and the device
# code is whole-program, resolved by ptxas), for the one target the studies run on: the
# rung's own where its build.mk names one (sm_90a: the H100 and H200 run that code), sm_90
# for the others. Until issue 53 the rungs with a target of their own compiled for sm_90
# too, every kernel of 07-11 twice: 260 CPU s for the eleven rungs, 167 s now. A copy the
# hook breaks still fails here: `make PLANT_HOOK=FILE check-planted` with a hook that does
# not compile (a missing semicolon) and with one that ptxas refuses (an unknown PTX
# instruction in its asm) failed on both, for 01_scalar (sm_90) and 07_wgmma_tma (sm_90a).
# Device code only (nvcc -cubin: cicc and ptxas, no host pass), but for one rung: cicc's
# front end reads the whole file, host code included, so an error there still fails every
# rung (planted in the setter the transform appends: an undefined identifier failed
# -cubin as it failed -c); what only the host compiler sees (gcc -Wall -Wextra, -Werror)
# comes from the setter's template, the one host code the transform writes, the same in
# every rung: an unused parameter and an int compared with the unsigned long long cycles
# passed -cubin and failed -c, so PLANT_HOST_RUNGS keep the host pass (-c) for that. The
# host pass was an eighth to a fifth of a rung's compile (CPU s -c and -cubin, back to
# back: 06_tiling 19.6 and 15.8, 09_tile_scheduling 30.9 and 26.8). The
# hook faults above failed -cubin too (01_scalar, 07_wgmma_tma). Rung 12's copy compiles
# its own file only: rung 11's second unit is linked, not included (issue 53), 49 CPU s
# before.
# The rungs compiled to a cubin stop at PTX (nvcc -ptx: cicc, and ptxas's parse of the
# whole file for the target's PTX), then ptxas assembles the kernels that read the hook's
# delay (ci/checks/plant_entries.awk names them): the transform hooks the rung's own files,
# and rungs 10-12 include the rungs below untransformed. Their kernels' PTX in the planted
# copy is the plain build's (the code of each entry the same, its line table aside: 46 of
# rung 10's 48, all 48 of rung 11's rung10.cu, 2 of rung 12's 4, compute_90a), which
# `make build` assembled; assembling them again was 16 CPU s of rung 10's 45 and 25 of rung
# 11's 46 (rung10.cu: no kernel of its own reads the delay, so ptxas does not run on it).
# A rung none of whose kernels reads the delay fails (the hook plants nothing); a .func
# that reads it has every kernel assembled, as before. Planted with this cut in place
# (`make PLANT_HOOK=FILE`, rungs 01, 07, 10, 11, 12): a hook missing a semicolon failed
# all five in cicc; one with an unknown PTX instruction failed all five (in -ptx's parse);
# one with a 240 KB __shared__ array failed all five in ptxas (too much shared data: for
# 10-12 named for their hooked kernels alone, assembled with -e); one that reads no delay
# failed 07-12 (01, -c, passes it, as it did before).
# A unit no hook reaches (plant_transform.py names it: no hooked kernel in it or in a file
# of the copy it includes; rung 11's rung10.cu, rung 10 whole and rung 09's kernel split)
# is compiled at -O0 to PTX (-Xcicc -O0: cicc's front end reads the whole unit, host code,
# the hook's header and the setter included; ptxas parses the PTX), neither optimized nor
# assembled: its kernels are the plain build's (above), and all the planted copy adds to
# them is the setter and the hook's header, which the front end checks. 17.5 CPU s at -O3,
# 4.3 at -O0. Planted with it in place: the setter of the second unit only (rung10.cu)
# reading an undefined name (in plant_transform.py): rung 11 failed, in rung10.cu.
# Rung 13 defines no kernel of its own (it runs rung 09's by its own rule): its copy is hooked
# through rung 09's folder, which its attention.cu includes, copied beside it and hooked
# (plant_transform.py); the 192-row kernel it runs is then delayed, and its rung12.cu (rung
# 12 whole) goes to PTX at -O0 as above. 24 CPU s. Without it the copy planted nothing and
# failed the check (a rung none of whose kernels reads the delay).
PLANT_HOOK ?= harness/planted/plant_hook.cuh
PLANT_HOST_RUNGS := 01_scalar
plant_check_mode = $(if $(filter $(PLANT_HOST_RUNGS),$(1)),-c,-cubin)
PLANT_CHECK_ARCHS := -gencode arch=compute_90,code=sm_90
plant_check_archs = $(if $(findstring -gencode,$(NVCCFLAGS_$(1))),,$(PLANT_CHECK_ARCHS))
PLANT_CHECK_OBJS := $(patsubst %,$(BUILD)/testing/planted_check/%.o,$(PHASE_NAMES))
plant_check_nvcc = $(NVCC) $(subst -shared,,$(subst $(strip $(ARCHS)),$(call plant_check_archs,$(1)),$(NVCCFLAGS))) \
                   $(call plant_flags,$(1),$(BUILD)/testing/plant_check_src/$(1)) \
                   -include $(abspath $(PLANT_HOOK))
$(BUILD)/testing/planted_check/%.o: $$(wildcard phases/$$*/*.cu phases/$$*/*.cuh phases/$$*/*.h phases/$$*/*.c) \
                                    harness/include/attn_phase.h $(PLANT_HOOK) ci/tools/plant_transform.py \
                                    ci/checks/plant_entries.awk
	@mkdir -p $(dir $@) $(BUILD)/testing/planted_check/$*.objs
	@$(PYTHON) ci/tools/plant_transform.py phases/$* $(BUILD)/testing/plant_check_src/$* \
	  $(call plant_includes,$*,$(BUILD)/testing/plant_check_src/$*) > $(BUILD)/testing/planted_check/$*.hooks.txt \
	  || { cat $(BUILD)/testing/planted_check/$*.hooks.txt; exit 1; }
	@echo "nvcc  $@ (planted, $(if $(call plant_check_archs,$*),sm_90,the rung's own target), $(call plant_check_mode,$*))"
	@st=0; hooked=0; for src in $(BUILD)/testing/plant_check_src/$*/*.cu; do \
	  o=$(BUILD)/testing/planted_check/$*.objs/$$(basename $$src .cu); \
	  $(if $(filter -c,$(call plant_check_mode,$*)), \
	    $(call plant_check_nvcc,$*) -Xptxas -v -c -o $$o.o $$src || { st=1; break; }; hooked=1;, \
	    if grep -qxF "plant_transform: unit $$(basename $$src): no hooked kernel in it or the files it includes" \
	         $(BUILD)/testing/planted_check/$*.hooks.txt; then \
	      $(call plant_check_nvcc,$*) -Xcicc -O0 -ptx -o $$o.ptx $$src || { st=1; break; }; e=unhooked; \
	    else \
	      $(call plant_check_nvcc,$*) -ptx -o $$o.ptx $$src || { st=1; break; }; \
	      e=$$(awk -f ci/checks/plant_entries.awk $$o.ptx) || { st=1; break; }; \
	    fi; \
	    case "$$e" in \
	      (unhooked) echo "$$src: no hooked kernel in its unit: its front end and PTX at -O0, not assembled";; \
	      (none) echo "$$src: no kernel reads the delay: its PTX is the plain build's, not assembled again";; \
	      (all) hooked=1; $(call plant_check_nvcc,$*) -Xptxas -v -cubin -o $$o.cubin $$o.ptx || { st=1; break; };; \
	      (*) hooked=1; $(call plant_check_nvcc,$*) -Xptxas -v $$e -cubin -o $$o.cubin $$o.ptx || { st=1; break; };; \
	    esac;) \
	done 2> $(BUILD)/testing/planted_check/$*.ptxas.txt >&2; \
	[ $$st = 1 ] || [ $$hooked = 1 ] || { st=1; echo "$*: no kernel of the planted copy reads the delay (attn_plant_cycles_): the hook plants nothing" \
	  >> $(BUILD)/testing/planted_check/$*.ptxas.txt; }; \
	[ $$st = 0 ] || { cat $(BUILD)/testing/planted_check/$*.ptxas.txt >&2; rm -f $@; exit 1; }
	@touch $@

# ---- sanitizers and fuzzing (CPU parts) -------------------------------------------------
# The harness is compiled once more, with ASan + UBSan (every report fatal) and libFuzzer's
# coverage (fuzzer-no-link), into $(BUILD)/asan/obj; from those one compile come the whole
# sanitized attnladder (the CLI, bad-input and hostile-input cases of check-cli), the unit
# tests again (check-asan) and every fuzz target (check-fuzz). Until issue 53 the ASan tree
# (gcc) and the fuzz targets (clang) compiled the same 120 files twice; the fuzz targets
# also stopped at no UBSan report then (recoverable), and now do. clang, because libFuzzer
# is clang's; gcc's -O1 -Wno-format-truncation is not needed by clang's warnings.
SAN_CC    ?= clang
# -gline-tables-only: a sanitizer's report names each frame's function, file and line from
# the line tables alone; the full debug information (-g) cost a sixth of each compile
# (eight of the largest files, back to back: 19.4 -> 15.9 and 15.3 -> 12.7 CPU s) and
# more bytes at every link.
SAN_FLAGS := -O1 -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CFLAGS := $(SAN_FLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread $(INCLUDES)
ASAN_SRC     := $(filter-out harness/cmd/main.c,$(HARNESS_SRC))
ASAN_LIB_OBJ := $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(ASAN_SRC))
ASAN_OBJ     := $(ASAN_LIB_OBJ) $(BUILD)/asan/obj/harness/cmd/main.o
ASAN_BIN     := $(BUILD)/asan/attnladder
ASAN_TEST_BINS := $(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(TEST_BINS))
# libFuzzer's coverage includes trace-cmp: a call at every integer comparison, so that the
# fuzzer learns the values an input is compared with. core/stats.c compares indices and
# sample values in the bootstrap's loops, never an input's bytes, and those calls were the
# sanitized harness's costliest code: half of a stand-in `report` (tests/data evidence)
# was stats_bootstrap_medians, and without trace-cmp in stats.c the same report took 1.1
# CPU s against 1.9 (ASan and UBSan as before, edge counters kept for the fuzzers). The
# same for the other numeric code, which no fuzz target feeds an input's bytes to: the
# oracle, the inputs' generator, fp16 conversion and the random streams (test_attn_oracle
# 2.3 -> 1.5 CPU s, test_inputs 3.7 -> 2.1). Planted in kernels/oracle/attn_oracle.c: a
# write one past the end of a head's V copy: test_attn_oracle stopped at it as before.
SAN_COVERAGE := -fsanitize=fuzzer-no-link
SAN_NO_TRACE_CMP := harness/core/stats.c harness/core/rng.c harness/core/half.c harness/measure/inputs.c \
                    kernels/oracle/attn_oracle.c
$(patsubst %.c,$(BUILD)/asan/obj/%.o,$(SAN_NO_TRACE_CMP)): SAN_COVERAGE += -fno-sanitize-coverage=trace-cmp
$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(SAN_CC) $(SAN_CFLAGS) $(SAN_COVERAGE) -MMD -MP -c $< -o $@
-include $(ASAN_OBJ:.o=.d)
# lld where it is installed: it links the sanitized objects in half the CPU time of ld.bfd
# (one unit-test binary 0.79 -> 0.43 CPU s), and every unit test links them all.
SAN_LD := $(if $(shell command -v ld.lld 2>/dev/null),-fuse-ld=lld)
$(ASAN_BIN): $(ASAN_OBJ)
	$(SAN_CC) $(SAN_CFLAGS) $(SAN_LD) -o $@ $^ $(HARNESS_LIBS)
# A unit test's own file at -O0: it is compiled once per test binary, and -O1 made its
# compile three times as long (test_writer.c 2.3 -> 0.8 CPU s) for code that runs little;
# the harness it tests keeps -O1. ASan and UBSan instrument -O0 code as they do -O1.
$(BUILD)/asan/tests/%: harness/tests/%.c $(ASAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(SAN_CFLAGS) -O0 $(SAN_LD) -o $@ $< $(ASAN_LIB_OBJ) -lcmocka $(HARNESS_LIBS)
asan-build: $(ASAN_BIN) $(ASAN_TEST_BINS) $(FIXTURES)
asan-tests: check-asan

FUZZ_BINS := $(BUILD)/fuzz/fuzz_evidence $(BUILD)/fuzz/fuzz_cli
# fuzz_evidence keeps its 20 s. Planted in evidence/reader.c: each implementation's name
# copied into 127 bytes, one short for a 127-character name (the validator allows 128): on
# this corpus 1 of 3 fuzzing seeds found it within 45 s (after 117 inputs, 21 s at load 5);
# on the former corpus (every run's seed) one found nothing in 90 s. test_hostile.sh's report of 80
# implementations with 127-character names stops at it every time.
FUZZ_SECONDS ?= 20
# fuzz_cli stops after FUZZ_CLI_RUNS inputs (or FUZZ_SECONDS, whichever first): a count, not
# a time, so a loaded machine does the same work, only slower. Planted in core/shapes.c:
# shape_parse reading 7 fields into its 6 (a stack write one past the end): 13 fuzzing
# seeds found it after 15 to 31,743 inputs (1-11 s wall at load 5; 670,000 inputs took 21 s
# in a quiet clean clone), so 150,000 is five times the slowest.
FUZZ_CLI_RUNS ?= 150000
# The commands that read evidence, fuzzed in-process on mutated runs (fuzz_consumer.c):
# each for FUZZ_CONSUMER_SECONDS in `make test`, seeded from the committed runs, one of each
# GPU and build (make_seeds.py --one-per-build; the other sessions of a build hold the same
# forms). libFuzzer runs every seed before its first mutation and only then looks at the
# time: in the clean clone's make test of d84b9b4, gate, compare and report ran their 8
# seeds in 12-31 s and mutated none. So under make test these are each command on every
# form of committed run, cut small, under the sanitizers (4 seeds since issue 53); the
# mutating is fuzz-long's. Planted in evidence/reader.c: each 12_decode_rows row's name
# copied into 8 bytes (rung 12 is in the H200's build alone): fuzz_show stopped at it on
# the 4 seeds (heap-buffer-overflow). So since issue 53 each stops 1 s from its start, once
# its seeds are replayed: 8 s had each of show, gate, compare and report replay its seeds
# (0.5-5 s) and then mutate 13-104 inputs, 36 s for the four; no fault in the project's
# history was found in those inputs. The same fault planted again (a stack copy this time)
# with 1 s: fuzz_show stopped at it on its seeds (stack-buffer-overflow).
FUZZ_CONSUMERS := show gate compare report
FUZZ_CONSUMER_SECONDS ?= 1
# libFuzzer runs an input a second time, to look for a leak, whenever its mallocs and frees
# do not balance, and gate, compare and report keep what they compute for the next call
# (core/memo.c): every seed ran twice (fuzz_gate: 9 runs for 4 seeds, 3.9 CPU s; 5 runs,
# 2.3 s without). Under make test the leak check is LeakSanitizer's at exit instead, which
# fails the target as well: planted in evidence/reader.c, 32 bytes allocated and dropped
# for each 12_decode_rows row: fuzz_gate failed with -detect_leaks=0 (exit 1, "detected
# memory leaks") as with 1 (exit 77). fuzz-long keeps libFuzzer's, which names the input.
FUZZ_CONSUMER_LEAKS ?= 0
FUZZ_CONSUMER_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_CONSUMERS))
# Each target is the sanitized objects above linked with its driver and libFuzzer.
FUZZ_LINK := $(SAN_CC) $(SAN_CFLAGS) $(SAN_LD) -fsanitize=fuzzer
# The evidence targets mutate runs in structure as well as in bytes (mutate_structure.c).
$(BUILD)/fuzz/fuzz_cli: $(BUILD)/fuzz/%: harness/fuzz/%.c $(ASAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_LINK) -o $@ $^ $(HARNESS_LIBS)
$(BUILD)/fuzz/fuzz_evidence: harness/fuzz/fuzz_evidence.c harness/fuzz/mutate_structure.c $(ASAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_LINK) -o $@ $^ $(HARNESS_LIBS)
$(FUZZ_CONSUMER_BINS): $(BUILD)/fuzz/fuzz_%: harness/fuzz/fuzz_consumer.c harness/fuzz/mutate_structure.c $(ASAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_LINK) -DFUZZ_$(shell echo $* | tr a-z A-Z) -o $@ $^ $(HARNESS_LIBS)

# Corpus: typical command lines, and the committed runs cut small (for the reader and
# the consumers; harness/fuzz/make_seeds.py).
fuzz-corpus:
	@mkdir -p $(BUILD)/fuzz/corpus_evidence $(BUILD)/fuzz/corpus_cli
	@printf -- '--shape\n1,8,512,64,1\n--modes\ngraph,cold\n' > $(BUILD)/fuzz/corpus_cli/a
	@printf -- '--sweep\n--impl\n01_scalar,06_tiling\n--max-seconds\n0.5\n' > $(BUILD)/fuzz/corpus_cli/b
	@rm -rf $(BUILD)/fuzz/seeds_consumer
	@$(PYTHON) harness/fuzz/make_seeds.py --one-per-build $(BUILD)/fuzz/seeds_consumer $(wildcard evidence/*/[0-9]*.json evidence/*/[0-9]*.json.gz)
	@# the reader's corpus: the runs cut small (a structural mutation reparses the whole
	@# input; the full runs are read whole by test_untrusted) and the test fixtures
	@cp $(BUILD)/fuzz/seeds_consumer/* $(BUILD)/fuzz/corpus_evidence/
	@find harness/tests/data -name '*.json' -size -2M -exec cp {} $(BUILD)/fuzz/corpus_evidence/ \; 2>/dev/null || true

# Each target's log ends with libFuzzer's count of runs; a crash, leak or hang fails. The
# consumers' reference run is the accepted run's seed (make_seeds.py names it without .gz);
# a reference that cannot be read stops them at once (fuzz_consumer.c). A consumer's input
# may take 30 s: the report on a seed of a whole reference run (60 shapes, 13
# implementations, every history CI bootstrapped) took 13 s under the sanitizers on a
# loaded 2-core machine; a hang is still one.
fuzz: $(FUZZ_BINS) $(FUZZ_CONSUMER_BINS) fuzz-corpus
	@for f in evidence cli; do \
	  if ! $(BUILD)/fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) $$([ $$f = cli ] && echo -runs=$(FUZZ_CLI_RUNS)) -timeout=5 -rss_limit_mb=2048 \
	      -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus_$$f > $(BUILD)/fuzz/$$f.log 2>&1; then \
	    tail -30 $(BUILD)/fuzz/$$f.log; echo "fuzz_$$f: failed (log: $(BUILD)/fuzz/$$f.log)"; exit 1; fi; \
	  echo "fuzz_$$f: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $(BUILD)/fuzz/$$f.log), no crash, hang or leak"; \
	done
	@for f in $(FUZZ_CONSUMERS); do \
	  mkdir -p $(BUILD)/fuzz/corpus_$$f; \
	  if ! FUZZ_REFERENCE=$(BUILD)/fuzz/seeds_consumer/seed_$$(head -1 evidence/nvidia-h100-80gb-hbm3/accepted.txt | sed 's/\.gz$$//') \
	      $(BUILD)/fuzz/fuzz_$$f -max_total_time=$(FUZZ_CONSUMER_SECONDS) -detect_leaks=$(FUZZ_CONSUMER_LEAKS) -timeout=30 -rss_limit_mb=2048 \
	      -dict=harness/fuzz/evidence.dict -artifact_prefix=$(BUILD)/fuzz/$$f- \
	      $(BUILD)/fuzz/corpus_$$f $(BUILD)/fuzz/seeds_consumer > $(BUILD)/fuzz/$$f.log 2>&1; then \
	    tail -30 $(BUILD)/fuzz/$$f.log; echo "fuzz_$$f: failed (log: $(BUILD)/fuzz/$$f.log)"; exit 1; fi; \
	  echo "fuzz_$$f: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $(BUILD)/fuzz/$$f.log), no crash, hang or leak"; \
	done

# The longer run, by hand or nightly: ten minutes per target.
fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=600 FUZZ_CONSUMER_SECONDS=600 FUZZ_CLI_RUNS=-1 FUZZ_CONSUMER_LEAKS=1

# ---- make test: every check, the independent ones side by side ------------------------
# CI's machine has two cores: the checks run TEST_JOBS at a time, each one's output kept
# together (-Otarget). A check is a target here with what it reads as prerequisites, so
# the build, the fuzz targets and the drift results are made once and in parallel. The
# drift gate over every committed run is done once, into $(BUILD)/drift, and read by
# test_drift.sh and both study_summary checks.
TEST_JOBS ?= 2
# The order they start in. Walking this list, GNU make starts each check whose
# prerequisites are made and the builds of the others; a check still waiting for its
# build is started only on a later walk, after every ready check further down the list
# (4.3 does so: a check with no build would otherwise run before a long one whose build
# finished first, and the long ones end up last, one core idle while they finish). So
# under `make test` the short checks wait for the builds (order-only, below): the builds
# and the fuzzers' fixed minute go first, then the long checks, longest first, and the
# short ones fill the end. Each check's CPU seconds on the 2-core machine are kept in
# ci/checks/test_budget.tsv, and make test's last lines show this run's beside them.
TEST_LONG  := check-fuzz check-cli check-asan check-judge check-drift \
              check-report check-planted check-kernels check-study
TEST_SHORT := check-freeze check-layers check-names check-lint check-ab-gate check-store check-scripts
TEST_CHECKS := $(TEST_LONG) $(TEST_SHORT)
ifneq ($(filter test-checks,$(MAKECMDGOALS)),)
$(TEST_SHORT): | build asan-build $(TEST_BINS) $(FIXTURES) $(PLANT_CHECK_OBJS)
endif
ifneq ($(filter test-checks,$(MAKECMDGOALS))$(if $(filter 0,$(MAKELEVEL)),$(TEST_TIMES)),)
# Where the time goes: under `make test` every recipe line runs through
# ci/checks/timed_line.sh, which records its target, start and end; at the end
# ci/checks/test_times.py prints one line a check (and a line a kind of build) beside the
# check's budget (ci/checks/test_budget.tsv, measured on the 2-core build machine) and a
# warning, never a failure, for a check over twice its figure. $(BUILD)/test_times.tsv keeps
# it. `make TEST_TIMES=1 check-xxx` records a single check the same way (the top make only:
# a make a check runs in a scratch tree, as test_freeze.sh does, has no timed_line.sh).
SHELL := /bin/bash
.SHELLFLAGS = $(CURDIR)/ci/checks/timed_line.sh $@ -c
export ATTN_TEST_TIMES ?= $(abspath $(BUILD))/test_times/lines.tsv
$(shell mkdir -p $(dir $(ATTN_TEST_TIMES)))
endif
.PHONY: test-checks $(TEST_CHECKS)

# Every check under make test starts the python3 interpreter itself, not a version manager's
# shim (ci/checks/python_once.sh: pyenv's costs 0.6 CPU s a start here, the interpreter 0.1).
test: deps
	@rm -rf $(BUILD)/test_times; mkdir -p $(BUILD)/test_times
	@. ci/checks/python_once.sh; python_once $(abspath $(BUILD))/python_once; \
	  status=0; $(MAKE) --no-print-directory -j$(TEST_JOBS) -Otarget test-checks || status=$$?; \
	  $(PYTHON) ci/checks/test_times.py --lines $(BUILD)/test_times/lines.tsv --build $(BUILD) \
	    --budget ci/checks/test_budget.tsv --out $(BUILD)/test_times.tsv || status=2; \
	  [ $$status = 0 ] || { echo "make test: failed (the table above says where the time went)"; exit $$status; }
	@echo "make test: all passed"
test-checks: $(TEST_CHECKS)

# The unit tests run once under make test: check-asan, the same tests and assertions built
# with ASan and UBSan, which also stop on the memory and undefined-behaviour faults that the
# plain build's run (check-unit) passes. Planted in core/stats.c: a median 0.1% wrong failed
# both runs of test_stats (10 tests each); a read one past the end of the median's sorted
# copy passed the plain run and stopped the ASan one (heap-buffer-overflow). Until issue 53
# make test ran both: the plain run took 96 s alone here, the ASan one 209 s. The binaries are
# still built under make test (gcc -O2's warnings are not clang's); `make check-unit` runs
# them, the quick loop while working.
check-unit: unit-tests
check-kernels: kernel-checks
	@bash ci/checks/check_build_sources.sh $(BUILD)
# The tests that read every committed run (round trips through the reader and the writer)
# read one run of each GPU and build under the sanitizers (harness/tests/evidence/
# committed_runs.h) and every run in the plain build, those tests alone: 107 CPU s of
# test_untrusted and test_writer under ASan before, 61 + 19 plain now. Planted in
# evidence/reader.c: a 16-byte copy of each row's implementation name, which overflows on
# sdpa_cudnn_torch (the H200 runs' PyTorch baseline alone): both sampled ASan binaries
# stopped at it (heap-buffer-overflow, in their committed-run round trip).
# The costliest ASan binaries since issue 53: test_report draws with a stand-in gnuplot
# where a test reads no drawing (94 -> 68 CPU s); test_l2_timing, test_consistency and
# test_compare_cmd edit committed runs cut to the rows they edit (28 -> 5, 21 -> 5, 12 -> 9).
# Then: test_untrusted edits the accepted run cut to one shape (27.5 -> 8.4); test_report's
# stand-in has gnuplot draw only the plots a test reads (285 -> 101 gnuplot starts, 47 -> 36);
# core/stats.c without trace-cmp (above) took a third off every binary that bootstraps.
# Then: gate/decide.c answers a change asked for again in one process from the memo
# (test_report 29-39 -> 23-25 CPU s, test_compare_cmd 3.5-4.7 -> 2.1-2.3); test_writer reads
# the reference run once for the five tests that write its parts back (3.5-3.9 -> 0.9-1.3
# for four of them).
# Then: test_writer reads each committed file once for the round trip, the rows written
# from typed values and the pairs' design (four tests read each file again, the reference
# run three times); test_report asks whether gnuplot is there once, and its stand-in
# prints its SVG itself, no cat started a plot. Back to back, at load 4: test_writer under
# the sanitizers 24.7 and 17.3 -> 13.4 and 12.5 CPU s, plain (every committed run) 10.5 ->
# 7.9 and 9.5; test_report 37.6 and 26.7 -> 27.1 and 22.9. Planted in evidence/reader.c (a
# "pair" design read as rotation) and evidence/writer.c (an oracle check's rows written one
# more): test_writer failed in both builds; in report/plots.c (a plot's title and desc never
# written in): test_report's gaps_fail_the_check and rung_not_yet_run_on_a_gpu (the
# stand-in's plots) and reproducible_and_checked (gnuplot's) failed.
# Each names, beside the change, the fault planted in the code it checks that still failed it.
COMMITTED_RUN_TESTS := $(BUILD)/tests/evidence/test_untrusted $(BUILD)/tests/evidence/test_writer
check-asan: asan-build $(COMMITTED_RUN_TESTS)
	@set -e; for t in $(ASAN_TEST_BINS); do echo "== $$t"; ATTN_COMMITTED_RUNS=sample ATTN_FIXTURES=$(BUILD)/fixtures $$t; done
	@set -e; for t in $(COMMITTED_RUN_TESTS); do echo "== $$t (every committed run)"; ATTN_TEST_ONLY='*committed*' ATTN_FIXTURES=$(BUILD)/fixtures $$t; done
check-fuzz: $(FUZZ_BINS) $(FUZZ_CONSUMER_BINS)
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20
# the CLI, bad-input and hostile-input cases run the binary built with ASan and UBSan
check-cli: build asan-build
	@bash ci/checks/test_cli.sh $(ASAN_BIN)
	@bash ci/checks/test_full_disk.sh $(ASAN_BIN)
# the report, one shape rule's study, and the tool that reads a rung's step from runs' pairs
check-report: $(BUILD)/attnladder
	@$(BUILD)/attnladder report --check
	@$(PYTHON) ci/checks/test_one_rule.py --bin $(BUILD)/attnladder
	@$(PYTHON) ci/tools/rung_step.py --self-test
check-freeze:
	@bash ci/freeze.sh --check
	@bash ci/checks/test_freeze.sh
	@$(PYTHON) ci/tools/same_code.py --self-test
check-layers: $(HARNESS_OBJ)
	@$(PYTHON) ci/checks/check_layers.py --objects $(BUILD)/obj
	@$(PYTHON) ci/checks/check_long_functions.py
	@bash ci/checks/test_layers.sh
# no two files under harness/ share a base name (ci/checks/check_names.py); the READMEs
# readers open stay within their sizes (ci/checks/check_doc_sizes.py); README.md's ladder
# table lists every rung of phases/, frozen or saying it is not (ci/checks/check_ladder_table.py)
check-names:
	@$(PYTHON) ci/checks/check_names.py --self-test
	@$(PYTHON) ci/checks/check_names.py
	@bash ci/checks/test_names.sh
	@$(PYTHON) ci/checks/check_doc_sizes.py --self-test
	@$(PYTHON) ci/checks/check_doc_sizes.py
	@$(PYTHON) ci/checks/check_ladder_table.py --self-test
	@$(PYTHON) ci/checks/check_ladder_table.py
check-lint:
	@bash ci/checks/lint_workflow.sh
	@bash ci/checks/test_workflow_rules.sh
	@bash ci/checks/test_codeowners.sh
# the gate against pull requests made to pass it (both workflows dry-run; no GPU)
check-judge: $(BUILD)/attnladder $(HARNESS_OBJ)
	@bash ci/checks/test_judge.sh $(BUILD)
check-ab-gate: $(BUILD)/attnladder $(PATH_FIXTURES) $(BUILD)/kernels/launch_floor.so
	@bash ci/checks/test_ab_gate.sh $(BUILD)
	@bash ci/checks/test_profile_driver.sh $(BUILD)
check-store:
	@bash ci/checks/check_store.sh
check-scripts:
	@bash ci/checks/test_deps.sh
	@bash ci/checks/test_build_sources.sh
	@bash ci/checks/test_pr_comment.sh
	@$(PYTHON) ci/checks/test_sanitize_verdict.py
	@$(PYTHON) ci/checks/check_faulty_tile.py $(wildcard evidence/*/studies/faulty/faulty_skip_tile_*.json*)
	@$(PYTHON) ci/checks/test_plant_transform.py
	@$(PYTHON) ci/checks/test_plant_rules.py
	@bash ci/checks/test_study_tools.sh
	@$(PYTHON) ci/checks/test_torch_sdpa.py
	@bash ci/checks/test_check_bridge.sh
	@bash ci/checks/test_sass_loops.sh
	@bash ci/checks/test_note_mark.sh
	@bash ci/checks/test_check_kernels.sh $(BUILD)
	@$(PYTHON) ci/checks/test_times.py --self-test
# the drift gate on every committed run, once (ci/checks/drift_runs.sh)
DRIFT_INPUTS := $(wildcard evidence/*/accepted.txt evidence/*/2*.json evidence/*/2*.json.gz) ci/gate.json ci/checks/drift_runs.sh
# The inputs' names, rewritten only when they change: a run taken out of evidence/ (to
# history) makes no prerequisite newer, so without it the index would keep judging the run.
$(BUILD)/drift-inputs.txt: FORCE
	@mkdir -p $(BUILD); echo "$(DRIFT_INPUTS)" > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/drift/index.txt: $(BUILD)/attnladder $(DRIFT_INPUTS) $(BUILD)/drift-inputs.txt
	@bash ci/checks/drift_runs.sh $(BUILD)/attnladder $(BUILD)/drift $(TEST_JOBS)
check-drift: $(BUILD)/drift/index.txt
	@bash ci/checks/test_drift.sh $(BUILD)/attnladder $(BUILD)/drift
check-study: $(BUILD)/drift/index.txt
	@$(PYTHON) ci/tools/study_summary.py --check --bin $(BUILD)/attnladder --drift $(BUILD)/drift
	@bash ci/checks/test_study_summary.sh $(BUILD)/attnladder $(BUILD)/drift
check-planted: $(PLANT_CHECK_OBJS)
	@echo "check-planted: $(words $(PLANT_CHECK_OBJS)) phases take the planted delay and compile (their study target)"

# ---- run -----------------------------------------------------------------------------
# Running installs nothing (a GPU machine, a CI runner, may have no network and no sudo):
# it builds what is missing with the tools at hand, and a machine without them is told to
# run `make deps` itself. The reports' gnuplot is named by run_ladder.sh when it is missing.
run:
	@if ! $(MAKE) --no-print-directory -q $(BUILD)/attnladder $(PHASE_SOS) $(KERNEL_SOS) 2>/dev/null; then \
	  $(MAKE) --no-print-directory build \
	    || { echo "make run: the build failed; on a machine without the build's packages run make deps first (it uses apt-get)" >&2; exit 1; }; fi
	@bash ci/workflow/run_ladder.sh $(BUILD)

# compute-sanitizer over every phase and baseline (GPU machine only).
sanitize: build
	@bash ci/workflow/sanitize.sh $(BUILD)

clean:
	rm -rf $(BUILD)
