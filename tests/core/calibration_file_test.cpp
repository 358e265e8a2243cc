// The calibration file (libredux/src/policy/calibration_file.hpp): what is written is read back; a missing,
// corrupt, truncated, foreign, other-version or stale file, or one for another layout, is not used and says
// why; only a missing file or libredux's own is ever written, any other file (a C source, another program's
// JSON, an empty file, a directory, a FIFO) is left byte for byte as it was; errors name the configured path
// and the OS's reason; concurrent writers (processes) leave a valid file. Version 2 keeps each link's measured
// points, read back exactly; a version-1 file (libredux's, one line per link) is stale and replaced; malformed
// points make a file corrupt.
#include "policy/calibration_file.hpp"

#include "model/link_costs.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    std::string read_raw() const { return read_file(path_); }
    static std::string read_file(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    // Whether `message` names `path` itself: not only as the start of a longer name (the temporary file's).
    static bool names(const std::string& message, const std::string& path) {
        for (size_t at = message.find(path); at != std::string::npos; at = message.find(path, at + 1)) {
            const size_t end = at + path.size();
            if (end == message.size() || message[end] == ' ' || message[end] == ':' || message[end] == ',' ||
                message[end] == ';' || message[end] == ')') {
                return true;
            }
        }
        return false;
    }
    // No temporary file of a store is left in the directory.
    void expect_no_temporary_files() const {
        EXPECT_NE(std::system(("ls " + dir_ + "/*.tmp.* >/dev/null 2>&1").c_str()), 0) << "a temporary file was left";
    }

    static redux::CalibrationEntry entry(const std::string& signature, int64_t created, double alpha) {
        redux::CalibrationEntry e;
        e.signature = signature;
        e.created_unix = created;
        e.links[0] = {alpha, 1e-10, true, {}};
        e.links[2] = {alpha * 100, 8e-9, true, {}};
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

// The times between every two nodes are kept with the links and read back exactly; an entry without them reads as
// none; malformed ones make the file corrupt.
TEST_F(CalibrationFile, NodePairsAreReadBackExactlyAndOptional) {
    redux::CalibrationEntry e = entry("12-cc", kNow, 5e-7);
    e.pairs.node_ids = {0, 4, 8};
    for (size_t k = 0; k < redux::kPairBytes.size(); ++k) {
        for (int cell = 0; cell < 9; ++cell)
            e.pairs.one_way_s[k].push_back(cell % 4 == 0 ? 0.0 : 1e-3 / 3 * (k + cell));
    }
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, e, error)) << error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error)) << error;
    const redux::LoadResult a = redux::load_calibration(path_, "12-cc", kNow + 10, kDay);
    ASSERT_EQ(a.status, redux::LoadStatus::found) << a.reason;
    EXPECT_EQ(a.pairs.node_ids, e.pairs.node_ids);
    for (size_t k = 0; k < redux::kPairBytes.size(); ++k) EXPECT_EQ(a.pairs.one_way_s[k], e.pairs.one_way_s[k]) << k;
    EXPECT_TRUE(redux::load_calibration(path_, "8-aa", kNow + 10, kDay).pairs.empty());
    const std::string good = read_raw();
    for (const char* bad : {"\"node_ids\": [", "\"one_way_s\": ["}) {
        std::string text = good;
        const size_t at = text.find(bad);
        ASSERT_NE(at, std::string::npos) << bad;
        text.insert(at + std::strlen(bad), "\"x\", ");
        write_raw(text);
        EXPECT_EQ(redux::load_calibration(path_, "12-cc", kNow + 10, kDay).status, redux::LoadStatus::corrupt) << bad;
    }
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
        bool replaced;  // whether store_calibration may write over it
    } cases[] = {
        {"truncated", good.substr(0, good.size() / 2), redux::LoadStatus::corrupt, false},
        {"garbage", "\x01\x02not json at all", redux::LoadStatus::corrupt, false},
        {"empty", "", redux::LoadStatus::corrupt, false},
        {"foreign JSON", R"({"some": "other tool", "entries": []})", redux::LoadStatus::foreign, false},
        {"a JSON array", "[1, 2, 3]", redux::LoadStatus::foreign, false},
        {"libredux's marker without a version", R"({"format": "libredux-calibration", "entries": []})",
         redux::LoadStatus::foreign, false},
        {"another version", R"({"format": "libredux-calibration", "version": 99, "entries": []})",
         redux::LoadStatus::stale, true},
        {"malformed entry",
         R"({"format": "libredux-calibration", "version": 2, "entries": [{"signature": "8-aa", "created_unix": 1800000000, "links": {"same_package": {"alpha_s": -1, "beta_s_per_byte": 0}}}]})",
         redux::LoadStatus::corrupt, false},
        {"entries not a list", R"({"format": "libredux-calibration", "version": 2, "entries": 3})",
         redux::LoadStatus::corrupt, false},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        write_raw(c.text);
        const redux::LoadResult r = redux::load_calibration(path_, "8-aa", kNow, kDay);
        EXPECT_EQ(r.status, c.status) << r.reason;
        EXPECT_FALSE(r.reason.empty());
        // Storing replaces libredux's own file (another version) with a valid one, and leaves any other as it is.
        error.clear();
        EXPECT_EQ(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error), c.replaced) << error;
        if (c.replaced) {
            EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::found);
        } else {
            EXPECT_EQ(read_raw(), c.text) << "a file that is not provably libredux's was changed";
            EXPECT_TRUE(names(error, path_)) << error;
        }
    }
    expect_no_temporary_files();
}

