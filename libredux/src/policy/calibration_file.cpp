// The calibration file, version 2: one JSON document,
//   {"format": "libredux-calibration", "version": 2,
//    "entries": [{"signature": "8-0123456789abcdef", "created_unix": 1795000000,
//                 "links": {"same_package": {"alpha_s": 4.1e-7, "beta_s_per_byte": 1.2e-10,
//                                            "points": [[8, 4.1e-7], [32768, 5.2e-6], ...], "flight_s": 1e-7,
//                                            "flight_points": [[8192, 9e-8]], "call_s": 3e-7},
//                           ...}}, ...]}
// one entry per rank layout (the signature names the hosts and packages of every rank), with the link classes
// that layout has, and where it has 3 or more nodes, optionally the times between every two nodes:
//   "node_pairs": {"node_ids": [0, 4, 8], "one_way_s": [[...n x n at 8 B...], [...at 8 KiB...], ...]}
// (model/node_pairs.hpp: one row per size of kPairBytes, the nodes' leaders by rank). An entry without them reads
// as unmeasured pairs: they are measured and the entry written again with them. "points" are the measured [bytes,
// one-way seconds] that d runs through (model/link_costs.hpp), sizes strictly increasing, at most kMaxLinkPoints;
// alpha_s and beta_s_per_byte are what fit_link makes of them, written for people and tools, and read only for a link
// without points (d the line alpha + beta x bytes). "flight_s" (LinkFit::flight_s, the time in flight) is optional: a
// file without it reads as 0, the one-port model, until the links are measured again; "flight_points" (the time in
// flight at larger sizes, [bytes, seconds] as the points, at most kMaxFlightPoints) likewise (none: flight_s at every
// size); "call_s" (LinkFit::call_s) likewise (0: predictions without a call's own cost). Version 1 held that line
// alone, fitted through 8 B .. 256 KiB, which does not hold for long messages: a version-1 file is stale, measured
// again and replaced (it is libredux's own). A file that cannot be read, is not JSON, has another format or version,
// lacks an entry for the layout, or whose entry is older than the maximum age is not used: the caller warns and
// recalibrates.
//
// REDUX_CALIBRATION_FILE is a path the user typed, and may name a file of theirs (a typo, a wrong variable):
// libredux writes only where nothing is, or over its own file. Which files may be replaced, by what
// read_entries finds at the path when storing (calibration_file_replaceable):
//   missing     yes: nothing is lost. The new file is published with link(), which never replaces, so a file
//               that appears meanwhile is read and judged again.
//   found       yes: libredux's own ("format": "libredux-calibration", this version, every entry well formed);
//               its other entries are kept.
//   stale       yes: libredux's format marker with an integer version other than ours (another libredux's
//               file: its entries cannot be read here and are dropped), or, from load_calibration, an entry
//               older than the maximum age in a file of ours.
//   no_entry    yes (load_calibration only): a file of ours without this layout.
//   foreign     no: JSON that is not ours (no format marker, another format, the marker without an integer
//               version), or a file far larger than ours can be.
//   corrupt     no: not JSON (a C source, an empty file, binary data), or our marker with a malformed entry or
//               no entries list. Such a file is not provably ours: a truncated calibration file is text like
//               any other, and libredux only ever publishes whole files (below), so a damaged one was made
//               by someone else (an edit, a failing disk) who may want it back. The warning names it; the
//               user deletes it to let libredux write there again.
//   unreadable  no: cannot be read (permissions, a path through a file), or is not a regular file (a
//               directory, a FIFO, a device such as /dev/null): what it holds is unknown.
// A refused file is left byte for byte as it was; the job measures its links and goes on.
//
// Writing goes to a temporary file in the same directory, flushed to disk, then renamed over the old file
// (publish_file, policy/owned_file.hpp: rename is atomic within a file system; a missing file is linked instead,
// see above), so a reader never sees half a file; two writers at once each leave a whole file, the last one wins. What
// is at the path is judged again just before each attempt; it can still change between that check and the rename
// (another program replacing our file with its own in that instant), which rename cannot guard against.
#include "policy/calibration_file.hpp"

