// The file is judged, and each entry's links read, by load_calibration (calibration_file.cpp owns the format);
// only the list of entries (signature and creation time of each) is read here, which calibration_file.hpp does
// not offer. Between those reads the file may be replaced by a job storing its calibration (a whole file at a
// time): an entry that load_calibration no longer finds is shown with its reason.
#include "policy/calibration_summary.hpp"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <fstream>
#include <limits>
#include <sstream>

namespace redux {
namespace {

// No rank layout has this signature (Topology::signature is never empty): loading it judges the file only.
const char* const kNoLayout = "";

}  // namespace

const char* load_status_name(LoadStatus status) {
    switch (status) {
        case LoadStatus::found:
            return "found";
        case LoadStatus::missing:
            return "missing";
        case LoadStatus::unreadable:
            return "unreadable";
        case LoadStatus::corrupt:
            return "corrupt";
        case LoadStatus::foreign:
            return "foreign";
        case LoadStatus::stale:
            return "stale";
        case LoadStatus::no_entry:
            return "no_entry";
    }
    return "unknown";
}

CalibrationFileSummary summarize_calibration_file(const std::string& path, int64_t now_unix, int64_t max_age_s) {
    CalibrationFileSummary summary;
    summary.path = path;
    struct stat st {};
    summary.exists = lstat(path.c_str(), &st) == 0;

    const LoadResult whole = load_calibration(path, kNoLayout, now_unix, max_age_s);
    summary.status = whole.status == LoadStatus::no_entry ? LoadStatus::found : whole.status;
    if (summary.status != LoadStatus::found) summary.reason = whole.reason;
    summary.libredux_format = summary.status == LoadStatus::found || summary.status == LoadStatus::stale;
    if (summary.status != LoadStatus::found) return summary;

    // load_calibration found every entry well formed: the signatures and creation times can be taken as they are.
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
        return summary;  // replaced by something else since: its entries are not listed
    }
    for (const nlohmann::json& j : doc["entries"]) {
        if (!j.is_object() || !j.contains("signature") || !j["signature"].is_string() || !j.contains("created_unix") ||
            !j["created_unix"].is_number_integer()) {
            continue;
        }
        CalibrationEntrySummary entry;
        entry.signature = j["signature"].get<std::string>();
        entry.created_unix = j["created_unix"].get<int64_t>();
        if (__builtin_sub_overflow(now_unix, entry.created_unix, &entry.age_s)) {  // a nonsensical time
            entry.age_s =
                entry.created_unix < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
        }
        const LoadResult own = load_calibration(path, entry.signature, now_unix, max_age_s);
        entry.fresh = own.status == LoadStatus::found;
        if (entry.fresh) {
            entry.links = own.links;
        } else {
            entry.reason = own.reason;
            // Its links all the same, at any age (an entry from the future has none to show).
            const LoadResult any_age =
                load_calibration(path, entry.signature, now_unix, std::numeric_limits<int64_t>::max() / 2);
            if (any_age.status == LoadStatus::found) entry.links = any_age.links;
        }
        summary.entries.push_back(std::move(entry));
    }
    return summary;
}

}  // namespace redux
