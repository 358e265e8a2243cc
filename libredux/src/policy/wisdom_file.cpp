// The wisdom file, version 1: one JSON document,
//   {"format": "libredux-wisdom", "version": 1,
//    "entries": [{"job": "...", "call": "...", "strategy": "two-tree", "chosen_s": 2.1e-4, "native_s": 2.6e-4,
//                 "compute_s": 1.2e-7, "compute_call_s": 4e-8, "created_unix": 1795000000}, ...]}
// and "second_look": true on an entry whose decision is to be looked at again (absent: false), "lateness_s": [...] on
// an arrival contender's (absent: empty), "nonblocking": "native" or a tree's name on a key whose nonblocking calls
// auto weighed (absent: empty).
// newest first, at most kMaxWisdomEntries. "job" and "call" are texts api/wisdom.cpp makes (docs/usage.md shows
// them); an entry is used only where both match whole.
//
// REDUX_WISDOM is a path the user typed: libredux reads and writes only its own wisdom file, as it does the
// calibration file (policy/calibration_file.cpp has the table). A file with the format marker and another integer
// version is another libredux's: read as empty and replaced. Not JSON, JSON that is not ours, our marker with
// malformed entries, a file far larger than ours, or one that cannot be read (a directory, a FIFO, no permission):
// never read, never written.
//
// Writers: read, merge and publish (policy/owned_file.hpp: a whole file, atomically) while holding a lock on the
// file's directory, so that jobs that finish decisions at the same moment keep each other's entries. Readers take
// no lock: they see the last whole file.
#include "policy/wisdom_file.hpp"

#include "policy/owned_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace redux {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "libredux-wisdom";
constexpr off_t kMaxFileBytes = 64 << 20;  // 4096 entries of a few hundred bytes; a larger file is not ours
constexpr int kStoreAttempts = 8;

bool seconds(const json& value) {
    return value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() >= 0;
}

bool valid_seconds(const json& j, const char* field) { return j.contains(field) && seconds(j[field]); }

// An arrival contender's lateness: seconds, one per rank
bool valid_lateness(const json& j) {
    if (!j.contains("lateness_s")) return true;
    const json& all = j["lateness_s"];
    return all.is_array() && std::all_of(all.begin(), all.end(), seconds);
}

bool parse_entry(const json& j, WisdomEntry& entry) {
    if (!j.is_object() || !valid_lateness(j)) return false;
    for (const char* field : {"job", "call", "strategy"}) {
        if (!j.contains(field) || !j[field].is_string()) return false;
    }
    if (!valid_seconds(j, "chosen_s") || !valid_seconds(j, "native_s") || !valid_seconds(j, "compute_call_s") ||
        !j.contains("compute_s") || !j["compute_s"].is_number() || !j.contains("created_unix") ||
        !j["created_unix"].is_number_integer() || (j.contains("second_look") && !j["second_look"].is_boolean()) ||
        (j.contains("nonblocking") && !j["nonblocking"].is_string())) {
        return false;
    }
    entry.job = j["job"].get<std::string>();
    entry.call = j["call"].get<std::string>();
    entry.strategy = j["strategy"].get<std::string>();
    entry.chosen_s = j["chosen_s"].get<double>();
    entry.native_s = j["native_s"].get<double>();
    entry.compute_s = j["compute_s"].get<double>();
    entry.compute_call_s = j["compute_call_s"].get<double>();
    entry.created_unix = j["created_unix"].get<int64_t>();
    entry.second_look = j.value("second_look", false);
    if (j.contains("lateness_s")) entry.lateness_s = j["lateness_s"].get<std::vector<double>>();
    entry.nonblocking = j.value("nonblocking", std::string());
    return true;
}

json to_json(const WisdomEntry& e) {
    json j = {{"job", e.job},
              {"call", e.call},
              {"strategy", e.strategy},
              {"chosen_s", e.chosen_s},
              {"native_s", e.native_s},
              {"compute_s", e.compute_s},
              {"compute_call_s", e.compute_call_s},
              {"created_unix", e.created_unix}};
    if (e.second_look) j["second_look"] = true;
    if (!e.lateness_s.empty()) j["lateness_s"] = e.lateness_s;
    if (!e.nonblocking.empty()) j["nonblocking"] = e.nonblocking;
    return j;
}

