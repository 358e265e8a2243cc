// Compute cost: MPI_Reduce_local of the user's op on the call's own data, timed on growing samples.
//
// The op is applied to the call's first s elements, copied from the call's send data into scratch buffers
// (an op may cost more on some values than others, and must not write the user's buffers; the accumulator
// is refreshed before each run, so repeated products do not drift into infinities or denormals). s starts
// at 1 and doubles until one application takes kTarget_s, or s reaches the count (or 64 KiB of elements).
// Each size is timed kRuns times and the fastest run kept (noise only adds time). When s is below the
// count, a least-squares line through all the sizes timed, t(s) = a + b s (model/link_costs.hpp's fit) -- an op
// has a cost per call (a sleeping op's wake-up, a library's dispatch) besides its cost per element -- gives
// c = a + b * count.
// Measuring costs at most about 2 * kRuns * kTarget_s (6 ms) once per key, whatever the count: far below 2 % of
// the reduction of any call whose op takes that long, and a few microseconds for fast ops on small counts
// (which reach the whole count before kTarget_s).
#include "calib/compute_cost.hpp"

#include "model/link_costs.hpp"
#include "mpi/mpi_check.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace redux {
namespace {

constexpr size_t kMaxSampleBytes = 64 * 1024;
constexpr int kRuns = 3;
constexpr double kTarget_s = 1e-3;

// Fastest of kRuns applications to `n` elements.
int time_sample(const void* source, int n, MPI_Datatype datatype, MPI_Op op, const ElementLayout& layout,
                ElementBuffer& in, ElementBuffer& inout, double& seconds) {
    std::vector<char> pack_scratch;
    REDUX_MPI(copy_elements(source, in.data(), n, datatype, layout, pack_scratch));
    seconds = std::numeric_limits<double>::infinity();
    for (int run = 0; run < kRuns; ++run) {
        REDUX_MPI(copy_elements(source, inout.data(), n, datatype, layout, pack_scratch));
        const double start = MPI_Wtime();
        REDUX_MPI(MPI_Reduce_local(in.data(), inout.data(), n, datatype, op));
        seconds = std::min(seconds, MPI_Wtime() - start);
    }
    return MPI_SUCCESS;
}

}  // namespace

int measure_compute(const void* source, int count, MPI_Datatype datatype, MPI_Op op, const ElementLayout& layout,
                    double& seconds) {
    const auto per_element = static_cast<size_t>(std::max<MPI_Aint>(layout.extent, 1));
    const int largest =
        static_cast<int>(std::clamp<size_t>(kMaxSampleBytes / per_element, 1, static_cast<size_t>(count)));
    ElementBuffer in(layout, largest), inout(layout, largest);
    std::vector<PingSample> times;  // (elements, seconds)
    int sample = 1;
    double time = 0;
    for (;;) {
        REDUX_MPI(time_sample(source, sample, datatype, op, layout, in, inout, time));
        times.push_back({static_cast<size_t>(sample), time});
        if (time >= kTarget_s || sample == largest) break;
        sample = std::min(2 * sample, largest);
    }
    if (sample == count || times.size() == 1) {
        seconds = time * static_cast<double>(count) / static_cast<double>(sample);
        return MPI_SUCCESS;
    }
    seconds = fit_line(times).at(static_cast<size_t>(count));
    return MPI_SUCCESS;
}

}  // namespace redux
