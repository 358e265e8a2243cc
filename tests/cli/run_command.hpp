// Running a command line from a CLI test: exit status, stdout and stderr. Test support only.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace redux::testing {

struct CommandResult {
    int exit_status = -1;  // 128 + signal when killed by one
    std::string out;
    std::string err;
};

std::string shell_quote(const std::string& text);
std::string read_file(const std::string& path);
// A path for a scratch file, unique to this process.
std::string temp_path(const std::string& name);
// Runs `command` with sh, capturing stdout through the pipe and stderr through a temporary file.
CommandResult run_command(const std::string& command);
// Runs the redux-plan under test (REDUX_PLAN_EXE) with `args`, already quoted for the shell.
CommandResult run_redux_plan(const std::string& args);
// The JSON redux-plan prints for `args`, failing the test unless it exits 0 (and, with quiet, writes nothing on
// stderr).
nlohmann::json redux_plan_json(const std::string& args, bool quiet = false);

}  // namespace redux::testing
