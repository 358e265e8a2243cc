// parse_config (libredux/src/exec/config.hpp): every variable's valid values are taken, and an invalid value
// gives one message naming the variable and the value, and makes every reduce native. No MPI is started:
// parse_config is a pure function of the lookup it is given.
#include "exec/config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

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
    EXPECT_EQ(cfg.algorithm, redux::Algorithm::automatic);
    EXPECT_FALSE(cfg.transfer_s.has_value());
    EXPECT_FALSE(cfg.compute_s.has_value());
    EXPECT_FALSE(cfg.verbose);
    EXPECT_EQ(cfg.knobs.recv_window, redux::ExecKnobs{}.recv_window);
    EXPECT_EQ(cfg.knobs.chunk_bytes, redux::ExecKnobs{}.chunk_bytes);
    EXPECT_EQ(cfg.problem, "");
}

TEST(Config, EmptyValuesAreUnset) {
    const redux::Config cfg = parse({{"REDUX_ALGORITHM", ""}, {"REDUX_D", ""}, {"REDUX_VERBOSE", ""}});
    EXPECT_EQ(cfg.algorithm, redux::Algorithm::automatic);
    EXPECT_FALSE(cfg.transfer_s.has_value());
    EXPECT_EQ(cfg.problem, "");
}

TEST(Config, ValidValuesAreTaken) {
    const std::pair<const char*, redux::Algorithm> algorithms[] = {
        {"auto", redux::Algorithm::automatic},     {"optimal", redux::Algorithm::optimal},
        {"fibonacci", redux::Algorithm::fibonacci}, {"binomial", redux::Algorithm::binomial},
        {"native", redux::Algorithm::native},
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
}

TEST(Config, InvalidValuesNameTheVariableAndFallBackToNative) {
    const std::pair<const char*, const char*> bad[] = {
        {"REDUX_ALGORITHM", "fastest"}, {"REDUX_ALGORITHM", "Optimal"}, {"REDUX_D", "-1"},
        {"REDUX_D", "1ms"},             {"REDUX_C", "nan"},             {"REDUX_C", "inf"},
        {"REDUX_VERBOSE", "yes"},       {"REDUX_RECV_WINDOW", "0"},     {"REDUX_RECV_WINDOW", "65"},
        {"REDUX_CHUNK_BYTES", "-8"},    {"REDUX_CHUNK_BYTES", "8k"},    {"REDUX_CHUNK_BYTES", "99999999999999999999"},
    };
    for (const auto& [name, value] : bad) {
        SCOPED_TRACE(std::string(name) + "=" + value);
        std::map<std::string, std::string> env{{"REDUX_ALGORITHM", "optimal"}};
        env[name] = value;
        const redux::Config cfg = parse(env);
        EXPECT_NE(cfg.problem.find(std::string(name) + "=" + value), std::string::npos) << cfg.problem;
        EXPECT_EQ(cfg.algorithm, redux::Algorithm::native);
    }
}

TEST(Config, OnlyTheFirstProblemIsReported) {
    const redux::Config cfg = parse({{"REDUX_ALGORITHM", "x"}, {"REDUX_D", "y"}});
    EXPECT_NE(cfg.problem.find("REDUX_ALGORITHM=x"), std::string::npos);
    EXPECT_EQ(cfg.problem.find("REDUX_D"), std::string::npos) << "one message, not a list: " << cfg.problem;
}

}  // namespace
