// The user ops MPI_Op_create made in this process, and the function each runs (user_ops.hpp). A freed handle is
// forgotten, so that a handle the MPI library reuses for a new op never names the old one's function.
#include "api/user_ops.hpp"

#include "api/raw_call.h"
#include "mpi/op_types.hpp"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

namespace redux {
namespace {

std::mutex g_mutex;
std::map<MPI_Op, void*> g_functions;

MPI_Op read_handle(const void* op) {
    MPI_Op handle;
    std::memcpy(&handle, op, sizeof handle);
    return handle;
}

}  // namespace

std::string op_identity(MPI_Op op) {
    if (const char* name = predefined_op_name(op)) return name;
    void* function = op_function(op);
    if (function == nullptr) return "";
    Dl_info info{};
    // dladdr names the nearest dynamic symbol at or below the address: only the function's own will do.
    if (dladdr(function, &info) == 0 || info.dli_sname == nullptr || info.dli_saddr != function ||
        info.dli_fname == nullptr) {
        return "";
    }
    const char* file = std::strrchr(info.dli_fname, '/');
    return std::string(info.dli_sname) + "@" + (file != nullptr ? file + 1 : info.dli_fname);
}

void* op_function(MPI_Op op) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    const auto found = g_functions.find(op);
    return found == g_functions.end() ? nullptr : found->second;
}

}  // namespace redux

extern "C" void redux_user_op_created_raw(void* function, const void* op) {
    const std::lock_guard<std::mutex> lock(redux::g_mutex);
    redux::g_functions[redux::read_handle(op)] = function;
}

extern "C" void redux_user_op_freed_raw(const void* op) {
    const std::lock_guard<std::mutex> lock(redux::g_mutex);
    redux::g_functions.erase(redux::read_handle(op));
}
