// parse_config (libredux/src/policy/config.hpp): every variable's valid values are taken, and an invalid value
// gives one message naming the variable and the value, and makes every reduce native. No MPI is started:
// parse_config is a pure function of the lookup it is given.
#include "policy/config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::map<std::string, std::string> g_env;

const char* lookup(const char* name) {
    const auto it = g_env.find(name);
    return it == g_env.end() ? nullptr : it->second.c_str();
}

redux::Config parse(std::map<std::string, std::string> env) {
    g_env = std::move(env);
    return redux::parse_config(lookup);
}

TEST(Config, NothingSetGivesTheDefaults) {
    const redux::Config cfg = parse({});
    EXPECT_EQ(cfg.algorithm, REDUX_ALGORITHM_AUTO);
    EXPECT_FALSE(cfg.transfer_s.has_value());
    EXPECT_FALSE(cfg.compute_s.has_value());
    EXPECT_FALSE(cfg.verbose);
    EXPECT_EQ(cfg.knobs.recv_window, redux::ExecKnobs{}.recv_window);
    EXPECT_EQ(cfg.knobs.chunk_bytes, redux::ExecKnobs{}.chunk_bytes);
    EXPECT_EQ(cfg.problem, "");
}

// The wisdom file where REDUX_WISDOM is unset: in $XDG_CACHE_HOME, else in $HOME/.cache (absolute paths only),
// else none; REDUX_WISDOM names another or, `off`, none, and an empty value is unset.
TEST(Config, WisdomIsKeptInTheUsersCacheByDefault) {
    redux::Config cfg = parse({{"HOME", "/home/u"}});
    EXPECT_EQ(cfg.wisdom_path, "/home/u/.cache/libredux/wisdom.json");
    EXPECT_TRUE(cfg.wisdom);
    EXPECT_EQ(redux::calibration_path(cfg), "/home/u/.cache/libredux/wisdom.json.links");
    cfg = parse({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/scratch/c"}});
    EXPECT_EQ(cfg.wisdom_path, "/scratch/c/libredux/wisdom.json");
    cfg = parse({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "relative"}});
    EXPECT_EQ(cfg.wisdom_path, "/home/u/.cache/libredux/wisdom.json") << "a relative XDG_CACHE_HOME is ignored";
    cfg = parse({{"HOME", ""}});
    EXPECT_EQ(cfg.wisdom_path, "");
    EXPECT_FALSE(cfg.wisdom);
    EXPECT_EQ(redux::calibration_path(cfg), "");
    cfg = parse({{"HOME", "/home/u"}, {"REDUX_WISDOM", "off"}});
    EXPECT_EQ(cfg.wisdom_path, "");
    EXPECT_FALSE(cfg.wisdom);
    EXPECT_EQ(redux::calibration_path(cfg), "");
    cfg = parse({{"HOME", "/home/u"}, {"REDUX_WISDOM", "/w.json"}});
    EXPECT_EQ(cfg.wisdom_path, "/w.json");
    EXPECT_EQ(redux::calibration_path(cfg), "/w.json.links");
    cfg = parse({{"HOME", "/home/u"}, {"REDUX_WISDOM", ""}});
    EXPECT_EQ(cfg.wisdom_path, "/home/u/.cache/libredux/wisdom.json");
    const std::vector<redux::SettingState> shown = redux::describe_settings(lookup, cfg);
    for (const redux::SettingState& s : shown) {
        if (std::string(s.info->name) != "REDUX_WISDOM") continue;
        EXPECT_EQ(s.value, "/home/u/.cache/libredux/wisdom.json");
        EXPECT_EQ(s.default_value, s.value) << "the default file is the default";
    }
}

TEST(Config, EmptyValuesAreUnset) {
    const redux::Config cfg = parse({{"REDUX_ALGORITHM", ""}, {"REDUX_D", ""}, {"REDUX_VERBOSE", ""}});
    EXPECT_EQ(cfg.algorithm, REDUX_ALGORITHM_AUTO);
    EXPECT_FALSE(cfg.transfer_s.has_value());
    EXPECT_EQ(cfg.problem, "");
}

TEST(Config, ValidValuesAreTaken) {
    const std::pair<const char*, redux_algorithm> algorithms[] = {
        {"auto", REDUX_ALGORITHM_AUTO},
        {"optimal", REDUX_ALGORITHM_OPTIMAL},
        {"fibonacci", REDUX_ALGORITHM_FIBONACCI},
        {"binomial", REDUX_ALGORITHM_BINOMIAL},
        {"native", REDUX_ALGORITHM_NATIVE},
        {"snf", REDUX_ALGORITHM_SNF},
        {"hetero-greedy", REDUX_ALGORITHM_HETERO_GREEDY},
        {"hetero_greedy", REDUX_ALGORITHM_HETERO_GREEDY},
        {"two-level", REDUX_ALGORITHM_TWO_LEVEL},
    };
    for (const auto& [text, algorithm] : algorithms) {
        EXPECT_EQ(parse({{"REDUX_ALGORITHM", text}}).algorithm, algorithm) << text;
    }
    const redux::Config cfg = parse({{"REDUX_D", "2.5e-6"},
                                     {"REDUX_C", "0"},
                                     {"REDUX_VERBOSE", "1"},
                                     {"REDUX_RECV_WINDOW", "64"},
                                     {"REDUX_CHUNK_BYTES", "8"}});
    EXPECT_EQ(cfg.problem, "");
    EXPECT_EQ(cfg.transfer_s, 2.5e-6);
    EXPECT_EQ(cfg.compute_s, 0.0);
    EXPECT_TRUE(cfg.verbose);
    EXPECT_EQ(cfg.knobs.recv_window, 64);
    EXPECT_EQ(cfg.knobs.chunk_bytes, 8u);
    EXPECT_FALSE(parse({{"REDUX_VERBOSE", "0"}}).verbose);
    EXPECT_EQ(parse({}).segment_bytes, -1) << "default: the model's segment count";
    EXPECT_EQ(parse({{"REDUX_SEGMENT_BYTES", "auto"}}).segment_bytes, -1);
    EXPECT_EQ(parse({{"REDUX_SEGMENT_BYTES", "0"}}).segment_bytes, 0);
    EXPECT_EQ(parse({{"REDUX_SEGMENT_BYTES", "65536"}}).segment_bytes, 65536);
}

TEST(Config, InvalidValuesNameTheVariableAndFallBackToNative) {
    const std::pair<const char*, const char*> bad[] = {
        {"REDUX_ALGORITHM", "fastest"},
        {"REDUX_ALGORITHM", "Optimal"},
        {"REDUX_D", "-1"},
        // the limited strategies need a K, which only redux_options and redux-plan can give
        {"REDUX_ALGORITHM", "transfers-limited"},
        {"REDUX_ALGORITHM", "reducers-limited"},
        {"REDUX_D", "1ms"},
        {"REDUX_C", "nan"},
        {"REDUX_C", "inf"},
        {"REDUX_VERBOSE", "yes"},
        {"REDUX_RECV_WINDOW", "0"},
        {"REDUX_RECV_WINDOW", "65"},
        {"REDUX_CHUNK_BYTES", "-8"},
        {"REDUX_CHUNK_BYTES", "8k"},
        {"REDUX_CHUNK_BYTES", "99999999999999999999"},
        {"REDUX_SEGMENT_BYTES", "-1"},
        {"REDUX_SEGMENT_BYTES", "64k"},
        {"REDUX_SEGMENT_BYTES", "Auto"},
    };
    for (const auto& [name, value] : bad) {
        SCOPED_TRACE(std::string(name) + "=" + value);
        std::map<std::string, std::string> env{{"REDUX_ALGORITHM", "optimal"}};
        env[name] = value;
        const redux::Config cfg = parse(env);
        EXPECT_NE(cfg.problem.find(std::string(name) + "=" + value), std::string::npos) << cfg.problem;
        EXPECT_EQ(cfg.algorithm, REDUX_ALGORITHM_NATIVE);
    }
}

TEST(Config, OnlyTheFirstProblemIsReported) {
    const redux::Config cfg = parse({{"REDUX_ALGORITHM", "x"}, {"REDUX_D", "y"}});
    EXPECT_NE(cfg.problem.find("REDUX_ALGORITHM=x"), std::string::npos);
    EXPECT_EQ(cfg.problem.find("REDUX_D"), std::string::npos) << "one message, not a list: " << cfg.problem;
}

}  // namespace