TEST_F(CalibrationFile, MissingStaleAndOtherLayouts) {
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::missing);
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow + 2 * kDay, kDay).status, redux::LoadStatus::stale);
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow - 3600, kDay).status, redux::LoadStatus::stale)
        << "an entry from the future (clock skew) is not trusted";
    EXPECT_EQ(redux::load_calibration(path_, "8-ab", kNow, kDay).status, redux::LoadStatus::no_entry);
    EXPECT_EQ(redux::load_calibration(dir_, "8-aa", kNow, kDay).status, redux::LoadStatus::unreadable)
        << "a directory is not a calibration file";
}

// The decision the caller (link calibration) makes from what it read, before measuring: write only where no
// file is or over libredux's own.
TEST(CalibrationFileDecision, OnlyMissingOrOwnFilesAreReplaceable) {
    using redux::LoadStatus;
    EXPECT_TRUE(redux::calibration_file_replaceable(LoadStatus::missing));
    EXPECT_TRUE(redux::calibration_file_replaceable(LoadStatus::found));
    EXPECT_TRUE(redux::calibration_file_replaceable(LoadStatus::stale));
    EXPECT_TRUE(redux::calibration_file_replaceable(LoadStatus::no_entry));
    EXPECT_FALSE(redux::calibration_file_replaceable(LoadStatus::unreadable));
    EXPECT_FALSE(redux::calibration_file_replaceable(LoadStatus::corrupt)) << "libredux's own JSON, truncated, too";
    EXPECT_FALSE(redux::calibration_file_replaceable(LoadStatus::foreign));
}

// A measured link is its points: stored and read back bit for bit, so d is the same at every size.
TEST_F(CalibrationFile, PointsAreReadBackExactly) {
    redux::CalibrationEntry e;
    e.signature = "4-cc";
    e.created_unix = kNow;
    e.links[0] = redux::fit_link({{8, 4.123456789e-7}, {32768, 5.2e-6}, {262144, 3.3e-5}, {1 << 20, 1.0e-4}});
    e.links[2] = redux::fit_link(
        {{8, 2.1119e-3}, {32768, 2.6722e-3}, {262144, 8.6915e-3}, {1 << 20, 13.285e-3}, {4 << 20, 39.6385e-3}});
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, e, error)) << error;
    const redux::LoadResult r = redux::load_calibration(path_, "4-cc", kNow, kDay);
    ASSERT_EQ(r.status, redux::LoadStatus::found) << r.reason;
    for (int c : {0, 2}) {
        SCOPED_TRACE(c);
        const redux::LinkFit& want = e.links[c];
        const redux::LinkFit& got = r.links[c];
        EXPECT_TRUE(got.measured);
        ASSERT_EQ(got.points.size(), want.points.size());
        for (size_t i = 0; i < want.points.size(); ++i) {
            EXPECT_EQ(got.points[i].bytes, want.points[i].bytes);
            EXPECT_EQ(got.points[i].one_way_s, want.points[i].one_way_s);
        }
        EXPECT_EQ(got.alpha_s, want.alpha_s);
        EXPECT_EQ(got.beta_s_per_byte, want.beta_s_per_byte);
        for (size_t bytes : {size_t{0}, size_t{100000}, size_t{3} << 20, size_t{64} << 20}) {
            EXPECT_EQ(got.at(bytes), want.at(bytes)) << bytes << " bytes";
        }
    }
    EXPECT_EQ(r.links[2].alpha_s, 2.1119e-3);
    EXPECT_FALSE(r.links[1].measured);
    // The file says it in version 2, with the points.
    const std::string text = read_raw();
    EXPECT_NE(text.find("\"version\": 2"), std::string::npos) << text;
    EXPECT_NE(text.find("\"points\""), std::string::npos) << text;
    EXPECT_NE(text.find("4194304"), std::string::npos) << text;
}