// Every entry of the file at `path`, or the status saying why none can be read.
WisdomLoad read_all(const std::string& path) {
    WisdomLoad load;
    std::string text;
    const int failure = read_regular_file(path, kMaxFileBytes, text);
    if (failure != 0) {
        load.reason = read_failure_words(failure, kMaxFileBytes, "wisdom file");
        load.status = failure == ENOENT ? WisdomStatus::missing : WisdomStatus::refused;
        return load;
    }
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    load.status = WisdomStatus::refused;
    if (doc.is_discarded()) {
        load.reason = "is not valid JSON: not a libredux wisdom file";
        return load;
    }
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormatName || !doc.contains("version") ||
        !doc["version"].is_number_integer()) {
        load.reason = "is not a libredux wisdom file";
        return load;
    }
    if (doc["version"] != kWisdomFormatVersion) {
        load.status = WisdomStatus::stale;
        load.reason =
            "has another format version (this libredux reads version " + std::to_string(kWisdomFormatVersion) + ")";
        return load;
    }
    if (!doc.contains("entries") || !doc["entries"].is_array()) {
        load.reason = "has no entries list (corrupt)";
        return load;
    }
    for (const json& j : doc["entries"]) {
        WisdomEntry entry;
        if (!parse_entry(j, entry)) {
            load.reason = "has a malformed entry (corrupt)";
            load.entries.clear();
            return load;
        }
        load.entries.push_back(std::move(entry));
    }
    load.status = WisdomStatus::found;
    return load;
}

// Publishes `entries` (read from the file, then changed by `change`) as the file at `path`, judged again before
// each attempt.
template <typename Change>
bool rewrite(const std::string& path, Change change, std::string& error) {
    const DirectoryLock lock(path);
    for (int attempt = 0; attempt < kStoreAttempts; ++attempt) {
        WisdomLoad load = read_all(path);
        if (load.status == WisdomStatus::refused) {
            error = "not writing wisdom file " + path + ": it " + load.reason +
                    ", so it is left as it is (libredux writes only where no file is, or over its own)";
            return false;
        }
        change(load.entries);
        json doc = {{"format", kFormatName}, {"version", kWisdomFormatVersion}, {"entries", json::array()}};
        for (const WisdomEntry& e : load.entries) doc["entries"].push_back(to_json(e));
        switch (publish_file(path, doc.dump(1) + '\n', load.status == WisdomStatus::missing, "wisdom file", error)) {
            case Publish::done:
                return true;
            case Publish::failed:
                return false;
            case Publish::appeared:
                continue;
        }
    }
    error = "cannot write wisdom file " + path + ": it kept appearing and disappearing while being written";
    return false;
}

}  // namespace

std::string wisdom_entries_text(const std::vector<WisdomEntry>& entries) {
    json array = json::array();
    for (const WisdomEntry& e : entries) array.push_back(to_json(e));
    return array.dump();
}

bool wisdom_entries_from_text(const std::string& text, std::vector<WisdomEntry>& entries) {
    const json array = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!array.is_array()) return false;
    for (const json& j : array) {
        WisdomEntry e;
        if (!parse_entry(j, e)) return false;
        entries.push_back(std::move(e));
    }
    return true;
}

WisdomLoad load_wisdom(const std::string& path, const std::string& job) {
    WisdomLoad load = read_all(path);
    if (load.status == WisdomStatus::stale) load.entries.clear();
    if (!job.empty()) {
        load.entries.erase(std::remove_if(load.entries.begin(), load.entries.end(),
                                          [&](const WisdomEntry& e) { return e.job != job; }),
                           load.entries.end());
    }
    return load;
}

bool store_wisdom(const std::string& path, const std::vector<WisdomEntry>& add, const std::vector<WisdomKey>& drop,
                  std::string& error) {
    return rewrite(
        path,
        [&](std::vector<WisdomEntry>& entries) {
            const auto replaced = [&](const WisdomEntry& e) {
                if (std::find(drop.begin(), drop.end(), WisdomKey{e.job, e.call}) != drop.end()) return true;
                return std::any_of(add.begin(), add.end(),
                                   [&](const WisdomEntry& a) { return a.job == e.job && a.call == e.call; });
            };
            entries.erase(std::remove_if(entries.begin(), entries.end(), replaced), entries.end());
            entries.insert(entries.begin(), add.begin(), add.end());
            std::stable_sort(entries.begin(), entries.end(), [](const WisdomEntry& a, const WisdomEntry& b) {
                return a.created_unix > b.created_unix;
            });
            if (entries.size() > kMaxWisdomEntries) entries.resize(kMaxWisdomEntries);
        },
        error);
}

bool clear_wisdom(const std::string& path, std::string& error) {
    if (read_all(path).status == WisdomStatus::missing) return true;  // nothing to clear: nothing is written
    return rewrite(
        path, [](std::vector<WisdomEntry>& entries) { entries.clear(); }, error);
}

}  // namespace redux
