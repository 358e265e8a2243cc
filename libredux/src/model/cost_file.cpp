// The JSON cost file (format in cost_file.hpp), read with nlohmann-json and checked entry by entry so that the
// message says which entry is wrong.
#include "model/cost_file.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace redux {
namespace {

using nlohmann::json;

double seconds(const json& value, const std::string& where) {
    if (!value.is_number()) throw CostFileError(where + " must be a number of seconds");
    const double s = value.get<double>();
    if (!std::isfinite(s) || s < 0) throw CostFileError(where + " must be a finite number of seconds >= 0");
    return s;
}

std::vector<double> seconds_array(const json& value, const std::string& where) {
    if (!value.is_array()) throw CostFileError(where + " must be an array of numbers");
    std::vector<double> out;
    for (size_t i = 0; i < value.size(); ++i) out.push_back(seconds(value[i], where + "[" + std::to_string(i) + "]"));
    return out;
}

std::vector<std::vector<double>> square_matrix(const json& value, const std::string& where) {
    if (!value.is_array()) throw CostFileError(where + " must be an array of rows");
    std::vector<std::vector<double>> rows;
    for (size_t i = 0; i < value.size(); ++i) {
        rows.push_back(seconds_array(value[i], where + "[" + std::to_string(i) + "]"));
        if (rows.back().size() != value.size()) {
            throw CostFileError(where + " must be square: row " + std::to_string(i) + " has " +
                                std::to_string(rows.back().size()) + " entries for " + std::to_string(value.size()) +
                                " rows");
        }
    }
    return rows;
}

// Records the number of ranks one field implies, checking it against the others.
void agree(std::optional<size_t>& ranks, size_t implied, const std::string& field) {
    if (ranks && *ranks != implied) {
        throw CostFileError(field + " gives " + std::to_string(implied) + " ranks where another field gives " +
                            std::to_string(*ranks));
    }
    ranks = implied;
}

HeteroCosts from_json(const json& doc) {
    if (!doc.is_object()) throw CostFileError("the cost file must hold one JSON object");
    for (const auto& item : doc.items()) {
        const std::string& key = item.key();
        if (key != "c" && key != "d" && key != "class_of" && key != "d_class") {
            throw CostFileError("unknown field \"" + key + "\" (expected c, d, class_of, d_class)");
        }
    }
    if (!doc.contains("c")) throw CostFileError("field \"c\" (compute cost per rank) is missing");
    const bool by_class = doc.contains("class_of") || doc.contains("d_class");
    if (by_class && doc.contains("d"))
        throw CostFileError("give either \"d\" or \"class_of\" with \"d_class\", not both");
    if (!by_class && !doc.contains("d"))
        throw CostFileError("field \"d\" (or \"class_of\" with \"d_class\") is missing");
    if (by_class && !(doc.contains("class_of") && doc.contains("d_class"))) {
        throw CostFileError("\"class_of\" and \"d_class\" go together");
    }

    std::optional<size_t> ranks;
    std::vector<std::vector<double>> d_matrix;
    std::vector<int32_t> class_of;
    std::vector<std::vector<double>> class_d;
    if (by_class) {
        const json& classes = doc["class_of"];
        if (!classes.is_array()) throw CostFileError("\"class_of\" must be an array of class indices");
        class_d = square_matrix(doc["d_class"], "d_class");
        for (size_t i = 0; i < classes.size(); ++i) {
            const json& k = classes[i];
            if (!k.is_number_integer() || k.get<int64_t>() < 0 ||
                k.get<int64_t>() >= static_cast<int64_t>(class_d.size())) {
                throw CostFileError("class_of[" + std::to_string(i) + "] must be an integer in [0, " +
                                    std::to_string(class_d.size()) + ")");
            }
            class_of.push_back(static_cast<int32_t>(k.get<int64_t>()));
        }
        agree(ranks, class_of.size(), "class_of");
    } else if (doc["d"].is_array()) {
        d_matrix = square_matrix(doc["d"], "d");
        agree(ranks, d_matrix.size(), "d");
    }
    std::vector<double> c;
    if (doc["c"].is_array()) {
        c = seconds_array(doc["c"], "c");
        agree(ranks, c.size(), "c");
    }
    if (!ranks) throw CostFileError("the number of ranks is not given: make \"c\" or \"d\" an array");
    if (*ranks < 1) throw CostFileError("the cost file has no ranks");
    const size_t n = *ranks;
    if (c.empty()) c.assign(n, seconds(doc["c"], "c"));

    if (by_class) return HeteroCosts::from_classes(c, class_of, class_d);
    std::vector<double> d(n * n, 0.0);
    const bool uniform_d = !doc["d"].is_array();
    const double d_all = uniform_d ? seconds(doc["d"], "d") : 0.0;
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) d[i * n + j] = uniform_d ? d_all : d_matrix[i][j];
    }
    return {std::move(c), std::move(d)};
}

json parse(std::string_view text) {
    try {
        return json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw CostFileError(std::string("not valid JSON: ") + e.what());
    }
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw CostFileError("cannot open " + path);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw CostFileError("cannot read " + path);
    return text.str();
}

}  // namespace

HeteroCosts parse_cost_json(std::string_view text) { return from_json(parse(text)); }

HeteroCosts read_cost_file(const std::string& path) { return parse_cost_json(read_text(path)); }

std::vector<int32_t> read_cost_file_classes(const std::string& path) {
    const json doc = parse(read_text(path));
    std::vector<int32_t> class_of;
    if (doc.is_object() && doc.contains("class_of")) {
        for (const json& k : doc["class_of"]) class_of.push_back(static_cast<int32_t>(k.get<int64_t>()));
    }
    return class_of;
}

}  // namespace redux