// A link given as a line (no points) stays a line.
TEST_F(CalibrationFile, ALineIsReadBackAsALine) {
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error)) << error;
    const redux::LoadResult r = redux::load_calibration(path_, "8-aa", kNow, kDay);
    ASSERT_EQ(r.status, redux::LoadStatus::found) << r.reason;
    EXPECT_TRUE(r.links[0].points.empty());
    EXPECT_DOUBLE_EQ(r.links[0].at(1000000), 5e-7 + 1e-10 * 1000000);
}

// The file as libredux 1 wrote it (one least-squares line per link): stale, not used, and replaced by a
// version-2 file when the job has measured; a job never crashes or keeps planning with the old line.
TEST_F(CalibrationFile, AVersionOneFileIsStaleAndReplaced) {
    const std::string version_1 = R"({
 "entries": [
  {
   "created_unix": 1800000000,
   "links": {
    "other_node": {"alpha_s": 0.0019833, "beta_s_per_byte": 2.5522e-08},
    "same_package": {"alpha_s": 1.2e-06, "beta_s_per_byte": 5.1e-10}
   },
   "signature": "8-aa"
  }
 ],
 "format": "libredux-calibration",
 "version": 1
}
)";
    write_raw(version_1);
    const redux::LoadResult old = redux::load_calibration(path_, "8-aa", kNow, kDay);
    EXPECT_EQ(old.status, redux::LoadStatus::stale);
    EXPECT_NE(old.reason.find("another format version"), std::string::npos) << old.reason;
    EXPECT_FALSE(old.links[2].measured) << "nothing of the old file is used";
    EXPECT_TRUE(redux::calibration_file_replaceable(old.status));
    redux::CalibrationEntry e;
    e.signature = "8-aa";
    e.created_unix = kNow;
    e.links[2] = redux::fit_link({{8, 2e-3}, {4 << 20, 36e-3}});
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, e, error)) << error;
    const redux::LoadResult r = redux::load_calibration(path_, "8-aa", kNow, kDay);
    ASSERT_EQ(r.status, redux::LoadStatus::found) << r.reason;
    EXPECT_EQ(r.links[2].points.size(), 2u);
    EXPECT_EQ(r.links[2].at(4 << 20), 36e-3);
    EXPECT_FALSE(r.links[0].measured) << "the old file's classes are gone";
    expect_no_temporary_files();
}

// Points that fit_link never writes: the file is not provably libredux's, so corrupt, and never replaced.
TEST_F(CalibrationFile, MalformedPointsAreCorrupt) {
    const auto file = [](const std::string& points) {
        return R"({"format": "libredux-calibration", "version": 2, "entries": [{"signature": "8-aa", )"
               R"("created_unix": 1800000000, "links": {"same_package": {"alpha_s": 1e-6, "beta_s_per_byte": 0, )"
               R"("points": )" +
               points + "}}}]}";
    };
    std::string too_many = "[";
    for (int i = 1; i <= 40; ++i) too_many += (i > 1 ? ", [" : "[") + std::to_string(i * 8) + ", 1e-6]";
    too_many += "]";
    const struct {
        const char* what;
        std::string points;
    } cases[] = {
        {"not a list", "3"},
        {"a point that is not a pair", "[[8, 1e-6, 2]]"},
        {"sizes not increasing", "[[32768, 2e-6], [8, 1e-6]]"},
        {"a size twice", "[[8, 1e-6], [8, 2e-6]]"},
        {"a negative time", "[[8, -1e-6]]"},
        {"a negative size", "[[-8, 1e-6]]"},
        {"a fractional size", "[[8.5, 1e-6]]"},
        {"a time that is text", R"([[8, "1e-6"]])"},
        {"more points than a fit keeps", too_many},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        write_raw(file(c.points));
        const redux::LoadResult r = redux::load_calibration(path_, "8-aa", kNow, kDay);
        EXPECT_EQ(r.status, redux::LoadStatus::corrupt) << r.reason;
        std::string error;
        EXPECT_FALSE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
        EXPECT_EQ(read_raw(), file(c.points));
    }
    // The same file with good points is libredux's.
    write_raw(file("[[8, 1e-6], [32768, 3e-6]]"));
    const redux::LoadResult good = redux::load_calibration(path_, "8-aa", kNow, kDay);
    ASSERT_EQ(good.status, redux::LoadStatus::found) << good.reason;
    EXPECT_NEAR(good.links[0].at(16388), 2e-6, 1e-18);
    EXPECT_EQ(good.links[0].alpha_s, 1e-6);
    EXPECT_NEAR(good.links[0].beta_s_per_byte, 2e-6 / 32760, 1e-20) << "the points', not the file's 0";
}

