// redux-info: what libredux would do here, as ompi_info does for Open MPI -- its version, the MPI it was built
// for and the one loaded, every REDUX_* setting in effect and where it came from, and the calibration file.
//
//   redux-info [--json]                  one process
//   mpirun -n N redux-info [--json]      rank 0 prints, and says which ranks' settings differ from its own
//   redux-info --wisdom [--json]         the wisdom file's entries (REDUX_WISDOM), every job's
//   redux-info --clear-wisdom            empties it (libredux's own file only)
//
// The settings are read and judged by libredux's own parser (policy/config.hpp), the calibration file by its
// own loader (policy/calibration_file.hpp, through policy/calibration_summary.hpp), so what is shown is what the
// library would take. Exit status: 0, 1 when the wisdom file cannot be read or cleared, or 2 for a bad command line.
#include "mpi/mpi_version.hpp"
#include "policy/calibration_summary.hpp"
#include "policy/config.hpp"
#include "policy/wisdom_file.hpp"
#include "redux/version.h"

#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using redux::CalibrationFileSummary;
using redux::Config;
using redux::SettingState;
using Json = nlohmann::ordered_json;

constexpr int kExitUsage = 2;

const char* real_getenv(const char* name) { return std::getenv(name); }

std::string version_text() {
    return std::string("redux-info (libredux) " REDUX_VERSION_STRING "\nbuilt for ") + redux::mpi_built_for();
}

std::string utc_time(int64_t unix_s) {
    const std::time_t t = static_cast<std::time_t>(unix_s);
    std::tm tm{};
    char text[32] = "?";
    if (gmtime_r(&t, &tm) != nullptr) std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// "3 d 4 h", "12 min 5 s", "in the future".
std::string age_words(int64_t s) {
    if (s < 0) return "in the future";
    const int64_t units[] = {86400, 3600, 60, 1};
    const char* names[] = {"d", "h", "min", "s"};
    for (int i = 0; i < 3; ++i) {
        if (s >= units[i]) {
            return std::to_string(s / units[i]) + " " + names[i] + " " + std::to_string(s % units[i] / units[i + 1]) +
                   " " + names[i + 1] + " ago";
        }
    }
    return std::to_string(s) + " s ago";
}

std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", s);
    return text;
}

// The ranks (other than 0) whose shared settings differ from rank 0's, and which settings differ: libredux
// would use rank 0's on them (api/comm_state.cpp).
struct Differing {
    std::vector<int> ranks;
    std::string settings;
};

Differing gather_differing(const Config& mine, int rank, int size) {
    const redux::SharedSettings own = redux::shared_settings(mine);
    std::vector<double> all(rank == 0 ? static_cast<size_t>(size) * redux::SharedSettings::kSize : 0);
    MPI_Gather(own.value, redux::SharedSettings::kSize, MPI_DOUBLE, all.data(), redux::SharedSettings::kSize,
               MPI_DOUBLE, 0, MPI_COMM_WORLD);
    Differing differing;
    uint32_t bits = 0;
    for (int r = 1; r < size && rank == 0; ++r) {
        redux::SharedSettings theirs;
        for (int i = 0; i < redux::SharedSettings::kSize; ++i) {
            theirs.value[i] = all[static_cast<size_t>(r) * redux::SharedSettings::kSize + i];
        }
        Config copy = mine;  // rank 0's, adopting rank r's: the bits that differ
        const uint32_t b = redux::adopt_shared_settings(copy, theirs);
        if (b != 0) differing.ranks.push_back(r);
        bits |= b;
    }
    differing.settings = redux::shared_setting_names(bits);
    return differing;
}

struct Info {
    Config config;
    std::vector<SettingState> settings;
    Differing differing;
    int ranks = 1;
    int64_t now_unix = 0;
    bool calibration_set = false;  // REDUX_CALIBRATION_FILE names a file
    CalibrationFileSummary calibration;
};

