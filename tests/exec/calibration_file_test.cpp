// The calibration file (libredux/src/calib/calibration_file.hpp): what is written is read back; a missing,
// corrupt, truncated, foreign, other-version or stale file, or one for another layout, is not used and says
// why; concurrent writers (processes) leave a valid file.
#include "calib/calibration_file.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

class CalibrationFile : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/redux-calibration-test-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir_ = pattern;
        path_ = dir_ + "/calibration.json";
    }
    void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

    void write_raw(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }
    std::string read_raw() const {
        std::ifstream in(path_, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    static redux::CalibrationEntry entry(const std::string& signature, int64_t created, double alpha) {
        redux::CalibrationEntry e;
        e.signature = signature;
        e.created_unix = created;
        e.links[0] = {alpha, 1e-10, true};
        e.links[2] = {alpha * 100, 8e-9, true};
        return e;
    }

    std::string dir_, path_;
    static constexpr int64_t kNow = 1'800'000'000;
    static constexpr int64_t kDay = 86400;
};

TEST_F(CalibrationFile, WhatIsStoredIsReadBack) {
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error)) << error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("4-bb", kNow, 7e-7), error)) << error;
    const redux::LoadResult a = redux::load_calibration(path_, "8-aa", kNow + 10, kDay);
    ASSERT_EQ(a.status, redux::LoadStatus::found) << a.reason;
    EXPECT_EQ(a.links[0].alpha_s, 5e-7);
    EXPECT_EQ(a.links[0].beta_s_per_byte, 1e-10);
    EXPECT_TRUE(a.links[0].measured);
    EXPECT_FALSE(a.links[1].measured) << "a class that was not stored";
    EXPECT_DOUBLE_EQ(a.links[2].alpha_s, 5e-7 * 100);
    const redux::LoadResult b = redux::load_calibration(path_, "4-bb", kNow + 10, kDay);
    ASSERT_EQ(b.status, redux::LoadStatus::found);
    EXPECT_EQ(b.links[0].alpha_s, 7e-7);
}

TEST_F(CalibrationFile, StoringAgainReplacesTheLayoutsEntry) {
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow + 5, 9e-7), error));
    const redux::LoadResult a = redux::load_calibration(path_, "8-aa", kNow + 10, kDay);
    ASSERT_EQ(a.status, redux::LoadStatus::found);
    EXPECT_EQ(a.links[0].alpha_s, 9e-7);
    EXPECT_EQ(read_raw().find("5e-07"), std::string::npos) << read_raw();
}

TEST_F(CalibrationFile, UnusableFilesSayWhy) {
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    const std::string good = read_raw();
    const struct {
        const char* what;
        std::string text;
        redux::LoadStatus status;
    } cases[] = {
        {"truncated", good.substr(0, good.size() / 2), redux::LoadStatus::corrupt},
        {"garbage", "\x01\x02not json at all", redux::LoadStatus::corrupt},
        {"empty", "", redux::LoadStatus::corrupt},
        {"foreign JSON", R"({"some": "other tool", "entries": []})", redux::LoadStatus::foreign},
        {"a JSON array", "[1, 2, 3]", redux::LoadStatus::foreign},
        {"another version", R"({"format": "libredux-calibration", "version": 99, "entries": []})",
         redux::LoadStatus::stale},
        {"malformed entry",
         R"({"format": "libredux-calibration", "version": 1, "entries": [{"signature": "8-aa", "created_unix": 1800000000, "links": {"same_package": {"alpha_s": -1, "beta_s_per_byte": 0}}}]})",
         redux::LoadStatus::corrupt},
        {"entries not a list", R"({"format": "libredux-calibration", "version": 1, "entries": 3})",
         redux::LoadStatus::corrupt},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        write_raw(c.text);
        const redux::LoadResult r = redux::load_calibration(path_, "8-aa", kNow, kDay);
        EXPECT_EQ(r.status, c.status) << r.reason;
        EXPECT_FALSE(r.reason.empty());
        // Storing over a bad file replaces it with a valid one.
        ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error)) << error;
        EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::found);
    }
}

TEST_F(CalibrationFile, MissingStaleAndOtherLayouts) {
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::missing);
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow + 2 * kDay, kDay).status, redux::LoadStatus::stale);
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow - 3600, kDay).status, redux::LoadStatus::stale)
        << "an entry from the future (clock skew) is not trusted";
    EXPECT_EQ(redux::load_calibration(path_, "8-ab", kNow, kDay).status, redux::LoadStatus::no_entry);
    EXPECT_EQ(redux::load_calibration(dir_, "8-aa", kNow, kDay).status, redux::LoadStatus::corrupt)
        << "a directory reads as nothing";
}

// Eight processes each store 20 entries at once: the file is valid JSON all along, ends with entries of
// several writers, and no temporary file is left behind.
TEST_F(CalibrationFile, ConcurrentWritersLeaveAValidFile) {
    constexpr int kWriters = 8, kRounds = 20;
    for (int w = 0; w < kWriters; ++w) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            std::string error;
            bool ok = true;
            for (int r = 0; r < kRounds; ++r) {
                ok = redux::store_calibration(path_, entry(std::to_string(w) + "-" + std::to_string(r), kNow + r, 1e-6),
                                              error) && ok;
                const auto status = redux::load_calibration(path_, "none", kNow, kDay).status;
                ok = ok && (status == redux::LoadStatus::no_entry);  // never a torn file
            }
            _exit(ok ? 0 : 1);
        }
    }
    for (int w = 0; w < kWriters; ++w) {
        int status = 0;
        wait(&status);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer saw a bad file or failed to write";
    }
    EXPECT_EQ(redux::load_calibration(path_, "none", kNow, kDay).status, redux::LoadStatus::no_entry);
    int found = 0;
    for (int w = 0; w < kWriters; ++w) {
        found += redux::load_calibration(path_, std::to_string(w) + "-" + std::to_string(kRounds - 1), kNow, kDay)
                     .status == redux::LoadStatus::found;
    }
    EXPECT_GE(found, 1);
    const std::string listing = dir_ + "/*.tmp.*";
    EXPECT_NE(std::system(("ls " + listing + " >/dev/null 2>&1").c_str()), 0) << "a temporary file was left";
}

}  // namespace
