# Test registration helpers.
#
# redux_add_unit_tests(<target>)
#     Registers every GoogleTest case of <target> as its own ctest entry (label `unit`, 600 s timeout).
#
# redux_add_mpi_test(NAME <name> TARGET <exe> [RANKS <n>...] [TIMEOUT <seconds>] [ARGS <arg>...]
#                    [ENVIRONMENT <NAME=VALUE>...] [LABELS <label>...])
#     Registers one ctest entry per rank count, named <name>.np<N> (label `mpi`), running
#         mpiexec -n N [vendor flags] <preflags> <exe> <postflags> <args>
#     RANKS defaults to REDUX_MPI_TEST_RANKS, TIMEOUT to 120 s. The vendor flags make Open MPI start more
#     ranks than there are cores, and as root, without anything from the user; MPICH's hydra needs none (but
#     see the note on busy polling below). A launcher and an MPI library of different vendors are refused.
include_guard(GLOBAL)
include(GoogleTest)


function(redux_add_unit_tests target)
    gtest_discover_tests(${target}
        DISCOVERY_TIMEOUT 60
        PROPERTIES TIMEOUT 600 LABELS unit)
endfunction()

# Which launcher is MPIEXEC_EXECUTABLE? Asked once per launcher; the answer is cached with the path it is for,
# so a build tree re-pointed at another MPI (cmake/setup-debian.sh does this) asks again.
function(_redux_detect_mpiexec_vendor)
    if(DEFINED CACHE{REDUX_MPIEXEC_VENDOR} AND "${REDUX_MPIEXEC_VENDOR_OF}" STREQUAL "${MPIEXEC_EXECUTABLE}")
        return()
    endif()
    if(NOT MPIEXEC_EXECUTABLE)
        message(FATAL_ERROR "redux_add_mpi_test: MPIEXEC_EXECUTABLE is not set (find_package(MPI) found no mpiexec)")
    endif()
    execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version
        OUTPUT_VARIABLE version_out ERROR_VARIABLE version_out
        RESULT_VARIABLE version_rc TIMEOUT 30)
    if(version_out MATCHES "Open MPI|OpenRTE")
        set(vendor OpenMPI)
    elseif(version_out MATCHES "HYDRA|MPICH")
        set(vendor MPICH)
    else()
        set(vendor unknown)
    endif()

    message(STATUS "MPI launcher: ${MPIEXEC_EXECUTABLE} (${vendor})")
    set(REDUX_MPIEXEC_VENDOR "${vendor}" CACHE INTERNAL "Vendor of MPIEXEC_EXECUTABLE")
    set(REDUX_MPIEXEC_VENDOR_OF "${MPIEXEC_EXECUTABLE}" CACHE INTERNAL "The launcher REDUX_MPIEXEC_VENDOR is for")
endfunction()

# The rank counts every MPI test runs at, unless the test names its own: 1, 2, 3, 4, 5, 7 and 8 under Open MPI,
# the same without 5 under MPICH, whose blocking calls busy-poll (see redux_add_mpi_test): with more ranks than cores
# each of its tests takes up to 90 times as long as under Open MPI, and 5 ranks cost CI's 2-core machine 3.5
# minutes. 1, 2, 3, 4, 7 and 8 remain under both: one rank, powers of two and non-powers on both sides of 4.
_redux_detect_mpiexec_vendor()
if(REDUX_MPIEXEC_VENDOR STREQUAL "MPICH")
    set(REDUX_MPI_TEST_RANKS "1;2;3;4;7;8" CACHE STRING "Rank counts every MPI test runs at")
else()
    set(REDUX_MPI_TEST_RANKS "1;2;3;4;5;7;8" CACHE STRING "Rank counts every MPI test runs at")
endif()

# A launcher from one MPI starting programs linked against the other does not fail: every rank comes up as its
# own MPI_COMM_WORLD of size 1, and a test that passes at one rank "passes" at eight. Refuse that pairing at
# configure time, when the library's vendor can be told from its file names. Checked once per configure run
# (it is cheap), not cached: the launcher and the library are cached separately and either may change.
function(_redux_check_mpi_pairing)
    get_property(checked GLOBAL PROPERTY _REDUX_MPI_PAIRING_CHECKED)
    if(checked)
        return()
    endif()
    set_property(GLOBAL PROPERTY _REDUX_MPI_PAIRING_CHECKED TRUE)
    set(library_vendor unknown)
    if(MPI_CXX_LIBRARIES MATCHES "mpich")
        set(library_vendor MPICH)
    elseif(MPI_CXX_LIBRARIES MATCHES "[Oo]pen-?[Mm][Pp][Ii]")
        set(library_vendor OpenMPI)
    endif()
    if(NOT REDUX_MPIEXEC_VENDOR STREQUAL "unknown" AND NOT library_vendor STREQUAL "unknown"
            AND NOT REDUX_MPIEXEC_VENDOR STREQUAL library_vendor)
        message(FATAL_ERROR "redux_add_mpi_test: the launcher ${MPIEXEC_EXECUTABLE} is ${REDUX_MPIEXEC_VENDOR}'s, "
            "but the MPI library (${MPI_CXX_LIBRARIES}) is ${library_vendor}'s: its ranks would never meet. "
            "Set MPIEXEC_EXECUTABLE and MPI_C_COMPILER/MPI_CXX_COMPILER to programs of one MPI.")
    endif()