namespace {

// The settings ranks must share: a config adopts rank 0's, and the bits name exactly the variables that differ.
TEST(SharedSettings, AdoptingRankZerosSettingsReportsWhatDiffered) {
    const redux::Config rank0 =
        parse({{"REDUX_ALGORITHM", "binomial"}, {"REDUX_D", "2e-6"}, {"REDUX_CHUNK_BYTES", "64"}});
    redux::Config mine =
        parse({{"REDUX_C", "1e-7"}, {"REDUX_DEBUG", "1"}, {"REDUX_VERBOSE", "1"}, {"REDUX_SEGMENT_BYTES", "4096"}});
    const uint32_t differing = redux::adopt_shared_settings(mine, redux::shared_settings(rank0));
    EXPECT_EQ(redux::shared_setting_names(differing),
              "REDUX_ALGORITHM, REDUX_D, REDUX_C, REDUX_CHUNK_BYTES, REDUX_DEBUG, REDUX_SEGMENT_BYTES");
    EXPECT_EQ(mine.segment_bytes, -1);
    EXPECT_EQ(mine.algorithm, REDUX_ALGORITHM_BINOMIAL);
    EXPECT_EQ(mine.transfer_s, 2e-6);
    EXPECT_FALSE(mine.compute_s.has_value());
    EXPECT_EQ(mine.knobs.chunk_bytes, 64u);
    EXPECT_EQ(mine.knobs.recv_window, rank0.knobs.recv_window);
    EXPECT_FALSE(mine.debug);
    EXPECT_TRUE(mine.verbose) << "rank 0 alone prints: verbosity is not shared";
    // Adopting the same settings again changes nothing.
    EXPECT_EQ(redux::adopt_shared_settings(mine, redux::shared_settings(rank0)), 0u);
    EXPECT_EQ(redux::shared_setting_names(0), "");
}

TEST(SharedSettings, AnInvalidValueIsSharedAsNative) {
    redux::Config mine = parse({});
    const uint32_t differing = redux::adopt_shared_settings(mine, redux::shared_settings(parse({{"REDUX_D", "x"}})));
    EXPECT_EQ(redux::shared_setting_names(differing), "REDUX_ALGORITHM");
    EXPECT_EQ(mine.algorithm, REDUX_ALGORITHM_NATIVE);
}

}  // namespace

