# interpose.install: installs the build tree, runs the installed programs and builds two consumers of the
# installed package, as a user would.
#   cmake -D BUILD_DIR=<libredux build> -D WORK_DIR=<scratch> -D CONSUMER_DIR=<tests/interpose/consumer>
#         -D C_COMPILER=<cc> -D CXX_COMPILER=<c++> -D GENERATOR=<cmake generator> [-D PKG_CONFIG=<pkg-config>]
#         [-D REDUX_PLAN=ON] [-D MPI_BENCH=ON -D MPIEXEC=<mpiexec> -D MPIEXEC_NUMPROC_FLAG=<-n>
#          -D "MPIEXEC_FLAGS=<flags, space separated>" -D "MPIEXEC_POSTFLAGS=<flags>"
#          -D "MPIEXEC_ENV=<NAME=VALUE ..., space separated>"]
#         -P install_test.cmake
# 1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix, and the files a consumer needs are there;
#    then the installed programs run from the prefix as they are, with no LD_LIBRARY_PATH, so they must find
#    PREFIX/lib/libredux.so through their RUNPATH ($ORIGIN/../lib, CMAKE_INSTALL_RPATH in the top-level
#    CMakeLists.txt): PREFIX/bin/redux-plan (REDUX_PLAN) on its own, PREFIX/bin/mpi_bench (MPI_BENCH) under
#    MPIEXEC at 2 ranks with the launcher flags and environment every MPI test gets (MPIEXEC_FLAGS, MPIEXEC_ENV);
# 2. WORK_DIR/cmake-consumer and WORK_DIR/cmake_cxx-consumer: CONSUMER_DIR configured as a C project and as a
#    C++-only project with only CMAKE_PREFIX_PATH=prefix (find_package must bring MPI along, and the MPI
#    libredux was built with) and built;
# 3. WORK_DIR/pkgconfig-consumer: CONSUMER_DIR/app.c compiled by the plain C compiler with nothing but
#    `pkg-config --cflags --libs libredux` (Requires must bring MPI's flags).
# The ctest entries interpose.installed_*.np2 then run both programs under mpiexec (tests/interpose/CMakeLists.txt).
cmake_minimum_required(VERSION 3.25)
foreach(variable BUILD_DIR WORK_DIR CONSUMER_DIR C_COMPILER CXX_COMPILER GENERATOR)
    if(NOT ${variable})
        message(FATAL_ERROR "install_test: -D ${variable}=... is required")
    endif()
endforeach()

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        string(REPLACE ";" " " command "${ARGN}")
        message(FATAL_ERROR "install_test: `${command}` failed (${rc}):\n${out}")
    endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB_RECURSE config_files LIST_DIRECTORIES false ${prefix}/*/libreduxConfig.cmake)
file(GLOB_RECURSE pc_files LIST_DIRECTORIES false ${prefix}/*/libredux.pc)
foreach(wanted include/redux/redux.h)
    if(NOT EXISTS ${prefix}/${wanted})
        message(FATAL_ERROR "install_test: ${prefix}/${wanted} was not installed")
    endif()
endforeach()
if(NOT config_files OR NOT pc_files)
    message(FATAL_ERROR "install_test: libreduxConfig.cmake (${config_files}) or libredux.pc (${pc_files}) missing")