endfunction()

function(redux_add_mpi_test)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;TIMEOUT" "RANKS;ARGS;ENVIRONMENT;LABELS;COMMAND")
    if(NOT arg_NAME OR (NOT arg_TARGET AND NOT arg_COMMAND))
        message(FATAL_ERROR "redux_add_mpi_test: NAME and TARGET (or COMMAND, a program and its first arguments) are required")
    endif()
    if(arg_TARGET)
        set(arg_COMMAND $<TARGET_FILE:${arg_TARGET}>)
    endif()
    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "redux_add_mpi_test: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT arg_RANKS)
        set(arg_RANKS ${REDUX_MPI_TEST_RANKS})
    endif()
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 120)
    endif()

    _redux_detect_mpiexec_vendor()
    _redux_check_mpi_pairing()
    set(vendor_flags "")
    set(vendor_env "")
    if(REDUX_MPIEXEC_VENDOR STREQUAL "OpenMPI")
        # More ranks than cores, as root (containers, CI), without binding concurrent ctest jobs to the same
        # cores, and yielding the core while waiting so oversubscribed ranks make progress.
        set(vendor_flags --oversubscribe --bind-to none)
        set(vendor_env
            OMPI_ALLOW_RUN_AS_ROOT=1
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
            OMPI_MCA_rmaps_base_oversubscribe=1
            OMPI_MCA_mpi_yield_when_idle=1)
    endif()
    # MPICH's hydra needs nothing: as root it starts any number of ranks on this host through its fork
    # launcher, and binds nothing unless asked. What MPICH cannot be told is to yield: Debian 12's MPICH 4.0.2
    # (ch4:ucx) busy-polls in every blocking call, and libmpich does not even import sched_yield
    # (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's; ch4's progress throttle, MPICH PR 7368, came years later).
    # With 8 ranks on 2 cores each message waits out the kernel's time slices: mpi.plan_programs.np8 takes
    # ~30 s under MPICH against ~0.3 s under Open MPI. Waiting by MPI_Test* with sched_yield() in between
    # removes that (measured: 0.15 s), so MPI tests and executors should wait that way, not in blocking calls.

    # ENVIRONMENT NAME=VALUE...: given to every rank on the launcher's command line (Open MPI: -x NAME=VALUE,
    # hydra: -genv NAME VALUE), not to the launcher itself, so an LD_PRELOAD reaches the ranks only.
    set(forward_flags "")
    foreach(assignment IN LISTS arg_ENVIRONMENT)
        if(REDUX_MPIEXEC_VENDOR STREQUAL "OpenMPI")
            list(APPEND forward_flags -x "${assignment}")
        else()
            string(REGEX REPLACE "=.*" "" variable "${assignment}")
            string(REGEX REPLACE "^[^=]*=" "" value "${assignment}")
            list(APPEND forward_flags -genv "${variable}" "${value}")
        endif()
    endforeach()

    set(labels mpi ${arg_LABELS})
    set(environment ${vendor_env})
    foreach(ranks IN LISTS arg_RANKS)
        set(test_name "${arg_NAME}.np${ranks}")
        add_test(NAME ${test_name}
            COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${vendor_flags} ${forward_flags}
                    ${MPIEXEC_PREFLAGS} ${arg_COMMAND} ${MPIEXEC_POSTFLAGS} ${arg_ARGS})
        set_tests_properties(${test_name} PROPERTIES
            TIMEOUT ${arg_TIMEOUT}
            LABELS "${labels}"
            PROCESSORS ${ranks})
        if(environment)
            set_tests_properties(${test_name} PROPERTIES ENVIRONMENT "${environment}")
        endif()
    endforeach()
endfunction()

# Keeps the calling directory's tests off the user's wisdom file: auto keeps its decisions in
# ~/.cache/libredux/wisdom.json by default (docs/usage.md), and a test would start from what an earlier test or run
# decided. REDUX_WISDOM=off goes first in each test's ENVIRONMENT, so a test that names its own file keeps it.
# Called at the end of each directory whose tests run libredux.
function(redux_tests_without_user_wisdom)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(test IN LISTS tests)
        get_test_property(${test} ENVIRONMENT environment)
        if(NOT environment)
            set(environment "")
        endif()
        set_property(TEST ${test} PROPERTY ENVIRONMENT REDUX_WISDOM=off ${environment})
    endforeach()
endfunction()