// The time in flight and the call's own cost of each link are stored and read back exactly; a file without them
// (written before they were measured) reads as 0 (the one-port model, predictions without a call's cost); a
// negative or textual one makes the file corrupt.
TEST_F(CalibrationFile, TheTimeInFlightAndTheCallCostAreReadBackAndOptional) {
    std::string error;
    redux::CalibrationEntry e = entry("8-aa", kNow, 5e-7);
    e.links[0].flight_s = 3.25e-7;
    e.links[2].flight_s = 2.0625e-3;
    e.links[0].call_s = 4.375e-7;
    e.links[2].call_s = 1.5e-5;
    e.links[2].flight_points = {{8192, 2.125e-3}};
    ASSERT_TRUE(redux::store_calibration(path_, e, error)) << error;
    const redux::LoadResult a = redux::load_calibration(path_, "8-aa", kNow + 10, kDay);
    ASSERT_EQ(a.status, redux::LoadStatus::found) << a.reason;
    EXPECT_EQ(a.links[0].flight_s, 3.25e-7);
    EXPECT_EQ(a.links[2].flight_s, 2.0625e-3);
    EXPECT_EQ(a.links[0].call_s, 4.375e-7);
    EXPECT_EQ(a.links[2].call_s, 1.5e-5);
    ASSERT_EQ(a.links[2].flight_points.size(), 1u);
    EXPECT_EQ(a.links[2].flight_points[0].bytes, 8192u);
    EXPECT_EQ(a.links[2].flight_points[0].one_way_s, 2.125e-3);
    EXPECT_TRUE(a.links[0].flight_points.empty());

    const auto file = [](const std::string& flight) {
        return R"({"format": "libredux-calibration", "version": 2, "entries": [{"signature": "8-aa", )"
               R"("created_unix": 1800000000, "links": {"same_package": {"alpha_s": 1e-6, "beta_s_per_byte": 0, )"
               R"("points": [[8, 1e-6], [32768, 3e-6]])" +
               flight + "}}}]}";
    };
    write_raw(file(""));
    const redux::LoadResult without = redux::load_calibration(path_, "8-aa", kNow, kDay);
    ASSERT_EQ(without.status, redux::LoadStatus::found) << without.reason;
    EXPECT_EQ(without.links[0].flight_s, 0.0);
    EXPECT_EQ(without.links[0].call_s, 0.0);
    EXPECT_TRUE(without.links[0].flight_points.empty());
    for (const char* bad :
         {R"(, "flight_s": -1e-6)", R"(, "flight_s": "1e-6")", R"(, "call_s": -1e-6)", R"(, "call_s": "1e-6")",
          R"(, "flight_points": [[8192, -1e-6]])", R"(, "flight_points": [[8192, 1e-6], [4096, 1e-6]])",
          R"(, "flight_points": 1e-6)", R"(, "flight_points": [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0]])"}) {
        SCOPED_TRACE(bad);
        write_raw(file(bad));
        EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::corrupt);
    }
}

// A missing file, and libredux's own with a stale entry or none for the layout, are written; other entries stay.
TEST_F(CalibrationFile, StoreRewritesLibreduxsOwnFiles) {
    std::string error;
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow - 30 * kDay, 5e-7), error)) << error;  // missing
    ASSERT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::stale);
    ASSERT_TRUE(redux::store_calibration(path_, entry("8-aa", kNow, 6e-7), error)) << error;
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).links[0].alpha_s, 6e-7);
    ASSERT_EQ(redux::load_calibration(path_, "4-bb", kNow, kDay).status, redux::LoadStatus::no_entry);
    ASSERT_TRUE(redux::store_calibration(path_, entry("4-bb", kNow, 7e-7), error)) << error;
    EXPECT_EQ(redux::load_calibration(path_, "4-bb", kNow, kDay).status, redux::LoadStatus::found);
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::found);
    expect_no_temporary_files();
}

