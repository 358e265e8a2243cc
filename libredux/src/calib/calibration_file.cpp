// The calibration file, version 1: one JSON document,
//   {"format": "libredux-calibration", "version": 1,
//    "entries": [{"signature": "8-0123456789abcdef", "created_unix": 1795000000,
//                 "links": {"same_package": {"alpha_s": 4.1e-7, "beta_s_per_byte": 1.2e-10}, ...}}, ...]}
// one entry per rank layout (the signature names the hosts and packages of every rank), with the link classes
// that layout has. A file that cannot be read, is not JSON, has another format or version, lacks an entry for
// the layout, or whose entry is older than the maximum age is not used: the caller warns and recalibrates.
// Writing goes to a temporary file in the same directory, renamed over the old one (rename is atomic within a
// file system), so a reader never sees half a file; two writers at once each leave a whole file, the last one
// wins.
#include "calib/calibration_file.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

namespace redux {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "libredux-calibration";
constexpr size_t kMaxEntries = 32;

bool valid_seconds(const json& v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0; }

// Reads one entry; false if any field is missing or malformed.
bool parse_entry(const json& j, CalibrationEntry& entry) {
    if (!j.is_object() || !j.contains("signature") || !j["signature"].is_string() || !j.contains("created_unix") ||
        !j["created_unix"].is_number_integer() || !j.contains("links") || !j["links"].is_object()) {
        return false;
    }
    entry.signature = j["signature"].get<std::string>();
    entry.created_unix = j["created_unix"].get<int64_t>();
    entry.links = {};
    for (int c = 0; c < kLinkClasses; ++c) {
        const std::string name(link_class_name(static_cast<LinkClass>(c)));
        if (!j["links"].contains(name)) continue;
        const json& fit = j["links"][name];
        if (!fit.is_object() || !fit.contains("alpha_s") || !fit.contains("beta_s_per_byte") ||
            !valid_seconds(fit["alpha_s"]) || !valid_seconds(fit["beta_s_per_byte"])) {
            return false;
        }
        entry.links[c] = {fit["alpha_s"].get<double>(), fit["beta_s_per_byte"].get<double>(), true};
    }
    return true;
}

json to_json(const CalibrationEntry& entry) {
    json links = json::object();
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!entry.links[c].measured) continue;
        links[std::string(link_class_name(static_cast<LinkClass>(c)))] = {
            {"alpha_s", entry.links[c].alpha_s}, {"beta_s_per_byte", entry.links[c].beta_s_per_byte}};
    }
    return {{"signature", entry.signature}, {"created_unix", entry.created_unix}, {"links", links}};
}

// The file's valid entries, or a status saying why there are none.
LoadStatus read_entries(const std::string& path, std::vector<CalibrationEntry>& entries, std::string& reason) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        reason = errno == ENOENT ? "does not exist" : std::string("cannot be read: ") + std::strerror(errno);
        return errno == ENOENT ? LoadStatus::missing : LoadStatus::unreadable;
    }
    std::stringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
        reason = "is not valid JSON (corrupt or truncated)";
        return LoadStatus::corrupt;
    }
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormatName) {
        reason = "is not a libredux calibration file";
        return LoadStatus::foreign;
    }
    if (!doc.contains("version") || doc["version"] != kCalibrationFormatVersion) {
        reason = "has another format version (this libredux reads version " +
                 std::to_string(kCalibrationFormatVersion) + ")";
        return LoadStatus::stale;
    }
    if (!doc.contains("entries") || !doc["entries"].is_array()) {
        reason = "has no entries list (corrupt)";
        return LoadStatus::corrupt;
    }
    for (const json& j : doc["entries"]) {
        CalibrationEntry entry;
        if (!parse_entry(j, entry)) {
            reason = "has a malformed entry (corrupt)";
            return LoadStatus::corrupt;
        }
        entries.push_back(std::move(entry));
    }
    return LoadStatus::found;
}

}  // namespace

LoadResult load_calibration(const std::string& path, const std::string& signature, int64_t now_unix,
                            int64_t max_age_s) {
    LoadResult result;
    std::vector<CalibrationEntry> entries;
    result.status = read_entries(path, entries, result.reason);
    if (result.status != LoadStatus::found) return result;
    for (const CalibrationEntry& entry : entries) {
        if (entry.signature != signature) continue;
        if (now_unix - entry.created_unix > max_age_s || entry.created_unix > now_unix + 60) {
            result.status = LoadStatus::stale;
            result.reason = "holds a calibration of this layout older than " + std::to_string(max_age_s) + " s";
            return result;
        }
        result.links = entry.links;
        return result;
    }
    result.status = LoadStatus::no_entry;
    result.reason = "has no calibration for this layout of ranks on hosts";
    return result;
}

bool store_calibration(const std::string& path, const CalibrationEntry& entry, std::string& error) {
    std::vector<CalibrationEntry> entries;
    std::string ignored;
    read_entries(path, entries, ignored);  // a bad or missing file is replaced by one with this entry alone
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const CalibrationEntry& e) { return e.signature == entry.signature; }),
                  entries.end());
    entries.insert(entries.begin(), entry);
    std::stable_sort(entries.begin(), entries.end(),
                     [](const CalibrationEntry& a, const CalibrationEntry& b) { return a.created_unix > b.created_unix; });
    if (entries.size() > kMaxEntries) entries.resize(kMaxEntries);

    json doc = {{"format", kFormatName}, {"version", kCalibrationFormatVersion}, {"entries", json::array()}};
    for (const CalibrationEntry& e : entries) doc["entries"].push_back(to_json(e));

    std::random_device random;
    const std::string temporary = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << doc.dump(1) << '\n';
        out.flush();
        if (!out) {
            error = "cannot write " + temporary;
            std::remove(temporary.c_str());
            return false;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
        std::remove(temporary.c_str());
        return false;
    }
    return true;
}

}  // namespace redux
