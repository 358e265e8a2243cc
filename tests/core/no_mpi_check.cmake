# ctest core.no_mpi: every source and header under libredux/src/{model,plan,policy,util} and libredux/study (but
# its program) compiles by itself with only
# libredux/src, libredux and libredux/include on the include path (no MPI), and none of them names mpi.h.
# Run as: cmake -DCXX=<c++ compiler> -DSRC=<libredux folder> -P no_mpi_check.cmake
file(GLOB_RECURSE files ${SRC}/src/model/*.?pp ${SRC}/src/plan/*.?pp ${SRC}/src/policy/*.?pp ${SRC}/src/util/*.?pp
     ${SRC}/study/*.?pp)
list(FILTER files EXCLUDE REGEX "/study/redux_study\\.cpp$")  # a program, with the generated version header
list(LENGTH files count)
if(count LESS 20)
    message(FATAL_ERROR "core.no_mpi: found only ${count} files under ${SRC}/src: wrong path?")
endif()
set(failed "")
foreach(file IN LISTS files)
    file(READ ${file} text)
    if(text MATCHES "mpi\\.h")
        list(APPEND failed "${file}: names mpi.h")
    endif()
    execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -x c++ -I${SRC}/src -I${SRC} -I${SRC}/include ${file}
                    RESULT_VARIABLE rc ERROR_VARIABLE errors)
    if(NOT rc EQUAL 0)
        list(APPEND failed "${file}: does not compile without MPI:\n${errors}")
    endif()
endforeach()
if(failed)
    list(JOIN failed "\n" report)
    message(FATAL_ERROR "core.no_mpi: ${report}")
endif()
message(STATUS "core.no_mpi: ${count} files compile without MPI")
