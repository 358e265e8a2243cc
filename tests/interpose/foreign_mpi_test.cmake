# One run of a program of the OTHER MPI than libredux's, with libredux preloaded (tests/interpose/CMakeLists.txt,
# "Another MPI's program"). Run as cmake -P with
#   LAUNCHER   that MPI's mpiexec          VENDOR   OpenMPI or MPICH (the launcher's)
#   RANKS      how many processes          PROGRAM  the program (foreign_mpi.c or .f90, built with that MPI)
#   LIBREDUX   libredux.so, built for the other MPI than VENDOR
# Passes when the job exits 0, rank 0 printed "foreign_mpi: ok" (every result checked), libredux's line
# "libredux: built for X but the program runs Y: every MPI_Reduce goes to the MPI library's own" appears exactly
# once per process, and libredux planned nothing (REDUX_VERBOSE=1 would print "libredux: new plan").
foreach(variable LAUNCHER VENDOR RANKS PROGRAM LIBREDUX)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "foreign_mpi_test.cmake: ${variable} is not set")
    endif()
endforeach()

# LD_PRELOAD and REDUX_VERBOSE go to the ranks only, on the launcher's command line, as redux_add_mpi_test does.
if(VENDOR STREQUAL "OpenMPI")
    set(command ${LAUNCHER} -n ${RANKS} --oversubscribe --bind-to none
        -x LD_PRELOAD=${LIBREDUX} -x REDUX_VERBOSE=1 ${PROGRAM})
    set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
    set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
    set(ENV{OMPI_MCA_rmaps_base_oversubscribe} 1)
    set(ENV{OMPI_MCA_mpi_yield_when_idle} 1)
else()
    set(command ${LAUNCHER} -n ${RANKS} -genv LD_PRELOAD ${LIBREDUX} -genv REDUX_VERBOSE 1 ${PROGRAM})
endif()
string(REPLACE ";" " " shown "${command}")
message(STATUS "running: ${shown}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
message(STATUS "stdout:\n${out}")
message(STATUS "stderr:\n${err}")

set(problems "")
if(NOT rc STREQUAL "0")
    list(APPEND problems "the job exited with ${rc}")
endif()
if(NOT out MATCHES "foreign_mpi: ok")
    list(APPEND problems "rank 0 did not print 'foreign_mpi: ok'")
endif()
string(REGEX MATCHALL "libredux: built for [^\n]* but the program runs [^\n]*: every MPI_Reduce goes to the MPI library's own"
    lines "${err}")
list(LENGTH lines count)
if(NOT count EQUAL RANKS)
    list(APPEND problems "libredux's line appeared ${count} times, expected once per process (${RANKS})")
endif()
if("${out}${err}" MATCHES "libredux: new plan")
    list(APPEND problems "libredux planned a reduction under another MPI")
endif()
if(problems)
    string(REPLACE ";" "; " problems "${problems}")
    message(FATAL_ERROR "foreign MPI at ${RANKS} ranks: ${problems}")
endif()
