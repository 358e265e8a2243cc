// The executor of the reduction family's non-tree algorithms and of the second phase of a tree's (broadcast down
// the tree, scatter from the root). The shapes are plan/family.hpp's. See family.cpp.
#pragma once

#include "mpi/element_buffer.hpp"
#include "plan/family.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace redux {

// One MPI_Allreduce, MPI_Reduce_scatter_block or MPI_Reduce call, resolved. `input` is the rank's data (recvbuf
// when the call is in place); count is the call's (the vector; reduce-scatter-block: the block, recvcount).
struct FamilyArgs {
    Collective collective = Collective::allreduce;
    int root = 0;  // a reduce's
    const void* input = nullptr;
    void* recvbuf = nullptr;
    bool in_place = false;
    int count = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    bool commutative = true;
    // The op is applied this many bytes at a time, the messages in flight progressed in between
    // (ExecKnobs::chunk_bytes): over TCP a long message's rendezvous advances only inside MPI calls.
    size_t chunk_bytes = size_t{1} << 16;
    int64_t least_piece_bytes = 0;  // family_pieces' (plan/family.hpp): the op's per-application cost's floor

    int total(int ranks) const { return collective == Collective::reduce_scatter_block ? count * ranks : count; }
};

struct TreeDynState;  // family.cpp

// Scratch vectors a cached plan keeps between calls, so that a repeated call allocates nothing.
class FamilyScratch {
public:
    // `buffers` buffers of `count` elements of `layout`; returns their origins.
    const std::vector<void*>& ensure(const ElementLayout& layout, int count, int buffers);
    std::vector<char> pack_scratch;
    std::vector<MPI_Request> requests;
    std::shared_ptr<TreeDynState> tree_dyn;  // tree-dyn's bookkeeping, made on its first call

private:
    std::vector<ElementBuffer> storage_;
    std::vector<void*> origins_;
    ElementLayout layout_;
    int count_ = -1;
};

// This rank's part of a broadcast (or scatter) from rank 0 after a tree's reduction: parent -1 at the root.
struct SpreadRole {
    int parent = -1;
    std::vector<int> children;
    int segments = 1;  // an allreduce's result goes down in this many pipelined pieces
};

int run_recursive_doubling(const FamilyArgs& args, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                           FamilyScratch& scratch);
// Recursive halving; then an allgather (allreduce), each rank's block to its rank (reduce-scatter-block), or every
// block to the root (reduce: Rabenseifner's reduce-scatter then gather).
int run_reduce_scatter(const FamilyArgs& args, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                       FamilyScratch& scratch);
// Tree-dyn (Benoit, Canon & Marchal), MPI_Reduce only: the pairs are chosen while the reduction runs, so that ranks
// that arrive late, or folds that take longer than others, hold up nobody who could do something else. The root is
// the matchmaker of the paper's slot. Every other rank tells it "arrived" (tags::kDynReady) as it enters, and
// follows the orders it gets (tags::kDynOrder; all those of one matching in one message), in their order: "receive
// from s" (it folds s's partial result into its own and tells the root "folded") and at most one "send to t" (once
// all it was told to receive is folded, its partial result goes to t, tags::kDynData, and its part is over). The
// root pairs the idle holders of partial results as it learns of them, all at once: along `batches`' tree for that
// many holders under a commutative op (the root, or the one idle longest, at its top, whose result then goes to the
// busy root); under a non-commutative op only holders of neighbouring intervals of ranks pair, in rounds as in a
// binomial tree, the lower interval folded on the left, so the result is the rank-order reduction. While ranks are
// absent the root waits up to batches.gather_s() for more idle holders before it pairs. Under a commutative op the
// root, while it has fewer than ceil(log2 size) folds to do, takes a lone idle holder, and tells absent ranks in
// advance to send to it, so that a late rank sends the moment it comes; under a non-commutative op an absent rank is
// told in advance only when at most ceil(log2 size) are absent and nobody folds, to an idle neighbour.
// A pairing costs two small messages (the "idle" and the order) besides the transfer; an absent rank's none. The
// whole vector travels in one message (no segments). A repeated call allocates nothing where the ranks are at most
// DynBatches::kPreparedRanks and a buffer per rank takes at most 1 MiB together (beyond, once the batch sizes and
// the receives in flight a call meets have all been met).
int run_tree_dyn(const FamilyArgs& args, const ElementLayout& layout, MPI_Comm comm, int rank, int size,
                 FamilyScratch& scratch, const DynBatches& batches);
// The second phase of a tree: rank 0 holds the reduction of the whole vector in `result` (allreduce: recvbuf;
// reduce-scatter-block: a scratch vector of size x count elements). Allreduce: role.segments pipelined pieces
// down the role's tree into recvbuf; reduce-scatter-block: each rank's block from rank 0.
int run_spread(const FamilyArgs& args, const void* result, const SpreadRole& role, const ElementLayout& layout,
               MPI_Comm comm, int rank, FamilyScratch& scratch);

}  // namespace redux
