#include "api/startup_line.hpp"

#include "mpi/mpi_version.hpp"
#include "redux/version.h"

namespace redux {

std::string startup_line(const Config& config, const char* (*lookup)(const char* name)) {
    std::string line = "libredux: " REDUX_VERSION_STRING " started; MPI: built for ";
    line += mpi_built_for();
    line += ", loaded ";
    line += mpi_loaded(/*first_line=*/true);
    line += "; settings:";
    bool any = false;
    for (const SettingState& s : describe_settings(lookup, config)) {
        if (!s.differs_from_default()) continue;
        line += " " + std::string(s.info->name) + "=" + (s.problem.empty() ? s.value : s.raw + " (invalid)");
        any = true;
    }
    if (!any) line += " all defaults";
    const std::string calibration = calibration_path(config);
    line += "; calibration file: " + (calibration.empty() ? std::string("none") : calibration);
    return line;
}

}  // namespace redux
