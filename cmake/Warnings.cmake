# Compiler warnings for libredux's own targets.
#
# redux::warnings is an interface target carrying the flags; link it PRIVATE so they apply to our sources and
# never leak to consumers:
#     target_link_libraries(redux_plan PRIVATE redux::warnings)
# redux_enable_warnings(<target>...) adds the same flags as PRIVATE compile options instead, which keeps
# installed/exported targets free of a dependency on redux_warnings.
# -DREDUX_WERROR=ON turns warnings into errors (CI may want it; the default stays lenient).
include_guard(GLOBAL)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    set(REDUX_WARNING_FLAGS -Wall -Wextra -Wpedantic)
    set(REDUX_WERROR_FLAG -Werror)
elseif(MSVC)
    set(REDUX_WARNING_FLAGS /W4)
    set(REDUX_WERROR_FLAG /WX)
else()
    set(REDUX_WARNING_FLAGS "")
    set(REDUX_WERROR_FLAG "")
endif()
if(REDUX_WERROR)
    list(APPEND REDUX_WARNING_FLAGS ${REDUX_WERROR_FLAG})
endif()

add_library(redux_warnings INTERFACE)
add_library(redux::warnings ALIAS redux_warnings)
target_compile_options(redux_warnings INTERFACE ${REDUX_WARNING_FLAGS})

function(redux_enable_warnings)
    foreach(target IN LISTS ARGN)
        target_compile_options(${target} PRIVATE ${REDUX_WARNING_FLAGS})
    endforeach()
endfunction()
