// Small RAII helpers around GLPK for the steady-state solvers (steady_state.cpp, tree_packing.cpp). Included by
// .cpp files only: <glpk.h> is on redux_core's private include path.
#pragma once

#include <glpk.h>

#include <string>

namespace redux {

// GLPK's problem object, deleted on every path out.
class GlpkProblem {
public:
    GlpkProblem() : lp_(glp_create_prob()) {}
    ~GlpkProblem() { glp_delete_prob(lp_); }
    GlpkProblem(const GlpkProblem&) = delete;
    GlpkProblem& operator=(const GlpkProblem&) = delete;
    glp_prob* get() const { return lp_; }

private:
    glp_prob* lp_;
};

// GLPK's terminal output off for the lifetime of the object, then back as it was.
class QuietGlpk {
public:
    QuietGlpk() : previous_(glp_term_out(GLP_OFF)) {}
    ~QuietGlpk() { glp_term_out(previous_); }
    QuietGlpk(const QuietGlpk&) = delete;
    QuietGlpk& operator=(const QuietGlpk&) = delete;

private:
    int previous_;
};

// What a non-zero return code of glp_simplex means, in words.
inline std::string simplex_error(int rc) {
    switch (rc) {
        case GLP_ETMLIM:
            return "time limit reached";
        case GLP_EITLIM:
            return "iteration limit reached";
        case GLP_ENOPFS:
            return "no feasible flow";
        case GLP_ENODFS:
            return "unbounded throughput (some route costs nothing)";
        case GLP_EBADB:
            return "invalid basis";
        case GLP_ESING:
        case GLP_ECOND:
            return "singular or ill-conditioned basis";
        default:
            return "glp_simplex returned " + std::to_string(rc);
    }
}

// Simplex parameters: quiet, presolver as asked, at most time_limit_s.
inline glp_smcp simplex_parameters(bool presolve, double time_limit_s) {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = presolve ? GLP_ON : GLP_OFF;
    parm.tm_lim = static_cast<int>(time_limit_s * 1000.0 < 2e9 ? time_limit_s * 1000.0 : 2e9);
    return parm;
}

}  // namespace redux