#include "policy/owned_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <vector>

namespace redux {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "libredux-calibration";
constexpr size_t kMaxEntries = 32;
constexpr off_t kMaxFileBytes = 16 << 20;  // 32 entries take a few KiB; a larger file is not ours
constexpr int kStoreAttempts = 8;          // a missing file that keeps appearing and vanishing: give up

bool valid_seconds(const json& v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0; }

// A link's points: [[bytes, seconds], ...], sizes strictly increasing, at most `most`; false if not.
bool parse_points(const json& j, size_t most, std::vector<PingSample>& points) {
    if (!j.is_array() || j.size() > most) return false;
    for (const json& p : j) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !valid_seconds(p[1])) return false;
        const auto bytes = p[0].get<uint64_t>();
        if (!points.empty() && bytes <= points.back().bytes) return false;
        points.push_back({static_cast<size_t>(bytes), p[1].get<double>()});
    }
    return true;
}

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
        std::vector<PingSample> points;
        std::vector<PingSample> flight_points;
        if (fit.contains("points") && !parse_points(fit["points"], kMaxLinkPoints, points)) return false;
        if (fit.contains("flight_points") && !parse_points(fit["flight_points"], kMaxFlightPoints, flight_points)) {
            return false;
        }
        if (fit.contains("flight_s") && !valid_seconds(fit["flight_s"])) return false;
        if (fit.contains("call_s") && !valid_seconds(fit["call_s"])) return false;
        if (points.empty()) {  // a line
            entry.links[c] = {fit["alpha_s"].get<double>(), fit["beta_s_per_byte"].get<double>(), true, {}};
        } else {
            entry.links[c] = fit_link(points);
        }
        entry.links[c].flight_s = fit.contains("flight_s") ? fit["flight_s"].get<double>() : 0.0;
        entry.links[c].flight_points = std::move(flight_points);
        entry.links[c].call_s = fit.contains("call_s") ? fit["call_s"].get<double>() : 0.0;
    }
    entry.pairs = {};
    if (!j.contains("node_pairs")) return true;
    const json& pairs = j["node_pairs"];
    if (!pairs.is_object() || !pairs.contains("node_ids") || !pairs["node_ids"].is_array() ||
        !pairs.contains("one_way_s") || !pairs["one_way_s"].is_array() ||
        pairs["one_way_s"].size() != kPairBytes.size()) {
        return false;
    }
    for (const json& id : pairs["node_ids"]) {
        if (!id.is_number_integer()) return false;
        entry.pairs.node_ids.push_back(id.get<int32_t>());
    }
    const size_t cells = entry.pairs.node_ids.size() * entry.pairs.node_ids.size();
    for (size_t k = 0; k < kPairBytes.size(); ++k) {
        const json& row = pairs["one_way_s"][k];
        if (!row.is_array() || row.size() != cells) return false;
        for (const json& v : row) {
            if (!valid_seconds(v)) return false;
            entry.pairs.one_way_s[k].push_back(v.get<double>());
        }
    }
    return true;
}

