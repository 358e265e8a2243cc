// The costs a key is planned with, and what plan selection is told about the call.
//
// d, c: the call's own (redux_options) first, then REDUX_D / REDUX_C, then measurement. d comes from the link
// calibration of the communicator (calib/link_calibration.cpp, once per communicator): the flat tree is
// planned with the slowest link class the communicator has, at the call's message size. c is the op timed by
// rank 0 on its data and rank 1's (calib/compute_cost.cpp: c = a + b count, a paid by every application) and
// broadcast, so all plan with the same numbers. Not the maximum over ranks: on oversubscribed or shared nodes
// that is the noisiest measurement.
//
// Which tree, in how many segments: plan/select.cpp decides, from the costs and the ranks' placement gathered
// here (selection_input). The segment count is forced by redux_options.segment_bytes or REDUX_SEGMENT_BYTES;
// otherwise the model chooses it when d is calibrated (it then knows the latency part of d, alpha of the slowest
// class); with a d given by the call or the environment, one number with no latency part, the vector is not
// segmented.
#include "api/planning_costs.hpp"

#include "calib/compute_cost.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/tags.hpp"
#include "mpi/yielding.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace redux {
namespace {

// d for `bytes`: the slowest link class of the communicator.
// The fit of the link class with the largest d at `bytes` (the homogeneous trees plan with the slowest class).
const LinkFit& slowest_fit(const CommState& state, size_t bytes) {
    int slowest = -1;
    for (int c = 0; c < kLinkClasses; ++c) {
        if (!state.topology.present[c]) continue;
        if (slowest < 0 || state.links.fits[c].at(bytes) > state.links.fits[slowest].at(bytes)) slowest = c;
    }
    static const LinkFit none{};
    return slowest < 0 ? none : state.links.fits[slowest];
}

double transfer_for(const CommState& state, size_t bytes) { return std::max(slowest_fit(state, bytes).at(bytes), 0.0); }

// c, measured by rank 0 on its data and rank 1's (calib/compute_cost.cpp: the op sees what a reduction folding
// ranks 0 and 1 passes it) and broadcast with the error class it met, so that every rank plans with the same
// numbers or fails alike. Rank 1 sends the first compute_sample_count() elements of its data, packed. A datatype
// that is not committed must fail like the transfers would, on libredux's communicator (errors returned), not in
// MPI_Reduce_local, which reports on MPI_COMM_WORLD (fatal by default): packing one element checks it there. Data
// at MPI_BOTTOM (absolute addresses) is not copied (MPICH 4.0's MPI_Pack rejects it): c is taken as 0 then, as on
// one rank, where no reduction applies the op.
int measure_on_first_pair(const CommState& state, const void* own_data, int count, MPI_Datatype datatype, MPI_Op op,
                          const ElementLayout& layout, OpCost& cost) {
    double message[3] = {0, 0, MPI_SUCCESS};  // call_s, element_s, error class
    if (state.size > 1 && state.rank <= 1 && count > 0) {
        const int sample = compute_sample_count(count, layout);
        int packed_bytes = 0, rc = MPI_Pack_size(sample, datatype, state.comm, &packed_bytes);
        // Rank 1's message: the bytes it packed (0: none, its data is at MPI_BOTTOM), then they.
        std::vector<char> packed(sizeof(int) + static_cast<size_t>(std::max(packed_bytes, 0)));
        int position = 0;
        if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM && state.rank == 0) {  // checks the datatype (above)
            rc = MPI_Pack(own_data, 1, datatype, packed.data() + sizeof(int), packed_bytes, &position, state.comm);
        }
        // Rank 1 always sends and rank 0 always receives (a message of the same size on both: packed_bytes is the
        // datatype's), so that a failure on either side cannot leave the other waiting.
        if (state.rank == 1) {
            position = 0;
            if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM) {
                rc = MPI_Pack(own_data, sample, datatype, packed.data() + sizeof(int), packed_bytes, &position,
                              state.comm);
            }
            const int sent = rc == MPI_SUCCESS ? position : 0;
            std::memcpy(packed.data(), &sent, sizeof(int));
            REDUX_MPI(send_yielding(packed.data(), static_cast<int>(packed.size()), MPI_PACKED, 0, tags::kOpSample,
                                    state.comm));
        } else {
            REDUX_MPI(recv_yielding(packed.data(), static_cast<int>(packed.size()), MPI_PACKED, 1, tags::kOpSample,
                                    state.comm));
            int received = 0;
            std::memcpy(&received, packed.data(), sizeof(int));
            if (rc == MPI_SUCCESS && own_data != MPI_BOTTOM && received > 0) {
                ElementBuffer theirs(layout, sample);
                position = 0;
                rc = MPI_Unpack(packed.data() + sizeof(int), received, &position, theirs.data(), sample, datatype,
                                state.comm);
                if (rc == MPI_SUCCESS)
                    rc = measure_compute(own_data, theirs.data(), sample, datatype, op, layout, cost);
            }
        }
        if (state.rank == 0) {
            int error_class = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
            message[0] = cost.call_s;
            message[1] = cost.element_s;
            message[2] = error_class;
        }
    }
    REDUX_MPI(bcast_yielding(message, 3, MPI_DOUBLE, 0, state.comm));
    cost = {message[0], message[1]};
    return static_cast<int>(message[2]);
}

}  // namespace

int whole_count(const CommState& state, const PlanKey& key) {
    return key.collective == Collective::reduce_scatter_block ? key.count * state.size : key.count;
}