// REDUX_CALIBRATION_FILE pointing at a file of the user's: the store is refused, the file keeps every byte, and
// the error names the configured path and why. (Before: "not valid JSON ... measuring the links", then the file
// was replaced by calibration JSON.)
TEST_F(CalibrationFile, StoreNeverReplacesAFileThatIsNotLibreduxs) {
    static const char kElf[] =
        "\x7f"
        "ELF\x02\x01\x01\0\0\0\xff\xfe";
    const struct {
        const char* what;
        const char* name;
        std::string text;
        const char* why;  // in the error
    } cases[] = {
        {"a C source", "victim.c",
         "#include <stdio.h>\n\nint main(void) {\n    printf(\"hello\\n\");\n    return 0;\n}\n", "not valid JSON"},
        {"another program's JSON", "settings.json",
         "{\n  \"editor.tabSize\": 4,\n  \"files.exclude\": {\"**/.git\": true}\n}\n",
         "not a libredux calibration file"},
        {"an empty file", "empty.json", "", "not valid JSON"},
        {"binary data", "data.bin", std::string(kElf, sizeof kElf - 1), "not valid JSON"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const std::string path = dir_ + "/" + c.name;
        std::ofstream(path, std::ios::binary) << c.text;
        std::string error;
        EXPECT_FALSE(redux::store_calibration(path, entry("8-aa", kNow, 5e-7), error));
        EXPECT_EQ(read_file(path), c.text) << "the file was changed";
        EXPECT_TRUE(names(error, path)) << "the error does not name the configured path: " << error;
        EXPECT_NE(error.find(c.why), std::string::npos) << "the error does not say why: " << error;
    }
    expect_no_temporary_files();
}

TEST_F(CalibrationFile, StoreNeverReplacesADirectory) {
    ASSERT_EQ(mkdir(path_.c_str(), 0755), 0);
    std::ofstream(path_ + "/inside.txt") << "kept";
    std::string error;
    EXPECT_FALSE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    struct stat st {};
    ASSERT_EQ(stat(path_.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << "the directory was replaced";
    EXPECT_EQ(read_file(path_ + "/inside.txt"), "kept");
    EXPECT_TRUE(names(error, path_)) << error;
    EXPECT_NE(error.find("directory"), std::string::npos) << error;
    expect_no_temporary_files();
}

// A FIFO (or a device, e.g. /dev/null) is not read, which would block or read nothing, and not replaced.
TEST_F(CalibrationFile, StoreNeverReplacesASpecialFile) {
    ASSERT_EQ(mkfifo(path_.c_str(), 0644), 0);
    EXPECT_EQ(redux::load_calibration(path_, "8-aa", kNow, kDay).status, redux::LoadStatus::unreadable);
    std::string error;
    EXPECT_FALSE(redux::store_calibration(path_, entry("8-aa", kNow, 5e-7), error));
    struct stat st {};
    ASSERT_EQ(lstat(path_.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
    EXPECT_TRUE(names(error, path_)) << error;
    expect_no_temporary_files();
}

// Write errors name the configured path (not only the temporary file) and the OS's reason.
TEST_F(CalibrationFile, WriteErrorsNameThePathAndTheReason) {
    const std::string victim = dir_ + "/victim.c";
    const std::string source = "int main(void) { return 0; }\n";
    std::ofstream(victim, std::ios::binary) << source;
    const struct {
        const char* what;
        std::string path;
        int errno_value;
    } cases[] = {
        {"in /proc", "/proc/redux-calibration-test.json", ENOENT},
        {"in a directory that does not exist", dir_ + "/no/such/dir/calibration.json", ENOENT},
        {"under a file", victim + "/calibration.json", ENOTDIR},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        std::string error;
        EXPECT_FALSE(redux::store_calibration(c.path, entry("8-aa", kNow, 5e-7), error));
        EXPECT_TRUE(names(error, c.path)) << "the error does not name the configured path: " << error;
        EXPECT_NE(error.find(std::strerror(c.errno_value)), std::string::npos)
            << "the error does not give the OS's reason (" << std::strerror(c.errno_value) << "): " << error;
    }
    EXPECT_EQ(read_file(victim), source);
    expect_no_temporary_files();
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
                                              error) &&
                     ok;
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
        found +=
            redux::load_calibration(path_, std::to_string(w) + "-" + std::to_string(kRounds - 1), kNow, kDay).status ==
            redux::LoadStatus::found;
    }
    EXPECT_GE(found, 1);
    expect_no_temporary_files();
}

}  // namespace
