// The wisdom file (REDUX_WISDOM): auto's decisions kept between jobs, so that a job that ran before starts each
// key on what it found. See wisdom_file.cpp for the format and which files it writes. No MPI: rank 0 reads and
// writes it (api/wisdom.cpp builds the keys and shares what it read).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace redux {

constexpr int kWisdomFormatVersion = 1;

struct WisdomEntry {
    // What the decision holds for: the job's part (its shape, the MPI library, libredux's version) and the call's
    // (collective, count, datatype, op, commutativity, root). Texts made by api/wisdom.cpp, compared whole.
    std::string job;
    std::string call;
    std::string strategy;  // what auto settled on: "native" or a strategy's name ("optimal", "two-tree", ...)
    double chosen_s = 0;   // the agreed median time of a call of it, when it was decided
    double native_s = 0;   // and of the MPI library's own (0: not measured)
    // The op's cost that the plans stood on (c = compute_call_s + per element x count), so that a job starting from
    // the entry plans the same trees without timing the op. Negative: not kept (the op is timed).
    double compute_s = -1;
    double compute_call_s = 0;
    int64_t created_unix = 0;
    // An arrival contender's decision (MPI_Reduce's arrival-tree, MPI_Allreduce's late-rank): by rank, the seconds
    // after the first rank that it was made for, which a job starting from it makes it for again. Absent: empty.
    std::vector<double> lateness_s;
    // The decision was the first round's, the runners-up not measured yet (AutoSelect's second look): a job that
    // starts from it takes that look. Absent from the file: false.
    bool second_look = false;
    // What auto's weighing of the key's nonblocking calls settled on (api/nonblocking_auto.hpp): "native" or a tree's
    // name, which a job starting from the entry weighs alone against the library's own. Absent: empty.
    std::string nonblocking;
};

enum class WisdomStatus {
    found,    // libredux's wisdom file (entries may be empty)
    missing,  // nothing at the path: written on the first decision
    stale,    // libredux's format marker, another version: read as empty, replaced when written
    refused,  // not libredux's wisdom file, or unreadable: never read or written
};

struct WisdomLoad {
    WisdomStatus status = WisdomStatus::missing;
    std::string reason;  // why not found, for the warning
    std::vector<WisdomEntry> entries;
};

// The entries of the file at `path` whose job is `job` (every entry when `job` is empty).
WisdomLoad load_wisdom(const std::string& path, const std::string& job);

// An entry's identity: its job and call.
using WisdomKey = std::pair<std::string, std::string>;

// Adds `add` (an entry of the same job and call replaces the old one) and removes the entries `drop` names,
// keeping the rest of the file, newest first, at most kMaxWisdomEntries. Several processes may store at once: they
// take turns (a lock on the file's directory) and each one's entries are kept. Writes only a missing file or
// libredux's own wisdom file; returns false with `error` set when it does not write.
constexpr size_t kMaxWisdomEntries = 4096;
bool store_wisdom(const std::string& path, const std::vector<WisdomEntry>& add, const std::vector<WisdomKey>& drop,
                  std::string& error);

// Entries as the file holds them, as one text (a JSON array: what rank 0 broadcasts of a job's entries), and back:
// false where the text is not such an array of valid entries.
std::string wisdom_entries_text(const std::vector<WisdomEntry>& entries);
bool wisdom_entries_from_text(const std::string& text, std::vector<WisdomEntry>& entries);

// Empties libredux's wisdom file at `path` (its format kept); false with `error` set for any other file.
bool clear_wisdom(const std::string& path, std::string& error);

}  // namespace redux