json to_json(const CalibrationEntry& entry) {
    json links = json::object();
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!entry.links[c].measured) continue;
        // Points as fit_link keeps them (sizes increasing, at most kMaxLinkPoints), so that the file reads back.
        LinkFit fit = entry.links[c].points.empty() ? entry.links[c] : fit_link(entry.links[c].points);
        fit.flight_s = entry.links[c].flight_s;
        fit.call_s = entry.links[c].call_s;
        const auto to_json_points = [](const std::vector<PingSample>& samples) {
            json out = json::array();
            for (const PingSample& p : samples) out.push_back({static_cast<uint64_t>(p.bytes), p.one_way_s});
            return out;
        };
        links[std::string(link_class_name(static_cast<LinkClass>(c)))] = {
            {"alpha_s", fit.alpha_s},
            {"beta_s_per_byte", fit.beta_s_per_byte},
            {"points", to_json_points(fit.points)},
            {"flight_s", fit.flight_s},
            {"flight_points", to_json_points(entry.links[c].flight_points)},
            {"call_s", fit.call_s}};
    }
    json out = {{"signature", entry.signature}, {"created_unix", entry.created_unix}, {"links", links}};
    if (!entry.pairs.empty()) {
        json rows = json::array();
        for (const std::vector<double>& row : entry.pairs.one_way_s) rows.push_back(row);
        out["node_pairs"] = {{"node_ids", entry.pairs.node_ids}, {"one_way_s", rows}};
    }
    return out;
}

// The file's valid entries, or a status saying why there are none.
LoadStatus read_entries(const std::string& path, std::vector<CalibrationEntry>& entries, std::string& reason) {
    std::string text;
    const int failure = read_regular_file(path, kMaxFileBytes, text);
    if (failure != 0) {
        reason = read_failure_words(failure, kMaxFileBytes, "calibration file");
        if (failure == ENOENT) return LoadStatus::missing;
        return failure == kTooLarge ? LoadStatus::foreign : LoadStatus::unreadable;
    }
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
        reason = "is not valid JSON (corrupt or truncated)";
        return LoadStatus::corrupt;
    }
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormatName || !doc.contains("version") ||
        !doc["version"].is_number_integer()) {
        reason = "is not a libredux calibration file";
        return LoadStatus::foreign;
    }
    if (doc["version"] != kCalibrationFormatVersion) {
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

// The table at the top of this file says why.
bool calibration_file_replaceable(LoadStatus status) {
    switch (status) {
        case LoadStatus::missing:
        case LoadStatus::found:
        case LoadStatus::stale:
        case LoadStatus::no_entry:
            return true;
        case LoadStatus::unreadable:
        case LoadStatus::corrupt:
        case LoadStatus::foreign:
            return false;
    }
    return false;
}

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
        result.pairs = entry.pairs;
        return result;
    }
    result.status = LoadStatus::no_entry;
    result.reason = "has no calibration for this layout of ranks on hosts";
    return result;
}

bool store_calibration(const std::string& path, const CalibrationEntry& entry, std::string& error) {
    for (int attempt = 0; attempt < kStoreAttempts; ++attempt) {
        // What is there now decides whether to write at all (the table at the top of this file).
        std::vector<CalibrationEntry> entries;
        std::string reason;
        const LoadStatus status = read_entries(path, entries, reason);
        if (!calibration_file_replaceable(status)) {
            error = "not writing calibration file " + path + ": it " + reason +
                    ", so it is left as it is (libredux writes only where no file is, or over its own)";
            return false;
        }
        entries.erase(std::remove_if(entries.begin(), entries.end(),
                                     [&](const CalibrationEntry& e) { return e.signature == entry.signature; }),
                      entries.end());
        entries.insert(entries.begin(), entry);
        std::stable_sort(entries.begin(), entries.end(), [](const CalibrationEntry& a, const CalibrationEntry& b) {
            return a.created_unix > b.created_unix;
        });
        if (entries.size() > kMaxEntries) entries.resize(kMaxEntries);

        json doc = {{"format", kFormatName}, {"version", kCalibrationFormatVersion}, {"entries", json::array()}};
        for (const CalibrationEntry& e : entries) doc["entries"].push_back(to_json(e));
        const std::string text = doc.dump(1) + '\n';

        switch (publish_file(path, text, status == LoadStatus::missing, "calibration file", error)) {
            case Publish::done:
                return true;
            case Publish::failed:
                return false;
            case Publish::appeared:
                continue;  // judge the new file
        }
    }
    error = "cannot write calibration file " + path + ": it kept appearing and disappearing while being written";
    return false;
}

}  // namespace redux