Json fits_json(const redux::LinkFits& links) {
    Json j = Json::object();
    for (int c = 0; c < redux::kLinkClasses; ++c) {
        if (!links[c].measured) continue;
        j[std::string(redux::link_class_name(static_cast<redux::LinkClass>(c)))] = {
            {"alpha_s", links[c].alpha_s}, {"beta_s_per_byte", links[c].beta_s_per_byte}};
    }
    return j;
}

Json to_json(const Info& info) {
    Json j;
    j["tool"] = "redux-info";
    j["version"] = REDUX_VERSION_STRING;
    j["mpi"] = {{"built_for", redux::mpi_built_for()},
                {"loaded", redux::mpi_loaded(/*first_line=*/true)},
                {"loaded_full", redux::mpi_loaded(/*first_line=*/false)},
                {"standard", redux::mpi_standard_version()},
                {"ranks", info.ranks}};
    Json settings = Json::object();
    for (const SettingState& s : info.settings) {
        settings[s.info->name] = {
            {"value", s.value},
            {"source", s.set && !s.raw.empty() ? "environment" : "default"},
            {"set", s.set},
            {"raw", s.set ? Json(s.raw) : Json(nullptr)},
            {"valid", s.problem.empty()},
            {"problem", s.problem.empty() ? Json(nullptr) : Json(s.problem)},
            {"overridden", s.overridden.empty() ? Json(nullptr) : Json(s.overridden)},
            {"default", s.default_value},
            {"differs_from_default", s.differs_from_default()},
            {"values", s.info->values},
            {"meaning", s.info->meaning},
        };
    }
    j["settings"] = settings;
    j["problem"] = info.config.problem.empty() ? Json(nullptr) : Json(info.config.problem);
    j["reduce"] = info.config.algorithm == REDUX_ALGORITHM_NATIVE ? "native" : "libredux";
    Json differing_names = Json::array();  // shared_setting_names: "REDUX_D, REDUX_C"
    for (size_t at = 0; at < info.differing.settings.size();) {
        const size_t comma = std::min(info.differing.settings.find(", ", at), info.differing.settings.size());
        differing_names.push_back(info.differing.settings.substr(at, comma - at));
        at = comma + 2;
    }
    j["ranks_with_other_settings"] = {{"ranks", info.differing.ranks}, {"settings", differing_names}};
    if (!info.calibration_set) {
        j["calibration_file"] = nullptr;
    } else {
        const CalibrationFileSummary& c = info.calibration;
        Json file = {{"path", c.path},
                     {"exists", c.exists},
                     {"status", redux::load_status_name(c.status)},
                     {"reason", c.reason.empty() ? Json(nullptr) : Json(c.reason)},
                     {"libredux_format", c.libredux_format},
                     {"format_version",
                      c.status == redux::LoadStatus::found ? Json(redux::kCalibrationFormatVersion) : Json(nullptr)},
                     {"max_age_s", info.config.calibration_max_age_s},
                     {"entries", Json::array()}};
        for (const redux::CalibrationEntrySummary& e : c.entries) {
            file["entries"].push_back({{"signature", e.signature},
                                       {"ranks", std::atoi(e.signature.c_str())},
                                       {"created_unix", e.created_unix},
                                       {"created_utc", utc_time(e.created_unix)},
                                       {"age_s", e.age_s},
                                       {"fresh", e.fresh},
                                       {"reason", e.reason.empty() ? Json(nullptr) : Json(e.reason)},
                                       {"links", fits_json(e.links)}});
        }
        j["calibration_file"] = file;
    }
    return j;
}

