#!/usr/bin/env bash
# The sanitizer variant of the test command: builds ./build-sanitize against Open MPI with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DREDUX_SANITIZE=ON) and runs the unit, CLI and MPI tests there; then the threaded
# calibration test under ThreadSanitizer (./build-tsan). Not part of
# tests/run-all.sh (it would add a third build to CI's 2-core run); run it before a release or after touching
# the executor: about 15 minutes of tests on 2 cores, plus the build. Left out: valgrind (does not mix with
# ASan), the interposition tests that preload libredux.so or link the installed one into a program built
# without the sanitizers (ASan must be the first library loaded, which such a program does not do) and the
# emulated-cluster test.
# Leak detection is off: Open MPI's and PMIx's plugins are unloaded before LeakSanitizer looks, so their leaks
# show as "<unknown module>" that no suppression can name (tests/sanitizers/lsan.supp names the rest). Leaks of
# libredux are checked by the valgrind tests of the main test command (definite leaks fail them).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v mpicxx.openmpi >/dev/null; then
    echo "run-sanitizers: Open MPI is not installed; run cmake/setup-debian.sh first" >&2
    exit 1
fi
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDUX_SANITIZE=ON \
    -DMPI_C_COMPILER="$(command -v mpicc.openmpi)" -DMPI_CXX_COMPILER="$(command -v mpicxx.openmpi)" \
    -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.openmpi)" "$@" || exit 1
cmake --build build-sanitize -j"$(nproc)" || exit 1

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=${PWD}/tests/sanitizers/lsan.supp:print_suppressions=0"
# Open MPI unloads its plugins (mca_*.so) at MPI_Finalize, before LeakSanitizer looks: their leaks would show
# as "<unknown module>", which no suppression can name. Keep them loaded.
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=${SECONDS}
ctest --test-dir build-sanitize --output-on-failure -j2 --timeout 900 --no-tests=error -LE 'valgrind|cluster' \
    -E '^interpose\.([a-z0-9_]*_preload|foreign_mpi|installed_[a-z0-9_]*)'
status=$?

# ThreadSanitizer, for what threads run at once: link calibration on several communicators under
# MPI_THREAD_MULTIPLE (tests/mpi/calibration_threads_test.cpp), in ./build-tsan, that test's target only (a few
# minutes of build, under a minute of tests). Open MPI is not instrumented: tests/sanitizers/tsan.supp names it.
tsan=-fsanitize=thread
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=${tsan} -DCMAKE_CXX_FLAGS=${tsan} \
    -DCMAKE_EXE_LINKER_FLAGS=${tsan} -DCMAKE_SHARED_LINKER_FLAGS=${tsan} -DREDUX_BUILD_TESTS=ON \
    -DMPI_C_COMPILER="$(command -v mpicc.openmpi)" -DMPI_CXX_COMPILER="$(command -v mpicxx.openmpi)" \
    -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.openmpi)" &&
    cmake --build build-tsan -j"$(nproc)" --target redux_mpi_calibration_threads_test &&
    TSAN_OPTIONS="suppressions=${PWD}/tests/sanitizers/tsan.supp" ctest --test-dir build-tsan --output-on-failure \
        -j2 --timeout 600 --no-tests=error -R '^mpi\.calibration_threads\.' || status=1
echo "run-sanitizers: $( ((status == 0)) && echo passed || echo FAILED ), $((SECONDS - start)) s of tests"
exit ${status}
