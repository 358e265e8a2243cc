// The wisdom file (libredux/src/policy/wisdom_file.hpp): what is stored is read back, field for field, for its job
// only; an entry of the same job and call is replaced, a dropped one goes, other jobs' entries stay; a file that is
// not libredux's wisdom file (a C source, another program's JSON, a calibration file, a malformed entry, a
// directory) is never read or written, byte for byte; another version is read as empty and replaced; clearing
// keeps the format; 8 processes storing at once into one file each keep their entries.
#include "policy/wisdom_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace {

using redux::WisdomEntry;
using redux::WisdomStatus;

class WisdomFile : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/redux-wisdom-test-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir_ = pattern;
        path_ = dir_ + "/wisdom.json";
    }
    void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

    void write_raw(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }
    std::string read_raw() const {
        std::ifstream in(path_, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    static WisdomEntry entry(const std::string& job, const std::string& call, const std::string& strategy,
                             int64_t created) {
        WisdomEntry e;
        e.job = job;
        e.call = call;
        e.strategy = strategy;
        e.chosen_s = 1.5e-4 + 1e-6 * static_cast<double>(created % 7);
        e.native_s = 2.5e-4;
        e.compute_s = 3.25e-7;
        e.compute_call_s = 4e-8;
        e.created_unix = created;
        return e;
    }
    bool store(const std::vector<WisdomEntry>& add, const std::vector<redux::WisdomKey>& drop = {}) {
        std::string error;
        const bool stored = redux::store_wisdom(path_, add, drop, error);
        EXPECT_TRUE(stored) << error;
        return stored;
    }

    std::string dir_, path_;
};

TEST_F(WisdomFile, WhatIsStoredIsReadBackForItsJobOnly) {
    EXPECT_EQ(redux::load_wisdom(path_, "job A").status, WisdomStatus::missing);
    const WisdomEntry a = entry("job A", "reduce count=1", "two-tree", 100);
    WisdomEntry b = entry("job A", "reduce count=2", "native", 101);
    b.second_look = true;
    b.nonblocking = "fibonacci";
    const WisdomEntry c = entry("job B", "reduce count=1", "optimal", 102);
    ASSERT_TRUE(store({a, b}));
    ASSERT_TRUE(store({c}));
    const redux::WisdomLoad load = redux::load_wisdom(path_, "job A");
    ASSERT_EQ(load.status, WisdomStatus::found) << load.reason;
    ASSERT_EQ(load.entries.size(), 2u);
    for (const WisdomEntry& got : load.entries) {
        const WisdomEntry& want = got.call == a.call ? a : b;
        EXPECT_EQ(got.job, want.job);
        EXPECT_EQ(got.call, want.call);
        EXPECT_EQ(got.strategy, want.strategy);
        EXPECT_EQ(got.chosen_s, want.chosen_s);
        EXPECT_EQ(got.native_s, want.native_s);
        EXPECT_EQ(got.compute_s, want.compute_s);
        EXPECT_EQ(got.compute_call_s, want.compute_call_s);
        EXPECT_EQ(got.created_unix, want.created_unix);
        EXPECT_EQ(got.second_look, want.second_look);
        EXPECT_EQ(got.nonblocking, want.nonblocking);
    }
    EXPECT_EQ(redux::load_wisdom(path_, "job B").entries.size(), 1u);
    EXPECT_EQ(redux::load_wisdom(path_, "").entries.size(), 3u) << "no job: every entry";
}

// The text rank 0 broadcasts of a job's entries gives every field back; a text that is not such an array is refused.
TEST_F(WisdomFile, EntriesTextGivesEveryFieldBack) {
    WisdomEntry a = entry("job A", "reduce count=1", "two-tree", 100);
    a.second_look = true;
    a.nonblocking = "native";
    const WisdomEntry b = entry("job A", "reduce count=2", "native", 101);
    std::vector<WisdomEntry> back;
    ASSERT_TRUE(redux::wisdom_entries_from_text(redux::wisdom_entries_text({a, b}), back));
    ASSERT_EQ(back.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const WisdomEntry& want = i == 0 ? a : b;
        EXPECT_EQ(back[i].job, want.job);
        EXPECT_EQ(back[i].call, want.call);
        EXPECT_EQ(back[i].strategy, want.strategy);
        EXPECT_EQ(back[i].chosen_s, want.chosen_s);
        EXPECT_EQ(back[i].native_s, want.native_s);
        EXPECT_EQ(back[i].compute_s, want.compute_s);
        EXPECT_EQ(back[i].compute_call_s, want.compute_call_s);
        EXPECT_EQ(back[i].created_unix, want.created_unix);
        EXPECT_EQ(back[i].second_look, want.second_look);
        EXPECT_EQ(back[i].nonblocking, want.nonblocking);
    }
    std::vector<WisdomEntry> none;
    EXPECT_FALSE(redux::wisdom_entries_from_text("not json", none));
    EXPECT_FALSE(redux::wisdom_entries_from_text("[{\"job\": \"j\"}]", none));
}

TEST_F(WisdomFile, AnEntryOfTheSameCallIsReplacedADroppedOneGoesOtherJobsStay) {
    ASSERT_TRUE(store({entry("job A", "call 1", "two-tree", 100), entry("job A", "call 2", "native", 100),
                       entry("job B", "call 1", "optimal", 100)}));
    ASSERT_TRUE(store({entry("job A", "call 1", "binomial", 200)}, {{"job A", "call 2"}}));
    const redux::WisdomLoad a = redux::load_wisdom(path_, "job A");
    ASSERT_EQ(a.entries.size(), 1u);
    EXPECT_EQ(a.entries[0].call, "call 1");
    EXPECT_EQ(a.entries[0].strategy, "binomial");
    const redux::WisdomLoad b = redux::load_wisdom(path_, "job B");
    ASSERT_EQ(b.entries.size(), 1u) << "a drop names its job's calls only";
    EXPECT_EQ(b.entries[0].strategy, "optimal");
}

TEST_F(WisdomFile, TheNewestAreKeptWhenFull) {
    std::vector<WisdomEntry> many;
    for (size_t i = 0; i < redux::kMaxWisdomEntries + 10; ++i) {
        many.push_back(entry("job", "call " + std::to_string(i), "native", static_cast<int64_t>(i)));
    }
    ASSERT_TRUE(store(many));
    const redux::WisdomLoad load = redux::load_wisdom(path_, "job");
    ASSERT_EQ(load.entries.size(), redux::kMaxWisdomEntries);
    for (const WisdomEntry& e : load.entries) EXPECT_GE(e.created_unix, 10) << e.call;
}

TEST_F(WisdomFile, AFileThatIsNotLibreduxsWisdomIsNeverReadOrWritten) {
    const char* texts[] = {
        "int main(void) { return 0; }\n",
        "{\"name\": \"another program's settings\", \"entries\": []}\n",
        "{\"format\": \"libredux-calibration\", \"version\": 2, \"entries\": []}\n",
        "{\"format\": \"libredux-wisdom\", \"version\": 1, \"entries\": [{\"job\": \"j\"}]}\n",
        "{\"format\": \"libredux-wisdom\", \"version\": 1}\n",
        "{\"format\": \"libredux-wisdom\", \"version\": 1, \"entries\": [{\"job\": \"j\", \"call\": \"c\", "
        "\"strategy\": "
        "\"native\", \"chosen_s\": 0, \"native_s\": 0, \"compute_s\": -1, \"compute_call_s\": 0, \"created_unix\": 1, "
        "\"second_look\": 1}]}\n",
        "{\"format\": \"libredux-wisdom\", \"version\": 1, \"entries\": [{\"job\": \"j\", \"call\": \"c\", "
        "\"strategy\": "
        "\"native\", \"chosen_s\": 0, \"native_s\": 0, \"compute_s\": -1, \"compute_call_s\": 0, \"created_unix\": 1, "
        "\"nonblocking\": 2}]}\n",
        "",
    };
    for (const char* text : texts) {
        SCOPED_TRACE(text);
        write_raw(text);
        const redux::WisdomLoad load = redux::load_wisdom(path_, "j");
        EXPECT_EQ(load.status, WisdomStatus::refused);
        EXPECT_TRUE(load.entries.empty());
        EXPECT_FALSE(load.reason.empty());
        std::string error;
        EXPECT_FALSE(redux::store_wisdom(path_, {entry("j", "c", "native", 1)}, {}, error));
        EXPECT_NE(error.find(path_), std::string::npos) << error;
        EXPECT_FALSE(redux::clear_wisdom(path_, error));
        EXPECT_EQ(read_raw(), text) << "left byte for byte";
    }
    std::remove(path_.c_str());
    ASSERT_EQ(mkdir(path_.c_str(), 0755), 0);
    EXPECT_EQ(redux::load_wisdom(path_, "j").status, WisdomStatus::refused);
    std::string error;
    EXPECT_FALSE(redux::store_wisdom(path_, {entry("j", "c", "native", 1)}, {}, error));
    struct stat st {};
    ASSERT_EQ(stat(path_.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << "the directory is still there";
}

TEST_F(WisdomFile, AnotherVersionIsReadAsEmptyAndReplaced) {
    write_raw("{\"format\": \"libredux-wisdom\", \"version\": 99, \"entries\": [{\"anything\": 1}]}\n");
    const redux::WisdomLoad load = redux::load_wisdom(path_, "");
    EXPECT_EQ(load.status, WisdomStatus::stale);
    EXPECT_TRUE(load.entries.empty());
    ASSERT_TRUE(store({entry("j", "c", "native", 5)}));
    const nlohmann::json doc = nlohmann::json::parse(read_raw());
    EXPECT_EQ(doc["version"], redux::kWisdomFormatVersion);
    EXPECT_EQ(redux::load_wisdom(path_, "j").entries.size(), 1u);
}

TEST_F(WisdomFile, ClearingKeepsTheFormatAndEmptiesIt) {
    std::string error;
    EXPECT_TRUE(redux::clear_wisdom(path_, error)) << "nothing there: nothing to do";
    EXPECT_EQ(redux::load_wisdom(path_, "").status, WisdomStatus::missing) << "and nothing written";
    ASSERT_TRUE(store({entry("j", "c", "native", 5)}));
    ASSERT_TRUE(redux::clear_wisdom(path_, error)) << error;
    const redux::WisdomLoad load = redux::load_wisdom(path_, "");
    EXPECT_EQ(load.status, WisdomStatus::found);
    EXPECT_TRUE(load.entries.empty());
}

// Jobs that finish decisions at the same moment: each process stores its own calls, many times over, into one
// file; every process's entries are there at the end and no temporary file is left.
TEST_F(WisdomFile, ProcessesStoringAtOnceKeepEachOthersEntries) {
    constexpr int kProcesses = 8, kStores = 10;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            bool ok = true;
            for (int s = 0; s < kStores; ++s) {
                std::string error;
                const WisdomEntry e = entry("job " + std::to_string(p), "call " + std::to_string(s), "optimal", s);
                ok = redux::store_wisdom(path_, {e}, {}, error) && ok;
            }
            _exit(ok ? 0 : 1);
        }
        children.push_back(child);
    }
    for (pid_t child : children) {
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int p = 0; p < kProcesses; ++p) {
        EXPECT_EQ(redux::load_wisdom(path_, "job " + std::to_string(p)).entries.size(), static_cast<size_t>(kStores))
            << "process " << p;
    }
    EXPECT_NE(std::system(("ls " + dir_ + "/*.tmp.* >/dev/null 2>&1").c_str()), 0) << "a temporary file was left";
}

}  // namespace