void print_text(const Info& info, std::ostream& out) {
    auto field = [&](const std::string& label, const std::string& value) {
        out << "  " << label << std::string(label.size() < 16 ? 16 - label.size() : 1, ' ') << value << '\n';
    };
    out << "libredux " << REDUX_VERSION_STRING << '\n';
    field("MPI built for:", redux::mpi_built_for());
    field("MPI loaded:", redux::mpi_loaded(/*first_line=*/true));
    field("MPI standard:", redux::mpi_standard_version());
    field("ranks:", std::to_string(info.ranks));

    out << "\nSettings (rank 0's environment):\n";
    size_t name_width = 0, value_width = 0;
    for (const SettingState& s : info.settings) {
        name_width = std::max(name_width, std::string(s.info->name).size());
        value_width = std::max(value_width, s.value.empty() ? 6 : s.value.size());
    }
    for (const SettingState& s : info.settings) {
        const std::string name = s.info->name;
        const std::string value = s.value.empty() ? "(none)" : s.value;
        std::string source;
        if (!s.problem.empty()) {
            source = "environment, INVALID: " + s.problem + " (the default is used)";
        } else if (s.from_environment) {
            source = "environment";
        } else {
            source = s.set ? "default (set but empty)" : "default";
        }
        if (!s.overridden.empty()) source += "; overridden by an invalid setting";
        out << "  " << name << std::string(name_width - name.size() + 2, ' ') << value
            << std::string(value_width - value.size() + 2, ' ') << source << '\n';
    }
    if (!info.config.problem.empty()) {
        out << "  => every MPI_Reduce goes to the MPI library's own: " << info.config.problem << '\n';
    }
    if (!info.differing.ranks.empty()) {
        out << (info.differing.ranks.size() == 1 ? "  => rank" : "  => ranks");
        for (const int r : info.differing.ranks) out << ' ' << r;
        out << (info.differing.ranks.size() == 1 ? " has" : " have") << " other values of " << info.differing.settings
            << "; libredux uses rank 0's\n";
    }

    out << "\nCalibration file (REDUX_CALIBRATION_FILE):\n";
    if (!info.calibration_set) {
        field("path:", "none: link costs are measured in every job");
        return;
    }
    const CalibrationFileSummary& c = info.calibration;
    field("path:", c.path);
    field("exists:", c.exists ? "yes" : "no");
    std::string format;
    switch (c.status) {
        case redux::LoadStatus::found:
        case redux::LoadStatus::no_entry:
            format = "libredux calibration file, version " + std::to_string(redux::kCalibrationFormatVersion);
            break;
        case redux::LoadStatus::stale:
            format = "libredux calibration file of another version: it " + c.reason;
            break;
        case redux::LoadStatus::missing:
            format = "none yet: the first job that measures its links writes it";
            break;
        default:
            format = "not libredux's: it " + c.reason + " (libredux will not use or write it)";
            break;
    }
    field("format:", format);
    if (c.status != redux::LoadStatus::found) return;
    field("maximum age:", std::to_string(info.config.calibration_max_age_s) + " s (REDUX_CALIBRATION_MAX_AGE)");
    field("entries:", std::to_string(c.entries.size()));
    for (const redux::CalibrationEntrySummary& e : c.entries) {
        out << "    " << e.signature << ": created " << utc_time(e.created_unix) << ", " << age_words(e.age_s) << ", "
            << (e.fresh ? "fresh" : "not used: it " + e.reason) << '\n';
        for (int k = 0; k < redux::kLinkClasses; ++k) {
            if (!e.links[k].measured) continue;
            const std::string name(redux::link_class_name(static_cast<redux::LinkClass>(k)));
            out << "      " << name << std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') << "alpha "
                << seconds_text(e.links[k].alpha_s) << " s, beta " << seconds_text(e.links[k].beta_s_per_byte)
                << " s/byte\n";
        }
    }
}

int finish(int status) {
    MPI_Finalize();
    return status;
}