int make_costs(CommState& state, const PlanKey& key, const void* own_data, MPI_Datatype datatype, MPI_Op op,
               const ElementLayout& layout, const WisdomEntry* known, Costs& costs, PlanReport& report) {
    const Config& cfg = state.config;
    const size_t bytes = static_cast<size_t>(key.type_size) * static_cast<size_t>(whole_count(state, key));
    if (key.transfer_s >= 0) {
        costs.transfer_s = key.transfer_s;
        report.costs_source = "call";
    } else if (cfg.transfer_s) {
        costs.transfer_s = *cfg.transfer_s;
        report.costs_source = "environment";
    } else {
        if (!state.links_known) {
            REDUX_MPI(gather_topology_once(state));
            REDUX_MPI(calibrate_links(state.comm, state.topology, {calibration_path(cfg), cfg.calibration_max_age_s},
                                      state.links));
            state.links_known = true;
            report.calibration_s += state.links.seconds;
        }
        costs.transfer_s = transfer_for(state, bytes);
        const LinkFit& slowest = slowest_fit(state, bytes);
        costs.flight_s = std::min(slowest.flight_at(bytes), costs.transfer_s);
        costs.call_s = std::max(slowest.call_s, 0.0);
        report.costs_source = state.links.source;
        report.node_pairs_source = state.links.pairs_source;
    }
    if (key.compute_s >= 0) {
        costs.compute_s = key.compute_s;
    } else if (cfg.compute_s) {
        costs.compute_s = *cfg.compute_s;
    } else if (known != nullptr && known->compute_s >= 0) {  // the op's cost an earlier job's plans stood on
        costs.compute_s = known->compute_s;
        costs.compute_call_s = known->compute_call_s;
    } else {
        const double start = MPI_Wtime();
        OpCost op_cost;
        const int count = whole_count(state, key);
        // A predefined op on a predefined datatype: its c from an earlier key where that one measured as many elements
        // as this one would (the same on every rank: the handles and the layout are everywhere the same).
        const bool predefined = key.datatype != MPI_DATATYPE_NULL && key.op != MPI_OP_NULL;
        const int sample = compute_sample_count(count, layout);
        const auto known = predefined ? state.measured_ops.find({key.datatype, key.op}) : state.measured_ops.end();
        if (known != state.measured_ops.end() && known->second.sample >= sample) {
            op_cost = known->second.cost;
        } else {
            REDUX_MPI(measure_on_first_pair(state, own_data, count, datatype, op, layout, op_cost));
            if (predefined) state.measured_ops[{key.datatype, key.op}] = {op_cost, sample};
        }
        costs.compute_s = op_cost.at(count);
        costs.compute_call_s = op_cost.call_s;
        report.calibration_s += MPI_Wtime() - start;
    }
    return MPI_SUCCESS;
}

// The segment size asked for: the call's, else REDUX_SEGMENT_BYTES (-1: as the model says, 0: unsegmented).
long long segment_bytes_for(const CommState& state, const PlanKey& key) {
    return key.segment_bytes >= 0 ? key.segment_bytes : state.config.segment_bytes;
}

// What plan selection needs to know about the call: placement and per-class d only when d is the library's
// own calibration (a d given by the call or the environment is one number for every link).
SelectionInput selection_input(const CommState& state, const PlanKey& key, const Costs& costs) {
    SelectionInput input;
    input.ranks = state.size;
    input.root = key.root;
    input.commutative = key.commutative;
    input.costs = costs;
    input.requested = strategy_of(key.algorithm);
    input.limit = key.limit;
    input.elements = std::max(key.count, 1);
    input.recv_window = state.config.knobs.recv_window;
    const long long bytes = static_cast<long long>(key.type_size) * key.count;
    const bool calibrated = state.links_known && key.transfer_s < 0 && !state.config.transfer_s;
    if (calibrated) {
        input.place = state.topology.place;
        for (int c = 0; c < kLinkClasses; ++c) {
            input.class_transfer_s[c] = state.links.fits[c].at(static_cast<size_t>(bytes));
            input.class_flight_s[c] = state.links.fits[c].flight_at(static_cast<size_t>(bytes));
        }
        input.node_pairs = node_pair_costs(state.links.pairs, state.links.fits[static_cast<int>(LinkClass::other_node)],
                                           static_cast<size_t>(bytes));
        const LinkFit& curve = slowest_fit(state, static_cast<size_t>(bytes));
        input.latency_s = std::min(std::max(curve.alpha_s, 0.0), costs.transfer_s);
        // Under SMPI no message moves before its receive is posted, and a segmented stream posts one receive in
        // flight at a time: every segment pays its latency, so segments see no flight there.
        input.segment_flight = !kSimulatedRanks && state.topology.present[static_cast<int>(LinkClass::other_node)];
        if (curve.measured) {  // segments cost what the calibrated curve says at their size
            input.segment_curve = std::make_shared<const LinkFit>(curve);
            input.element_bytes = key.type_size;
        }
    }
    const long long segment_bytes = segment_bytes_for(state, key);
    if (segment_bytes > 0) {
        input.segments = static_cast<int32_t>(std::clamp((std::max(bytes, 1LL) + segment_bytes - 1) / segment_bytes,
                                                         1LL, static_cast<long long>(input.elements)));
    } else if (segment_bytes < 0 && calibrated) {  // the model's count, when it knows the latency part of d
        input.segments = 0;
    }
    return input;
}

}  // namespace redux
