#include "run_command.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#ifndef REDUX_PLAN_EXE
#error "REDUX_PLAN_EXE must name the redux-plan binary"
#endif

namespace redux::testing {

std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char ch : text) {
        if (ch == '\'') {
            quoted += "'\\''";
        } else {
            quoted += ch;
        }
    }
    return quoted + "'";
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string temp_path(const std::string& name) {
    return ::testing::TempDir() + "redux_plan_cli_" + std::to_string(getpid()) + "_" + name;
}

// Runs `command` with sh, capturing stdout through the pipe and stderr through a temporary file.
CommandResult run_command(const std::string& command) {
    const std::string err_path = temp_path("stderr.txt");
    CommandResult result;
    FILE* pipe = popen((command + " 2>" + shell_quote(err_path)).c_str(), "r");
    if (pipe == nullptr) {
        ADD_FAILURE() << "popen failed for: " << command;
        return result;
    }
    char buffer[1 << 16];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, got);
    const int status = pclose(pipe);
    if (WIFEXITED(status)) {
        result.exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.exit_status = 128 + WTERMSIG(status);
    }
    result.err = read_file(err_path);
    std::remove(err_path.c_str());
    return result;
}

CommandResult run_redux_plan(const std::string& args) { return run_command(shell_quote(REDUX_PLAN_EXE) + " " + args); }

nlohmann::json redux_plan_json(const std::string& args, bool quiet) {
    const CommandResult r = run_redux_plan(args);
    EXPECT_EQ(r.exit_status, 0) << args << "\n" << r.err;
    if (quiet) {
        EXPECT_TRUE(r.err.empty()) << r.err;
    }
    return nlohmann::json::parse(r.out);
}

}  // namespace redux::testing
