// The heterogeneous cost model: a compute cost per rank and a transfer cost per ordered pair of ranks.
//
// compute_s(i)     (c_i, Benoit, Canon & Marchal, RR-8315, Section 3.1): one application of the operator on i.
// transfer_s(i, j) (d_ij): time for rank i to send one element -- the whole vector -- to rank j.
// flight_s(i, j)   (L_ij, at most d_ij): the part of d_ij during which j's port is free, the message's time in
//                  flight (costs.hpp); 0 unless given (the one-port model: a message holds the port for all of d).
// Liu & Wang's per-node transmission time t(p_i) is the special case d_ij = t_i for every j (sender_only()),
// with c_i = 0. The homogeneous model of Canon & Antoniu (costs.hpp) is d_ij = d, c_i = c (uniform()).
//
// How the time of one rank is shared between transfers and folds is the TransferModel's business:
//   overlap    (Canon & Antoniu, Benoit et al.): one-port, and a rank may receive its next element while it
//              folds the current one;
//   no_overlap (Liu & Wang): a rank takes part in one transfer at a time and folds only between transfers, so
//              the receiver of i -> j is busy for d_ij + c_j (with c = 0 this is exactly Liu & Wang's model).
//
// Value types only: no MPI, no measurement.
#pragma once

#include "model/costs.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redux {

enum class TransferModel { overlap, no_overlap };

std::string_view transfer_model_name(TransferModel model);
std::optional<TransferModel> parse_transfer_model(std::string_view name);

class HeteroCosts {
public:
    HeteroCosts() = default;
    // compute_s: one entry per rank; transfer_s: n * n entries, row-major (transfer_s[i * n + j] = d_ij; the
    // diagonal is never used). Throws std::invalid_argument on mismatched sizes.
    // flight_s: empty (every L_ij = 0) or n * n entries like transfer_s.
    HeteroCosts(std::vector<double> compute_s, std::vector<double> transfer_s, std::vector<double> flight_s = {});

    // d_ij = costs.transfer_s, c_i = costs.compute_s for every rank.
    static HeteroCosts uniform(int32_t n, const Costs& costs);
    // Liu & Wang: rank i sends to anyone in send_s[i]; c_i = compute_s.
    static HeteroCosts sender_only(const std::vector<double>& send_s, double compute_s = 0.0);
    // Ranks grouped in classes (nodes, sockets): d_ij = class_transfer_s[class_of[i]][class_of[j]].
    static HeteroCosts from_classes(const std::vector<double>& compute_s, const std::vector<int32_t>& class_of,
                                    const std::vector<std::vector<double>>& class_transfer_s);

    int32_t size() const { return static_cast<int32_t>(compute_s_.size()); }
    double compute_s(int32_t rank) const { return compute_s_[static_cast<size_t>(rank)]; }
    double transfer_s(int32_t from, int32_t to) const {
        return transfer_s_[static_cast<size_t>(from) * compute_s_.size() + static_cast<size_t>(to)];
    }
    double flight_s(int32_t from, int32_t to) const {
        return flight_s_.empty() ? 0.0
                                 : flight_s_[static_cast<size_t>(from) * compute_s_.size() + static_cast<size_t>(to)];
    }
    bool has_flight() const { return !flight_s_.empty(); }

    // Over ordered pairs i != j (0 for one rank): the extremes and the mean of d_ij; over ranks: those of c_i.
    double min_transfer_s() const;
    double max_transfer_s() const;
    double mean_transfer_s() const;
    double min_compute_s() const;
    double max_compute_s() const;
    double mean_compute_s() const;
    // Mean over j != i of d_ij: rank i's transmission time in Liu & Wang's sense when d depends on the sender only.
    double mean_send_s(int32_t rank) const;

    // The homogeneous costs (mean d, mean c) that the homogeneous strategies plan with under these costs.
    Costs mean_costs() const { return {mean_transfer_s(), mean_compute_s()}; }

    // Empty when every cost is a finite number >= 0 (and every L_ij at most d_ij), otherwise a message naming the first
    // bad entry.
    std::string validate() const;

private:
    std::vector<double> compute_s_;
    std::vector<double> transfer_s_;
    std::vector<double> flight_s_;
};

}  // namespace redux
