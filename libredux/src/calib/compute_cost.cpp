// Compute cost: MPI_Reduce_local of the user's op on two ranks' real data, timed on growing samples.
//
// The op sees only operands an MPI reduction would pass it: `in` is the first s elements of the lower rank's data
// and `inout` the higher rank's, as a reduction folding those two ranks does (in o inout, the rank order kept for
// a non-commutative op). Both are copied into scratch buffers first (an op may cost more on some values than
// others, and must not write the user's buffers); `inout` is refreshed before each run, so repeated products do
// not drift into infinities or denormals.
//
// s starts at 1 and doubles until one application takes kTarget_s, or s reaches the elements available (at most
// kMaxSampleBytes of them); when the first size already takes kTarget_s, the largest is timed too, so at least two
// sizes are always measured (one when only one element is available). Each size is timed kRuns times and the
// fastest run kept (noise only adds time: a rank sharing its core can wake from a sleeping op a scheduler's time
// slice late, and did so on two runs of three ranks on two cores), or twice where the two agree within kAgree and
// took kTarget_s (an op of milliseconds: the third run would cost as much as the two and tell nothing new; a
// late run does not agree with one on time, and one run alone was seen 2.8x its op's cost under MPICH on two
// cores). A least-squares line through
// (s, time) gives c(n) = call_s + element_s n, both parts at least 0: an op has a cost per application (a library's
// dispatch, a callback into another runtime, a sleeping op's wake-up) besides its cost per element, and a plan
// that cuts the vector into pieces pays the first part once per piece.
// Measuring costs at most about kRuns x 2 x kTarget_s plus 2 x kRuns slow applications (2 x 2 where they agree), once
// per key.
#include "calib/compute_cost.hpp"

#include "mpi/mpi_check.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace redux {
namespace {

constexpr size_t kMaxSampleBytes = 64 * 1024;
constexpr int kRuns = 3;
constexpr double kTarget_s = 1e-3;
constexpr double kAgree = 0.1;

struct Sample {
    double elements = 0;
    double seconds = 0;
};

// Fastest of kRuns applications to `n` elements, or of two that agree (module comment).
int time_sample(const void* in_source, const void* inout_source, int n, MPI_Datatype datatype, MPI_Op op,
                const ElementLayout& layout, ElementBuffer& in, ElementBuffer& inout, double& seconds) {
    std::vector<char> pack_scratch;
    REDUX_MPI(copy_elements(in_source, in.data(), n, datatype, layout, pack_scratch));
    seconds = std::numeric_limits<double>::infinity();
    double largest = 0, spent = 0;
    for (int run = 0; run < kRuns; ++run) {
        REDUX_MPI(copy_elements(inout_source, inout.data(), n, datatype, layout, pack_scratch));
        const double start = MPI_Wtime();
        REDUX_MPI(MPI_Reduce_local(in.data(), inout.data(), n, datatype, op));
        const double run_s = MPI_Wtime() - start;
        seconds = std::min(seconds, run_s);
        largest = std::max(largest, run_s);
        spent += run_s;
        if (run == 1 && spent >= kTarget_s && largest <= (1 + kAgree) * seconds) break;
    }
    return MPI_SUCCESS;
}

// The least-squares line through the samples, both coefficients at least 0.
OpCost fit(const std::vector<Sample>& samples) {
    const auto n = static_cast<double>(samples.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Sample& s : samples) {
        sx += s.elements;
        sy += s.seconds;
        sxx += s.elements * s.elements;
        sxy += s.elements * s.seconds;
    }
    const double spread = n * sxx - sx * sx;
    OpCost cost;
    if (samples.size() < 2 || spread <= 0) {  // one size: all of it per element
        cost.element_s = sx > 0 ? sy / sx : 0.0;
        return cost;
    }
    cost.element_s = (n * sxy - sx * sy) / spread;
    cost.call_s = (sy - cost.element_s * sx) / n;
    if (cost.element_s < 0) {  // flat: all per application
        cost = {sy / n, 0.0};
    } else if (cost.call_s < 0) {  // through the origin
        cost = {0.0, sxy / sxx};
    }
    return cost;
}

}  // namespace

int compute_sample_count(int count, const ElementLayout& layout) {
    const auto per_element = static_cast<size_t>(std::max<MPI_Aint>(layout.extent, 1));
    return static_cast<int>(std::clamp<size_t>(kMaxSampleBytes / per_element, 1, static_cast<size_t>(count)));
}

int measure_compute(const void* in_source, const void* inout_source, int available, MPI_Datatype datatype, MPI_Op op,
                    const ElementLayout& layout, OpCost& cost) {
    cost = {};
    if (available < 1) return MPI_SUCCESS;
    ElementBuffer in(layout, available), inout(layout, available);
    std::vector<Sample> samples;
    int size = 1;
    for (;;) {
        double seconds = 0;
        REDUX_MPI(time_sample(in_source, inout_source, size, datatype, op, layout, in, inout, seconds));
        samples.push_back({static_cast<double>(size), seconds});
        if (size == available) break;
        size = seconds >= kTarget_s ? available : std::min(2 * size, available);
        if (seconds >= kTarget_s && samples.size() >= 2) break;
    }
    cost = fit(samples);
    return MPI_SUCCESS;
}

}  // namespace redux
