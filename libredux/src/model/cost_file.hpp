// Reading heterogeneous costs (hetero_costs.hpp) from a JSON cost file, as `redux-plan --costs FILE` does.
//
// Two forms, all times in seconds:
//   per pair:        {"c": [c_0, ..., c_(n-1)], "d": [[d_00, d_01, ...], ..., [..., d_(n-1)(n-1)]]}
//                    d[i][j] is the time for rank i to send one element to rank j (the diagonal is not used).
//   per link class:  {"c": [...], "class_of": [k_0, ..., k_(n-1)], "d_class": [[D_00, D_01, ...], ...]}
//                    rank i belongs to class class_of[i] (a node, a socket); d_ij = d_class[class_of[i]][class_of[j]],
//                    so the diagonal of d_class is the cost inside a class and the rest the cost between classes.
// "c" may also be one number for every rank, and "d" one number for every pair. The number of ranks is the size
// of "d" (a matrix), of "class_of", or of "c" (an array); when several give it they must agree.
#pragma once

#include "model/hetero_costs.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace redux {

// What is wrong with a cost file: unreadable, not JSON, or not one of the forms above (the message says which).
class CostFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

HeteroCosts parse_cost_json(std::string_view text);
HeteroCosts read_cost_file(const std::string& path);
// The file's "class_of" (per-link-class form), read as the node of every rank (the two-level tree needs it);
// empty in the per-pair form. Call after read_cost_file has accepted the file.
std::vector<int32_t> read_cost_file_classes(const std::string& path);

}  // namespace redux