endif()
file(GLOB_RECURSE targets_files ${prefix}/*/libreduxTargets*.cmake)
foreach(file IN LISTS targets_files)
    file(READ ${file} text)
    string(FIND "${text}" "${BUILD_DIR}" build_dir_at)
    if(text MATCHES "redux_plan" OR NOT build_dir_at EQUAL -1)
        message(FATAL_ERROR "install_test: ${file} refers to redux_plan or to the build tree")
    endif()
endforeach()
message(STATUS "install_test: installed ${prefix}")

# run_installed(<program> <args>...): PREFIX/bin/<program> exits 0 within 120 s, or the test fails saying why.
function(run_installed program)
    set(path ${prefix}/bin/${program})
    if(NOT EXISTS ${path})
        message(FATAL_ERROR "install_test: ${path} was not installed")
    endif()
    string(REPLACE "@PROGRAM@" "${path}" command "${ARGN}")
    execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
    if(NOT rc EQUAL 0)
        string(REPLACE ";" " " shown "${command}")
        set(hint "")
        if(out MATCHES "cannot open shared object file")
            string(CONCAT hint "\nThe installed ${program} does not find its shared libraries without "
                "LD_LIBRARY_PATH: its RUNPATH (readelf -d ${path}) must lead to ${prefix}/lib (CMAKE_INSTALL_RPATH).")
        endif()
        message(FATAL_ERROR
            "install_test: the installed ${program} did not run: `${shown}` failed (${rc}):\n${out}${hint}")
    endif()
    message(STATUS "install_test: ran the installed ${program}")
endfunction()

# The installed programs, as a user starts them: no LD_LIBRARY_PATH to lead them to PREFIX/lib.
unset(ENV{LD_LIBRARY_PATH})
if(REDUX_PLAN)
    run_installed(redux-plan @PROGRAM@ --ranks 5 --d 1e-6 --c 1e-6 --format text)
endif()
if(MPI_BENCH)
    if(NOT MPIEXEC)
        message(FATAL_ERROR "install_test: -D MPIEXEC=... is required with MPI_BENCH")
    endif()
    if(NOT MPIEXEC_NUMPROC_FLAG)
        set(MPIEXEC_NUMPROC_FLAG -n)
    endif()
    separate_arguments(launcher_flags UNIX_COMMAND "${MPIEXEC_FLAGS}")
    separate_arguments(launcher_postflags UNIX_COMMAND "${MPIEXEC_POSTFLAGS}")
    separate_arguments(launcher_env UNIX_COMMAND "${MPIEXEC_ENV}")
    foreach(assignment IN LISTS launcher_env)
        string(REGEX REPLACE "=.*" "" variable "${assignment}")
        string(REGEX REPLACE "^[^=]*=" "" value "${assignment}")
        set(ENV{${variable}} "${value}")
    endforeach()
    run_installed(mpi_bench ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${launcher_flags} @PROGRAM@ ${launcher_postflags}
        --sizes 8 --iterations 3 --warmup 1 --quiet)
endif()

foreach(language C CXX)
    set(consumer_dir ${WORK_DIR}/cmake-consumer)
    if(language STREQUAL "CXX")
        set(consumer_dir ${WORK_DIR}/cmake_cxx-consumer)
    endif()
    run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_dir} -G ${GENERATOR} -DREDUX_CONSUMER_LANGUAGE=${language}
        -DCMAKE_${language}_COMPILER=${${language}_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
    run(${CMAKE_COMMAND} --build ${consumer_dir})
    message(STATUS "install_test: built ${consumer_dir}/redux_consumer (${language}) with find_package(libredux)")
endforeach()

if(PKG_CONFIG)
    get_filename_component(pc_dir ${pc_files} DIRECTORY)
    set(ENV{PKG_CONFIG_PATH} ${pc_dir})
    execute_process(COMMAND ${PKG_CONFIG} --cflags --libs libredux RESULT_VARIABLE rc OUTPUT_VARIABLE flags
        ERROR_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "install_test: pkg-config --cflags --libs libredux failed:\n${flags}")
    endif()
    execute_process(COMMAND ${PKG_CONFIG} --variable=libdir libredux OUTPUT_VARIABLE libdir
        OUTPUT_STRIP_TRAILING_WHITESPACE)
    separate_arguments(flags UNIX_COMMAND "${flags}")
    file(MAKE_DIRECTORY ${WORK_DIR}/pkgconfig-consumer)
    run(${C_COMPILER} ${CONSUMER_DIR}/app.c -o ${WORK_DIR}/pkgconfig-consumer/redux_consumer ${flags}
        -Wl,-rpath,${libdir} -ldl)
    message(STATUS "install_test: built ${WORK_DIR}/pkgconfig-consumer/redux_consumer with: ${flags}")
endif()