namespace {

std::vector<std::string> g_asked;

const char* recording_lookup(const char* name) {
    g_asked.push_back(name);
    return lookup(name);
}

// The table is the one list of variables: parse_config asks for exactly its rows, in its order, and otherwise only
// for the folders of the default wisdom file.
TEST(SettingsTable, IsWhatParseConfigReads) {
    g_env.clear();
    g_asked.clear();
    redux::parse_config(recording_lookup);
    std::vector<std::string> redux_asked, others;
    for (const std::string& name : g_asked) (name.rfind("REDUX_", 0) == 0 ? redux_asked : others).push_back(name);
    EXPECT_EQ(std::set<std::string>(others.begin(), others.end()), (std::set<std::string>{"XDG_CACHE_HOME", "HOME"}));
    g_asked = redux_asked;
    std::vector<std::string> names;
    for (const redux::SettingInfo& setting : redux::settings_table()) {
        EXPECT_EQ(std::string(setting.name).rfind("REDUX_", 0), 0u) << setting.name;
        EXPECT_FALSE(setting.values.empty()) << setting.name;
        EXPECT_NE(std::string(setting.meaning), "") << setting.name;
        names.push_back(setting.name);
    }
    EXPECT_EQ(g_asked, names);
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a variable listed twice";
}

const redux::SettingState& state_of(const std::vector<redux::SettingState>& states, const char* name) {
    for (const redux::SettingState& s : states) {
        if (std::string(s.info->name) == name) return s;
    }
    throw std::runtime_error(std::string("no row for ") + name);
}

// describe_settings: where each value came from, what is in effect, and each invalid value's own problem.
TEST(SettingsTable, DescribesEveryVariable) {
    const redux::Config cfg =
        parse({{"REDUX_D", "2.5e-6"}, {"REDUX_C", ""}, {"REDUX_RECV_WINDOW", "0"}, {"REDUX_CHUNK_BYTES", "8k"}});
    const std::vector<redux::SettingState> states = redux::describe_settings(lookup, cfg);
    ASSERT_EQ(states.size(), redux::settings_table().size());

    const redux::SettingState& d = state_of(states, "REDUX_D");
    EXPECT_TRUE(d.from_environment);
    EXPECT_EQ(d.value, "2.5e-06");
    EXPECT_EQ(d.default_value, "measured");
    EXPECT_TRUE(d.differs_from_default());

    const redux::SettingState& c = state_of(states, "REDUX_C");  // empty: the default
    EXPECT_TRUE(c.set);
    EXPECT_FALSE(c.from_environment);
    EXPECT_EQ(c.value, c.default_value);
    EXPECT_FALSE(c.differs_from_default());

    // Both invalid values are shown with their own problem (parse_config reports the first only).
    const redux::SettingState& window = state_of(states, "REDUX_RECV_WINDOW");
    EXPECT_FALSE(window.from_environment);
    EXPECT_EQ(window.raw, "0");
    EXPECT_NE(window.problem.find("REDUX_RECV_WINDOW=0"), std::string::npos) << window.problem;
    EXPECT_EQ(window.value, "2");
    EXPECT_TRUE(window.differs_from_default());
    EXPECT_NE(state_of(states, "REDUX_CHUNK_BYTES").problem.find("REDUX_CHUNK_BYTES=8k"), std::string::npos);

    // The algorithm is native because of them, though it is not set: overridden names the reason.
    const redux::SettingState& algorithm = state_of(states, "REDUX_ALGORITHM");
    EXPECT_FALSE(algorithm.set);
    EXPECT_EQ(algorithm.value, "native");
    EXPECT_EQ(algorithm.default_value, "auto");
    EXPECT_EQ(algorithm.overridden, cfg.problem);
    EXPECT_EQ(state_of(states, "REDUX_VERBOSE").overridden, "");

    // Every value shown reads back as what parse_config took.
    const redux::Config valid = parse({{"REDUX_ALGORITHM", "hetero_greedy"}, {"REDUX_CALIBRATION_MAX_AGE", "60"}});
    const std::vector<redux::SettingState> shown = redux::describe_settings(lookup, valid);
    EXPECT_EQ(state_of(shown, "REDUX_ALGORITHM").value, "hetero-greedy");
    EXPECT_EQ(state_of(shown, "REDUX_CALIBRATION_MAX_AGE").value, "60");
    EXPECT_EQ(state_of(shown, "REDUX_REPORT").value, "");
}

}  // namespace
