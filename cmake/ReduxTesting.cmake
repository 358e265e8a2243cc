# Test registration helpers.
#
# redux_add_unit_tests(<target>)
#     Registers every GoogleTest case of <target> as its own ctest entry (label `unit`, 600 s timeout).
#
# redux_add_mpi_test(NAME <name> TARGET <exe> [RANKS <n>...] [TIMEOUT <seconds>] [ARGS <arg>...])
#     Registers one ctest entry per rank count, named <name>.np<N> (label `mpi`), running
#         mpiexec -n N [vendor flags] <preflags> <exe> <postflags> <args>
#     RANKS defaults to REDUX_MPI_TEST_RANKS, TIMEOUT to 120 s. The vendor flags make Open MPI start more
#     ranks than there are cores, and as root, without anything from the user; MPICH's hydra needs none.
include_guard(GLOBAL)
include(GoogleTest)

set(REDUX_MPI_TEST_RANKS "1;2;3;4;5;7;8" CACHE STRING "Rank counts every MPI test runs at")

function(redux_add_unit_tests target)
    gtest_discover_tests(${target}
        DISCOVERY_TIMEOUT 60
        PROPERTIES TIMEOUT 600 LABELS unit)
endfunction()

# Which launcher is MPIEXEC_EXECUTABLE? Asked once per build tree; the answer is cached.
function(_redux_detect_mpiexec_vendor)
    if(DEFINED CACHE{REDUX_MPIEXEC_VENDOR})
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
endfunction()

function(redux_add_mpi_test)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;TIMEOUT" "RANKS;ARGS")
    if(NOT arg_NAME OR NOT arg_TARGET)
        message(FATAL_ERROR "redux_add_mpi_test: NAME and TARGET are required")
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

    foreach(ranks IN LISTS arg_RANKS)
        set(test_name "${arg_NAME}.np${ranks}")
        add_test(NAME ${test_name}
            COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${vendor_flags}
                    ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${arg_TARGET}> ${MPIEXEC_POSTFLAGS} ${arg_ARGS})
        set_tests_properties(${test_name} PROPERTIES
            TIMEOUT ${arg_TIMEOUT}
            LABELS mpi
            PROCESSORS ${ranks})
        if(vendor_env)
            set_tests_properties(${test_name} PROPERTIES ENVIRONMENT "${vendor_env}")
        endif()
    endforeach()
endfunction()