// --wisdom, --clear-wisdom: on the file REDUX_WISDOM names. Returns the exit status.
int wisdom(const Config& config, bool clear, bool json) {
    const std::string& path = config.wisdom_path;
    if (path.empty()) {
        std::cerr << "redux-info: REDUX_WISDOM is not set: there is no wisdom file\n";
        return 1;
    }
    if (clear) {
        std::string error;
        if (!redux::clear_wisdom(path, error)) {
            std::cerr << "redux-info: " << error << '\n';
            return 1;
        }
        std::cout << "wisdom file " << path << " cleared\n";
        return 0;
    }
    const redux::WisdomLoad load = redux::load_wisdom(path, "");
    if (load.status == redux::WisdomStatus::refused) {
        std::cerr << "redux-info: wisdom file " << path << " " << load.reason << '\n';
        return 1;
    }
    if (json) {
        Json entries = Json::array();
        for (const redux::WisdomEntry& e : load.entries) {
            entries.push_back({{"job", e.job},
                               {"call", e.call},
                               {"strategy", e.strategy},
                               {"chosen_s", e.chosen_s},
                               {"native_s", e.native_s},
                               {"created_unix", e.created_unix}});
        }
        std::cout << Json{{"wisdom_file", path}, {"entries", entries}}.dump(2) << '\n';
        return 0;
    }
    std::cout << "wisdom file " << path << ": " << load.entries.size() << " entries"
              << (load.status == redux::WisdomStatus::found ? "" : " (" + load.reason + ")") << '\n';
    std::string job;
    for (const redux::WisdomEntry& e : load.entries) {
        if (e.job != job) std::cout << "  " << (job = e.job) << '\n';
        std::cout << "    " << e.call << ": " << e.strategy;
        if (e.chosen_s > 0) std::cout << " (" << e.chosen_s << " s a call in place)";
        std::cout << '\n';
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CLI::App app{
        "Shows libredux's version, the MPI it was built for and the one loaded, every REDUX_* setting in "
        "effect and where it came from, and the calibration file (REDUX_CALIBRATION_FILE). Under mpirun, "
        "rank 0 prints.",
        "redux-info"};
    bool json = false, show_wisdom = false, clear_wisdom = false;
    app.add_flag("--json", json, "print one JSON document instead of text");
    app.add_flag("--wisdom", show_wisdom, "print the wisdom file's entries (REDUX_WISDOM): auto's decisions kept");
    app.add_flag("--clear-wisdom", clear_wisdom, "empty the wisdom file (REDUX_WISDOM), if it is libredux's");
    app.set_version_flag("--version", version_text());
    app.footer("Exit status: 0, 1 when the wisdom file cannot be read or cleared, or 2 for a bad command line.");
    // Every rank parses the same argv, so every rank reaches the same verdict and none is left waiting.
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        if (rank == 0) std::cout << app.help();
        return finish(0);
    } catch (const CLI::CallForVersion& e) {
        if (rank == 0) std::cout << e.what() << '\n';
        return finish(0);
    } catch (const CLI::ParseError& e) {
        if (rank == 0) std::cerr << "redux-info: error: " << e.what() << "\nRun 'redux-info --help' for the options.\n";
        return finish(kExitUsage);
    }

    if (show_wisdom || clear_wisdom) {
        int status = 0;
        if (rank == 0) status = wisdom(redux::parse_config(real_getenv), clear_wisdom, json);
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        return finish(status);
    }

    Info info;
    info.config = redux::parse_config(real_getenv);
    info.ranks = size;
    info.differing = gather_differing(info.config, rank, size);
    if (rank == 0) {
        info.settings = redux::describe_settings(real_getenv, info.config);
        info.now_unix = static_cast<int64_t>(std::time(nullptr));
        info.calibration_set = !redux::calibration_path(info.config).empty();
        if (info.calibration_set) {
            info.calibration = redux::summarize_calibration_file(redux::calibration_path(info.config), info.now_unix,
                                                                 info.config.calibration_max_age_s);
        }
        if (json) {
            std::cout << to_json(info).dump(2) << '\n';
        } else {
            print_text(info, std::cout);
        }
        std::cout.flush();
    }
    return finish(0);
}
